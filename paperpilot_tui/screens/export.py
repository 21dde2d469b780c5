"""Export the conversation on the main screen to Markdown: ask for a path (prefilled with
``<data dir>/exports/<session>.md``), write each question, answer and its numbered sources there."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from collections.abc import Callable

from paperpilot_tui.runtime import one_line
from paperpilot_tui.screens.dialogs import PromptScreen
from paperpilot_tui.transcript import default_export_path, to_markdown, write_export


def export_session(screen: Any) -> None:
    """Start the export from the main screen (a worker: the dialog is awaited)."""
    screen.run_worker(_export(screen), group="export", exclusive=True, exit_on_error=False)


async def _export(screen: Any) -> None:
    from paperpilot_tui.widgets.chat import ChatPane

    app = screen.app
    turns = list(screen.query_one(ChatPane).record)
    if not turns:
        app.notify("Nothing to export yet: ask a question first.", severity="warning", timeout=4)
        return
    session_id = app.session.session_id
    path = await prompt_and_write(
        app, f"Export this session ({len(turns)} turn(s), with sources) to Markdown", session_id,
        lambda: to_markdown(session_id, turns, title=turns[0].question.strip(), secrets=app.settings.secrets()))
    if path is not None:
        app.notify(f"Exported {len(turns)} turn(s) to {path}", title="Export", timeout=6)


async def prompt_and_write(app: Any, title: str, stem: str, render: Callable[[], str]) -> Path | None:
    """Ask for a path (``<data dir>/exports/<stem>.md`` offered) and write ``render()`` there; the
    path written, or None when the user cancelled or the write failed (a one-line error toast)."""
    try:
        suggested = str(default_export_path(app.settings, stem))
    except OSError:
        suggested = f"{stem}.md"
    answer = await app.push_screen_wait(PromptScreen(title, suggested, placeholder="path of the .md file"))
    if not answer or not answer.strip():
        return None
    try:
        return await asyncio.to_thread(write_export, Path(answer.strip()), render())
    except OSError as exc:
        app.notify(f"could not export: {one_line(exc)}", severity="error", timeout=8)
        return None
