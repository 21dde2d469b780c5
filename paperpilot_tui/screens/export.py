"""Export the conversation on the main screen to Markdown: ask for a path (prefilled with
``<data dir>/exports/<session>.md``), write each question, answer and its numbered sources there.

Under ``paperpilot serve`` (Textual's web driver) whoever holds the browser tab types the path, and
the file is written as the serving user: there a path outside the data dir and the export
directory is refused with one line (symlinks resolved first), since no confirmation shown in that
tab could come from anyone else. In a local terminal any path the user types is written.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from collections.abc import Callable

from paperpilot_tui.runtime import one_line
from paperpilot_tui.screens.dialogs import PromptScreen
from paperpilot_tui.transcript import EXPORTS_DIR, default_export_path, to_markdown, write_export


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
    target = Path(answer.strip()).expanduser()
    try:
        if app.is_web:
            refused = outside_roots(target, export_roots(app.settings))
            if refused:
                app.notify(refused, severity="error", timeout=10)
                return None
        return await asyncio.to_thread(write_export, target, render())
    except OSError as exc:
        app.notify(f"could not export: {one_line(exc)}", severity="error", timeout=8)
        return None


def export_roots(settings: Any) -> tuple[Path, ...]:
    """The folders a browser session may export into: the data dir and the export directory."""
    return tuple(dict.fromkeys(p.resolve() for p in (settings.paths.home_dir(), settings.paths.resolve(EXPORTS_DIR))))


def outside_roots(path: Path, roots: tuple[Path, ...]) -> str | None:
    """None when ``path`` (symlinks resolved, relative to the working directory) lies under one of
    ``roots``; else the one line that refuses it."""
    resolved = path.resolve()
    if any(resolved.is_relative_to(root) for root in roots):
        return None
    return (f"not exported: in a browser (paperpilot serve) exports go only under {roots[0]}; "
            "pick a path there, or export from a terminal")
