"""Stored and third-party text never drives the terminal from the app (issue 26, item 7).

Each payload from :mod:`tests.support.escapes` goes into real stores or a replayed turn and is shown
by the real app under Pilot; the test then renders the screen exactly as the app's driver writes it
to a terminal (the compositor's update printed by a terminal Rich console) and checks that, once the
app's own sequences (colours, cursor moves, OSC 8 link brackets) are set aside, no control character
is left and the words around the payload are still on screen.
"""

from __future__ import annotations

import io
import re

from rich.console import Console

from paperpilot_tui.app import PaperPilotApp
from tests.support.escapes import BEFORE, assert_inert, payloads, wrapped
from tests.support.recorded import COMPARE_Q, FAIL_Q, RecordedAgent, demo_stores, recorded_factory
from tests.tui.conftest import ask, wait_until

SIZE = (160, 48)
_SAFE_TEXT = "[^\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]"
# What Textual itself writes: SGR colours, cursor moves, and OSC 8 hyperlinks whose target is clean.
TEXTUAL_OWN = re.compile(rf"\x1b\[[0-9;:]*[mH]|\x1b\]8;{_SAFE_TEXT}*?\x1b\\")


def raw_terminal_output(app) -> str:
    """The screen as the driver writes it to the terminal."""
    console = Console(file=io.StringIO(), width=SIZE[0], height=SIZE[1], force_terminal=True,
                      color_system="truecolor", legacy_windows=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.file.getvalue()


def terminal_output(app) -> str:
    """:func:`raw_terminal_output` minus Textual's own sequences."""
    return TEXTUAL_OWN.sub("", raw_terminal_output(app))


def poisoned(payload: str):
    """Every string of a recorded turn's events gets the payload (answer, sources, notices, errors)."""
    from core.events import event_from_dict

    def walk(value):
        if isinstance(value, str):
            return value.replace("LoRA", f"{wrapped(payload)} LoRA").replace("hub", f"{wrapped(payload)} hub")
        if isinstance(value, list):
            return [walk(v) for v in value]
        if isinstance(value, dict):
            return {k: v if k in ("kind", "turn_id", "session_id") else walk(v) for k, v in value.items()}
        return value

    return lambda events: [event_from_dict(walk(e.model_dump())) for e in events]


def app_with(settings, payload: str):
    stores = demo_stores(settings)
    agent = RecordedAgent(stores.traces, transform=poisoned(payload))
    app = PaperPilotApp(settings, agent_factory=recorded_factory(agent), stores_factory=lambda s: stores)
    return app, stores


@payloads
async def test_memory_browser_shows_an_imported_fact_inert(settings, payload):
    app, stores = app_with(settings, payload)
    stores.facts.add(f"{wrapped(payload)} twice a day")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        await pilot.press("f3")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "MemoryScreen")
        await wait_until(pilot, lambda: BEFORE in terminal_output(app))
        assert_inert(terminal_output(app))


@payloads
async def test_session_list_shows_a_renamed_session_inert(settings, payload):
    app, stores = app_with(settings, payload)
    stores.sessions.rename("s002", wrapped(payload))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        await pilot.press("f2")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SessionsScreen")
        await wait_until(pilot, lambda: BEFORE in terminal_output(app))
        assert_inert(terminal_output(app))


@payloads
async def test_answer_and_sources_from_the_hub_are_inert(settings, payload):
    app, _ = app_with(settings, payload)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, COMPARE_Q)
        assert BEFORE in app.main_screen.query_one("#source-list").get_option_at_index(0).prompt.plain
        assert_inert(terminal_output(app))


@payloads
async def test_a_failed_turns_notification_is_inert(settings, payload):
    app, _ = app_with(settings, payload)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, FAIL_Q + " (fail)")
        await wait_until(pilot, lambda: any(BEFORE in str(n.message) for n in app._notifications))
        await wait_until(pilot, lambda: BEFORE in terminal_output(app))
        assert_inert(terminal_output(app))


@payloads
async def test_a_web_sources_link_target_is_inert(settings, payload):
    """A web-fallback source's URL is written inside an OSC 8 sequence: the target is cleaned too."""
    from core.types import Source
    from paperpilot_tui.widgets.sources import SourcesPanel

    app, _ = app_with(settings, payload)
    url = f"http://arxiv.org/abs/2312.00752{payload}v2"
    web = Source(index=1, chunk_id="web:arxiv:2312.00752", doc_id="arxiv:2312.00752", title=wrapped(payload),
                 url=url, breadcrumb="arxiv", text=wrapped(payload))
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, COMPARE_Q)
        app.main_screen.query_one(SourcesPanel).show([web])
        await pilot.pause()
        assert "\x1b]8;id=" in raw_terminal_output(app)  # the URL is a link
        assert_inert(terminal_output(app))


async def test_stored_text_in_a_notification_is_shown_as_written_not_as_markup(settings):
    """Textual reads a notification as content markup by default: a stored name holding
    ``[@click=...]`` would become a clickable action and ``[b]`` would vanish into style."""
    app, _ = app_with(settings, "")
    stored = "session [@click=app.quit]Orrery[/] [b]gears turn[/b]"
    async with app.run_test(size=SIZE, notifications=True) as pilot:  # Pilot shows no toasts unless asked
        app.notify(f"could not load session {stored}: no such session", severity="error")
        await wait_until(pilot, lambda: "Orrery" in terminal_output(app))
        assert not any(n.markup for n in app._notifications)
        assert "[@click=app.quit]Orrery[/]" in terminal_output(app)
