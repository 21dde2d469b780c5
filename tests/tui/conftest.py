"""Fixtures for the TUI tests: fixed time zone, settings on a private data dir, app builders."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from contextlib import asynccontextmanager

import pytest

os.environ["TZ"] = "UTC"
time.tzset()


@pytest.fixture
def settings(tmp_path):
    """Offline settings on a fresh data dir; rules router (no model load), memory on."""
    from core.config import load_settings

    s = load_settings(use_user_file=False)
    s.paths.home = str(tmp_path / "home")
    s.agent.router = "rules"
    s.agent.critic = "rules"
    s.tui.theme = "textual-dark"
    s.tui.answer_pace = 0  # offline answers arrive at once unless a test paces them
    return s


def real_agent_factory(hub):
    """Open the real agent (graph, offline brain, checkpointer, stores) on a stub hub."""

    @asynccontextmanager
    async def factory(settings):
        from core.agent import open_agent

        async with open_agent(settings, hub=hub, pace=settings.tui.answer_pace) as agent:
            yield agent

    return factory


async def wait_until(pilot, predicate, timeout: float = 30.0, step: float = 0.05) -> None:
    """Pump the app until ``predicate()`` is true (no fixed sleeps)."""
    loops = int(timeout / step)
    for _ in range(loops):
        if predicate():
            await pilot.pause()
            return
        await pilot.pause(step)
    raise AssertionError(f"condition not met within {timeout}s: {predicate}")


async def ask(pilot, text: str) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: app.session.agent is not None)
    box = app.main_screen.query_one("#chat-input")
    box.focus()
    box.load_text(text)
    before = app.main_screen.turns_ended
    await pilot.press("enter")
    await wait_until(pilot, lambda: app.main_screen.turns_ended > before, timeout=120)
    await settle(pilot)


async def settle(pilot) -> None:
    """Wait until the answer's final Markdown update has been applied."""
    app = pilot.app
    await wait_until(pilot, lambda: not any(w.group == "md-stream" and not w.is_finished for w in app.workers))
    await pilot.pause()


DEV_PDF_DIR = Path("/work/shared/eval/fullpapers/dev/docs")
DEV_PDFS = ("scissor_semantic_parser.pdf", "web_relation_mil.pdf")  # the two smallest: the tests stay short


@pytest.fixture
def pdfs(tmp_path):
    """Copies of two real full-text dev PDFs (skipped where they are not on this machine)."""
    if not all((DEV_PDF_DIR / name).is_file() for name in DEV_PDFS):
        pytest.skip(f"the PDFs of {DEV_PDF_DIR} are not on this machine")
    folder = tmp_path / "papers"
    folder.mkdir()
    for name in DEV_PDFS:
        shutil.copy(DEV_PDF_DIR / name, folder / name)
    return [folder / name for name in DEV_PDFS]


def own_hub_app(settings, hub_db, tmp_path):
    """The app over a private copy of the indexed hub (its own stdio process), memory off."""
    from paperpilot_tui.app import PaperPilotApp

    db = tmp_path / "hub" / "hub.sqlite3"
    db.parent.mkdir()
    shutil.copy(hub_db, db)
    settings.memory.enabled = False
    settings.mcp.connections["hub"].args = ["-m", "core.hub", "serve", "--db", str(db)]
    return PaperPilotApp(settings, blink=False)
