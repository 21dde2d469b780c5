"""Export the conversation on the main screen to Markdown: ask for a path (prefilled with
``<data dir>/exports/<session>.md``), write each question, answer and its numbered sources there,
and the cited papers as BibTeX beside it (``<session>.bib``); the answers cite them pandoc-style
(``[@key]``), so ``pandoc --citeproc --bibliography <session>.bib`` renders the references.

Under ``paperpilot serve`` (Textual's web driver) whoever holds the browser tab types the path, and
the file is written as the serving user: there a path outside the data dir and the export
directory is refused with one line (symlinks resolved first), since no confirmation shown in that
tab could come from anyone else. In a local terminal any path the user types is written.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
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
    from core.hub.library.cite import pandoc_citations, session_citations

    session_id = app.session.session_id
    bib, keys = session_citations([t.sources for t in turns])
    cited = [replace(t, answer=pandoc_citations(t.answer, k)) for t, k in zip(turns, keys)]
    path = await prompt_and_write(
        app, f"Export this session ({len(turns)} turn(s), with sources) to Markdown + .bib", session_id,
        lambda: to_markdown(session_id, cited, title=turns[0].question.strip(), secrets=app.settings.secrets()),
        bib=lambda: bib)
    if path is not None:
        app.notify(f"Exported {len(turns)} turn(s) to {path} (+ {path.with_suffix('.bib').name})",
                   title="Export", timeout=6)


async def prompt_and_write(app: Any, title: str, stem: str, render: Callable[[], str],
                           bib: Callable[[], str] | None = None) -> Path | None:
    """Ask for a path (``<data dir>/exports/<stem>.md`` offered) and write ``render()`` there, and
    ``bib()`` beside it as ``<name>.bib``; the Markdown's path, or None when the user cancelled or
    the write failed (a one-line error toast)."""
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
        written = await asyncio.to_thread(write_export, target, render())
        if bib is not None:
            await asyncio.to_thread(write_export, bib_path(target), bib())
        return written
    except OSError as exc:
        app.notify(f"could not export: {one_line(exc)}", severity="error", timeout=8)
        return None


def bib_path(md: Path) -> Path:
    """Where the ``.bib`` of an export at ``md`` goes: beside it, same stem."""
    return md.with_suffix(".bib") if md.suffix.lower() != ".bib" else md.with_name(md.name + ".bib")


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
