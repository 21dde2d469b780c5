"""Screens of the app in fixed, deterministic states: recorded real turns replayed through the
real trace store, real stores seeded with fixed data (:mod:`tests.support.recorded`).

Used by the SVG snapshot tests and to regenerate ``screenshots/``:

    python -m tests.support.screenshots [OUT_DIR [NAME ...]]

NAME is a scene below, or ``research`` for the four deep-research shots, which come from one real
run of the agent over the bundled hub instead (:mod:`tests.support.research_shots`); no NAME
regenerates them all.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any
from collections.abc import Awaitable, Callable

SIZE = (120, 40)


def scene_app() -> Any:
    from tests.support.recorded import recorded_app

    return recorded_app(session="s001", blink=False, paced=True)  # streamed as users see it


async def _until(pilot: Any, predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    for _ in range(int(timeout / 0.02)):
        if predicate():
            return
        await pilot.pause(0.02)
    raise TimeoutError("scene did not settle")


async def _ask(pilot: Any, question: str) -> None:
    app = pilot.app
    await _until(pilot, lambda: app.session.agent is not None)
    box = app.main_screen.query_one("#chat-input")
    box.load_text(question)
    before = app.main_screen.turns_ended
    await pilot.press("enter")
    await _until(pilot, lambda: app.main_screen.turns_ended > before)
    await _until(pilot, lambda: not any(w.group == "md-stream" and not w.is_finished for w in app.workers))


async def _freeze(pilot: Any) -> None:
    """No blinking cursors, everything laid out."""
    for widget in pilot.app.screen.query("TextArea, Input"):
        widget.cursor_blink = False
    await pilot.pause()
    await pilot.wait_for_scheduled_animations()
    # Every screen of the stack is drawn (a modal shows the main screen around it): its logs may
    # still be taking the steps of work that ended just before (a research stage's trace rows), so
    # wait until their row counts hold still for a fifth of a second before the picture is taken (on a
    # loaded machine a row can come 60 ms after the last one: the clarify stage's picture then gained
    # a trace scrollbar in one suite run of session 22).
    logs = [w for screen in pilot.app.screen_stack for w in screen.query("ChatLog, TraceList")]
    counts, steady = None, 0
    for _ in range(250):
        now = [len(w.children) for w in logs]
        steady = steady + 1 if now == counts else 0
        if steady >= 10:
            break
        counts = now
        await pilot.pause(0.02)
    # An anchored log moves its scrollbar position without repainting the bar; repaint it so the
    # thumb is drawn where the content is.
    for widget in logs:
        if widget.show_vertical_scrollbar:
            widget.vertical_scrollbar.refresh()
    await pilot.pause()


async def main_answer(pilot: Any) -> None:
    from tests.support.recorded import COMPARE_Q

    await _ask(pilot, COMPARE_Q)
    await _freeze(pilot)


async def main_follow_up(pilot: Any) -> None:
    from tests.support.recorded import COMPARE_Q, FOLLOW_Q

    await _ask(pilot, COMPARE_Q)
    await _ask(pilot, FOLLOW_Q)
    await _freeze(pilot)


async def main_failure(pilot: Any) -> None:
    from tests.support.recorded import FAIL_Q

    await _ask(pilot, f"{FAIL_Q} (hub down: fail)")
    await _freeze(pilot)


async def main_high_contrast(pilot: Any) -> None:
    pilot.app.theme = "paperpilot-high-contrast"
    await main_answer(pilot)


async def _open(pilot: Any, key: str, screen: str) -> None:
    app = pilot.app
    await _until(pilot, lambda: app.session.stores is not None)
    await pilot.press(key)
    await _until(pilot, lambda: type(app.screen).__name__ == screen)
    await _until(pilot, lambda: bool(getattr(app.screen, "facts", None) or getattr(app.screen, "sessions", None)
                                     or getattr(app.screen, "traces", None)) or screen == "HelpScreen")
    await _freeze(pilot)


async def memory_browser(pilot: Any) -> None:
    await _open(pilot, "f3", "MemoryScreen")


async def sessions(pilot: Any) -> None:
    await _open(pilot, "f2", "SessionsScreen")


async def replay_picker(pilot: Any) -> None:
    await _open(pilot, "f4", "ReplayScreen")


async def help_screen(pilot: Any) -> None:
    await _until(pilot, lambda: pilot.app.session.agent is not None)
    await _open(pilot, "f1", "HelpScreen")


async def replay_done(pilot: Any) -> None:
    app = pilot.app
    await _until(pilot, lambda: app.session.stores is not None)
    from tests.support.recorded import recorded_events

    app.replay(recorded_events("compare")[0].turn_id, speed=16.0)
    await _until(pilot, lambda: app.main_screen.turns_ended > 0)
    await _until(pilot, lambda: not any(w.group == "md-stream" and not w.is_finished for w in app.workers))
    await _freeze(pilot)


async def narrow_answer(pilot: Any) -> None:
    await main_answer(pilot)


async def sidebar(pilot: Any) -> None:
    from tests.tui.test_sidebar import _sidebar_scene

    await _sidebar_scene(pilot)


async def collections(pilot: Any) -> None:
    from tests.tui.test_collections_screen import _open_mine

    await _open_mine(pilot)
    await _freeze(pilot)


async def slash_completion(pilot: Any) -> None:
    status = pilot.app.main_screen.status  # the recorded hub stands in for a started agent
    status.brain, status.hub, status.activity = "offline", "hub (stdio)", "ready"
    box = pilot.app.main_screen.query_one("#chat-input")
    box.focus()
    await pilot.press("/")
    await _until(pilot, lambda: pilot.app.main_screen.query_one("#slash-menu").is_open)
    await _freeze(pilot)


def _hub_scene_app() -> Any:
    """The app over recorded hub answers (collections with fixed counts), no agent process."""
    from tests.support.recorded import demo_settings
    from tests.tui.test_collections_screen import _app

    return _app(demo_settings())


SCENES: dict[str, tuple[tuple[int, int], Callable[[Any], Awaitable[None]]]] = {
    "main_answer": (SIZE, main_answer),
    "main_follow_up": (SIZE, main_follow_up),
    "main_failure": (SIZE, main_failure),
    "main_high_contrast": (SIZE, main_high_contrast),
    "memory_browser": (SIZE, memory_browser),
    "sessions": (SIZE, sessions),
    "replay_picker": (SIZE, replay_picker),
    "replay_done": (SIZE, replay_done),
    "help": (SIZE, help_screen),
    "main_narrow_80x24": ((80, 24), narrow_answer),
    "sidebar": ((140, 45), sidebar),
    "collections": (SIZE, collections),
    "slash_completion": ((100, 30), slash_completion),
}
APPS: dict[str, Callable[[], Any]] = {"collections": _hub_scene_app, "slash_completion": _hub_scene_app}


async def _shoot(name: str, out: Path) -> Path:
    size, setup = SCENES[name]
    app = APPS.get(name, scene_app)()
    async with app.run_test(size=size) as pilot:
        await setup(pilot)
        path = out / f"{name}.svg"
        path.write_text(app.export_screenshot(title=f"PaperPilot — {name}"), encoding="utf-8")
    return path


def main(argv: list[str] | None = None) -> int:
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m tests.support.screenshots",
        description="Regenerate the screenshots from recorded offline-brain turns (SVG, one per scene).",
        epilog="examples:\n  python -m tests.support.screenshots\n"
               "  python -m tests.support.screenshots /tmp/shots replay_picker sessions",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", nargs="?", default=str(Path(__file__).resolve().parents[2] / "screenshots"),
                    help="folder to write to (default: the repository's screenshots/)")
    ap.add_argument("scenes", nargs="*", help=f"scenes (default: all): {', '.join(SCENES)}, research")
    a = ap.parse_args(argv)
    out = Path(a.out)
    names = a.scenes or [*SCENES, "research"]
    unknown = [n for n in names if n not in SCENES and n != "research"]
    if unknown:
        print(f"unknown scene(s): {', '.join(unknown)}; scenes: {', '.join(SCENES)}, research", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("TZ", "UTC")
    time.tzset()
    for name in names:
        if name in SCENES:
            print(asyncio.run(_shoot(name, out)))
    if "research" in names:
        from tests.support import research_shots

        research_shots.main([str(out)])
    return 0


if __name__ == "__main__":
    sys.exit(main())
