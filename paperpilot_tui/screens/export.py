"""Export the conversation on the main screen to Markdown: ask for a path (prefilled with
``<data dir>/exports/<session>.md``), write each question, answer and its numbered sources there."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

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
    try:
        suggested = str(default_export_path(app.settings, session_id))
    except OSError:
        suggested = f"{session_id}.md"
    answer = await app.push_screen_wait(PromptScreen(
        f"Export this session ({len(turns)} turn(s), with sources) to Markdown", suggested,
        placeholder="path of the .md file"))
    if not answer or not answer.strip():
        return
    text = to_markdown(session_id, turns, title=turns[0].question.strip(), secrets=app.settings.secrets())
    try:
        path = await asyncio.to_thread(write_export, Path(answer.strip()), text)
    except OSError as exc:
        app.notify(f"could not export: {one_line(exc)}", severity="error", timeout=8)
        return
    app.notify(f"Exported {len(turns)} turn(s) to {path}", title="Export", timeout=6)
