"""Screenshots of deep research in the app, recorded from one real run: the app as ``paperpilot``
opens it (the real ``core.agent`` with the offline brain and the bundled knowledge hub over MCP,
real stores) driven with Pilot from the topic to the review.

    python -m tests.support.screenshots screenshots research      # these four only
    python -m tests.support.research_shots [OUT_DIR] [--home DIR]  # the same, directly

A fresh data directory indexes the bundled corpus first (a minute or two); ``--home`` (or
``PAPERPILOT_SHOTS_HOME``) reuses one. The run is the user's: the topic, an answer typed into the
focus question (the second), the outline as proposed with its second point highlighted, the search,
the review. The only thing added is a pause: :class:`HoldAfterFirstPoint` passes the real agent's
events on unchanged but holds the stream after the first ``PointSearched`` until the searching
shot is taken, since the points are searched concurrently and finish within a second.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from collections.abc import AsyncIterator

SIZE = (120, 40)
TOPIC = "Parameter-efficient fine-tuning and alignment of large language models"
ANSWER = "LoRA, QLoRA and DPO"  # typed into the focus question (the others: no preference)
SHOTS = ("research_clarify", "research_outline", "research_searching", "research_review")


class HoldAfterFirstPoint:
    """The real agent, whose ``run_research`` stream stops after its first ``PointSearched`` until
    :attr:`release` is set (:attr:`held` says it got there). Everything else is the agent's own."""

    def __init__(self, agent: Any) -> None:
        self._agent = agent
        self.held = asyncio.Event()
        self.release = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._agent, name)

    async def run_research(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        from core.events import PointSearched

        async for event in self._agent.run_research(*args, **kwargs):
            yield event
            if isinstance(event, PointSearched) and not self.held.is_set():
                self.held.set()
                await self.release.wait()


def research_app(home: Path) -> tuple[Any, list[HoldAfterFirstPoint]]:
    """The app on ``home`` with the real agent (as ``paperpilot`` opens it), and the holder once open."""
    from core.config import load_settings
    from paperpilot_tui.app import PaperPilotApp
    from paperpilot_tui.runtime import quiet_stdio_servers

    settings = load_settings(use_user_file=False)
    settings.paths.home = str(home)
    held: list[HoldAfterFirstPoint] = []

    @asynccontextmanager
    async def factory(s: Any) -> AsyncIterator[Any]:
        from core.agent import open_agent

        async with open_agent(quiet_stdio_servers(s), pace=s.tui.answer_pace) as agent:
            held.append(HoldAfterFirstPoint(agent))
            yield held[-1]

    app = PaperPilotApp(settings, agent_factory=factory, blink=False)  # a new session: a session holds one research
    return app, held


async def _until(pilot: Any, predicate: Any, what: str, timeout: float = 300.0) -> None:
    for _ in range(int(timeout / 0.05)):
        if predicate():
            await pilot.pause()
            return
        await pilot.pause(0.05)
    raise TimeoutError(f"research shots: {what} did not happen within {timeout:.0f} s")


async def _save(pilot: Any, out: Path, name: str) -> Path:
    from tests.support.screenshots import _freeze

    pilot.app.clear_notifications()
    await _freeze(pilot)
    path = out / f"{name}.svg"
    path.write_text(pilot.app.export_screenshot(title=f"PaperPilot — {name}"), encoding="utf-8")
    print(path, flush=True)
    return path


async def shoot(out: Path, home: Path) -> list[Path]:
    """One real research run from topic to review, saving the four shots on the way."""
    from paperpilot_tui.widgets.research import ResearchProgress, ResearchSources

    app, held = research_app(home)
    screen = lambda: type(app.screen).__name__  # noqa: E731
    paths = []
    async with app.run_test(size=SIZE) as pilot:
        await _until(pilot, lambda: app.session.agent is not None and app.session.warm.is_set(), "the agent's start")
        await _until(pilot, lambda: "indexing" not in app.main_screen.status.activity, "the hub's indexing")
        await pilot.press("ctrl+r")
        box = app.main_screen.query_one("#chat-input")
        box.focus()
        box.load_text(TOPIC)
        await pilot.press("enter")
        await _until(pilot, lambda: screen() == "ClarifyScreen", "the clarifying questions")
        await pilot.press("enter", *ANSWER)  # the second question: which methods to focus on
        paths.append(await _save(pilot, out, "research_clarify"))

        await pilot.press("ctrl+s")
        await _until(pilot, lambda: screen() == "OutlineScreen", "the outline")
        await pilot.press("down")
        paths.append(await _save(pilot, out, "research_outline"))

        await pilot.press("ctrl+s")
        agent = held[-1]
        await _until(pilot, agent.held.is_set, "the first point searched")
        await _until(pilot, lambda: app.main_screen.query(ResearchProgress)
                     and app.main_screen.query_one(ResearchProgress).searched == 1, "the progress shown")
        paths.append(await _save(pilot, out, "research_searching"))

        agent.release.set()
        await _until(pilot, lambda: app.research.review is not None and app.main_screen.query(ResearchSources),
                     "the review")
        await _until(pilot, lambda: not any(w.group == "md-stream" and not w.is_finished for w in app.workers),
                     "the review's last Markdown update")
        sources = app.main_screen.query_one(ResearchSources)
        sources.query("Collapsible").first().collapsed = False
        await pilot.pause()
        # the end of the review (its References) above the sources by point, the first one opened
        log = app.main_screen.query_one("#chat-log")
        log.scroll_to(y=sources.virtual_region.y - 9, animate=False)
        paths.append(await _save(pilot, out, "research_review"))
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, default=Path(__file__).resolve().parents[2] / "screenshots")
    parser.add_argument("--home", type=Path, default=os.environ.get("PAPERPILOT_SHOTS_HOME"),
                        help="data directory (default: a fresh temporary one, indexed first)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TZ", "UTC")
    time.tzset()
    asyncio.run(shoot(args.out, args.home or Path(tempfile.mkdtemp(prefix="pp-research-shots-"))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
