"""Pilot tests for sessions and replay: deleting the current session, replay state, resumed sessions."""

from __future__ import annotations

from paperpilot_tui.widgets.chat import Question
from tests.support.recorded import COMPARE_Q
from tests.tui.conftest import ask, wait_until
from tests.tui.test_flows import recorded_app


async def test_deleting_the_current_session_starts_a_fresh_one(settings):
    app, agent = recorded_app(settings, session="s001")
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, COMPARE_Q)
        await pilot.press("f2")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SessionsScreen")
        screen = app.screen
        await wait_until(pilot, lambda: any(s.id == "s001" for s in screen.sessions))
        screen.query_one("DataTable").move_cursor(row=[s.id for s in screen.sessions].index("s001"))
        await pilot.press("d")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        await pilot.press("y")
        await wait_until(pilot, lambda: app.session.session_id != "s001")
        assert app.session.stores.sessions.get("s001") is None
        assert not app.main_screen.query(Question)  # no ghost conversation
        assert app.main_screen.status.session == app.session.session_id
        await pilot.press("escape")
        await ask(pilot, COMPARE_Q)
        assert len(agent.turns["s001"]) == 1  # the new question did not go to the deleted id
