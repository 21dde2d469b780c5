"""The conversations sidebar (issue 25, item 5): from 140 columns the main screen lists the
sessions newest first, research runs marked; enter reopens one; hidden below 140 and toggled with a key."""

from __future__ import annotations

from textual.widgets import OptionList

from paperpilot_tui.widgets.sidebar import ConversationsSidebar
from tests.support.recorded import COMPARE_Q, recorded_events
from tests.tui.conftest import ask, wait_until
from tests.tui.test_flows import recorded_app

RESEARCH_TOPIC = "Parameter-efficient fine-tuning"


def seed_research(stores, session_id: str = "r001") -> None:
    """A research run as the runner records it: a ``research: TOPIC`` turn in its own session."""
    events = recorded_events("compare")
    stores.traces.save_turn_sync("research-trace-1", session_id, f"research: {RESEARCH_TOPIC}", events)


def rows(app) -> list[str]:
    options = app.main_screen.query_one("#conversation-list", OptionList)
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def test_sidebar_lists_sessions_newest_first_and_reopens_one(settings):
    app, _ = recorded_app(settings)
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        sidebar = app.main_screen.query_one(ConversationsSidebar)
        assert sidebar.display and sidebar.region.width > 0
        seed_research(app.session.stores)
        sidebar.reload()
        await wait_until(pilot, lambda: len(sidebar.rows) == 4)
        current = app.session.session_id  # not stored before its first turn: listed on top, marked
        assert [r.id for r in sidebar.rows] == [current, "r001", "s002", "s001"]  # newest first
        assert rows(app)[0].startswith("▶ (new conversation)")
        assert sidebar.rows[1].research and rows(app)[1].startswith("  ◆ " + RESEARCH_TOPIC)
        assert not any(r.research for r in sidebar.rows[2:])
        # the agent stores the session at its turn's start; the turn's end refreshes the list
        app.session.stores.sessions.begin_turn_sync(current, COMPARE_Q)
        await ask(pilot, COMPARE_Q)
        await wait_until(pilot, lambda: sidebar.rows[0].title == COMPARE_Q)
        assert rows(app)[0].startswith("▶ " + COMPARE_Q[:20])
        # enter on s001 reopens it
        options = app.main_screen.query_one("#conversation-list", OptionList)
        options.focus()
        options.highlighted = [r.id for r in sidebar.rows].index("s001")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.session.session_id == "s001")
        assert app.main_screen.status.session == "s001"


async def test_sidebar_hidden_when_narrow_and_toggled_by_key(settings):
    app, _ = recorded_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.agent is not None)
        sidebar = app.main_screen.query_one(ConversationsSidebar)
        assert sidebar.region.width == 0  # not shown below 140 columns
        await pilot.press("alt+b")
        await pilot.pause()
        assert sidebar.region.width > 0
        assert app.main_screen.query_one("#chat").region.width >= 40  # the chat keeps room
        await pilot.press("alt+b")
        await pilot.pause()
        assert sidebar.region.width == 0
        assert app.focused is app.main_screen.query_one("#chat-input")


async def _sidebar_scene(pilot) -> None:
    from tests.support.screenshots import _freeze, _until, main_answer

    app = pilot.app
    await _until(pilot, lambda: app.session.stores is not None)
    seed_research(app.session.stores)
    await main_answer(pilot)
    sidebar = app.main_screen.query_one(ConversationsSidebar)
    sidebar.reload()
    await _until(pilot, lambda: len(sidebar.rows) == 3)
    await _freeze(pilot)


def test_sidebar_snapshot(snap_compare):
    """140×45: the sidebar beside the four panes, after the demo's comparison."""
    from tests.support.screenshots import scene_app

    assert snap_compare(scene_app(), terminal_size=(140, 45), run_before=_sidebar_scene)


async def test_sidebar_fills_in_once_the_stores_open_without_a_turn(settings):
    """Found in tmux: the sidebar mounted before the session store opened and kept saying so until a
    turn ended; it now looks again until the store is open."""
    app, _ = recorded_app(settings)
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        sidebar = app.main_screen.query_one(ConversationsSidebar)
        await wait_until(pilot, lambda: bool(sidebar.rows))
        assert sidebar.rows[0].id == app.session.session_id


def test_a_reload_that_finishes_after_the_sidebar_is_gone_draws_nothing():
    """The reload worker awaits the session store; when the app closes meanwhile, the sidebar and its list
    are gone by the time it draws, and drawing must not fail the worker (it failed the app at exit:
    NoMatches for 'OptionList' on ConversationsSidebar, seen once in the suite under load)."""
    sidebar = ConversationsSidebar(id="sidebar")  # composed, never mounted: no list inside it
    sidebar._show([], "opening the session store…")
    assert sidebar.rows == []
