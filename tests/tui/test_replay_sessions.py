"""Pilot tests for sessions and replay: deleting the current session, replay state, resumed sessions."""

from __future__ import annotations

from paperpilot_tui.widgets.chat import Question
from tests.support.recorded import COMPARE_Q, FOLLOW_Q, recorded_events
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


def bar(app) -> str:
    return str(app.main_screen.query_one("#replay-bar").render())


async def test_replay_says_paused_and_stopped_and_gives_the_conversation_back(settings):
    app, _ = recorded_app(settings, session="s9")
    trace_id = recorded_events("compare")[0].turn_id
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, COMPARE_Q)
        app.replay(trace_id, speed=0.05)
        await wait_until(pilot, lambda: "playing" in bar(app))
        await pilot.press("space")
        await pilot.pause()
        assert "paused" in bar(app) and "playing" not in bar(app)
        await pilot.press("space")
        await pilot.pause()
        assert "playing" in bar(app)
        await pilot.press("escape")  # stop early
        await wait_until(pilot, lambda: not app.session.busy)
        await pilot.pause()
        text = bar(app)
        total = len(recorded_events("compare"))
        assert "stopped" in text and f"{total}/{total}" not in text and "done" not in text
        await pilot.press("escape")  # back to the conversation the replay replaced
        await wait_until(pilot, lambda: not app.main_screen.replay_shown)
        await wait_until(pilot, lambda: [str(q.render()) for q in app.main_screen.query(Question)] == [COMPARE_Q])
        assert app.main_screen.status.session == "s9"


async def test_a_question_after_a_replay_goes_below_the_restored_conversation(settings):
    app, agent = recorded_app(settings, session="s9")
    trace_id = recorded_events("compare")[0].turn_id
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, COMPARE_Q)
        app.replay(trace_id, speed=0)
        await wait_until(pilot, lambda: "done" in bar(app))
        await ask(pilot, FOLLOW_Q)
        assert [str(q.render()) for q in app.main_screen.query(Question)] == [COMPARE_Q, FOLLOW_Q]
        assert not app.main_screen.replay_shown
        assert [q for q, _ in agent.turns["s9"]] == [COMPARE_Q, FOLLOW_Q]


async def test_a_resumed_session_restores_sources_trace_and_input_history(settings):
    from core.events import TurnFinished
    from paperpilot_tui.widgets.sources import SourcesPanel
    from paperpilot_tui.widgets.trace import TracePane

    events = recorded_events("compare")
    first = events[0]
    result = next(e for e in events if isinstance(e, TurnFinished)).result
    app, agent = recorded_app(settings, session=first.session_id)
    agent.turns[first.session_id] = [(first.question, result.final_answer)]
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.main_screen
        await wait_until(pilot, lambda: len(screen.query(Question)) == 1)
        await wait_until(pilot, lambda: [s.index for s in screen.query_one(SourcesPanel).sources]
                         == [s.index for s in result.sources])
        assert any(str(s.title).startswith("search [") for s in screen.query_one(TracePane).steps)
        box = screen.query_one("#chat-input")
        box.focus()
        await pilot.press("up")
        assert box.text == first.question


async def test_f2_lists_a_research_session_marked_and_its_detail_says_so(settings):
    """Issue 25 item 4: deep-research sessions are found again in F2, marked ◆, beside chat sessions."""
    from tests.tui.test_sidebar import RESEARCH_TOPIC, seed_research

    app, _ = recorded_app(settings, session="s001")
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, COMPARE_Q)
        seed_research(app.session.stores, "r001")
        await pilot.press("f2")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SessionsScreen")
        screen = app.screen
        await wait_until(pilot, lambda: {s.id for s in screen.sessions} >= {"s001", "r001"})
        research = next(s for s in screen.sessions if s.id == "r001")
        assert research.research and research.title == RESEARCH_TOPIC
        assert not next(s for s in screen.sessions if s.id == "s001").research
        table = screen.query_one("DataTable")
        row = [s.id for s in screen.sessions].index("r001")
        assert str(table.get_row_at(row)[0]).startswith("◆ r001")
        table.move_cursor(row=row)
        await pilot.pause()
        assert "deep research · 1 run(s)" in str(screen.query_one("#session-detail").render())
