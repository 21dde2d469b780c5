"""Pilot tests: every user flow through the real app (recorded real turns or the real agent behind it)."""

from __future__ import annotations

import asyncio

from core.events import RetrievalFinished, TokenDelta, TurnFinished
from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.chat import Answer, Question
from paperpilot_tui.widgets.sources import SourcesPanel
from paperpilot_tui.widgets.trace import TracePane
from paperpilot_tui.widgets.trace_text import fmt_ms
from tests.support.recorded import (
    COMPARE_Q, FOLLOW_Q, RecordedAgent, demo_stores, recorded_events, recorded_factory,
)
from tests.tui.conftest import ask, real_agent_factory, settle, wait_until
from tests.tui.stub_hub import StubHub

COMPARE = recorded_events("compare")
COMPARE_RESULT = next(e for e in COMPARE if isinstance(e, TurnFinished)).result


def recorded_app(settings, agent_type=RecordedAgent, **kw) -> tuple[PaperPilotApp, RecordedAgent]:
    """The real app on seeded real stores, answering with recorded turns (and that agent)."""
    stores = demo_stores(settings)
    agent = agent_type(stores.traces)
    app = PaperPilotApp(settings, agent_factory=recorded_factory(agent), stores_factory=lambda s: stores, **kw)
    return app, agent


def titles(app) -> list[str]:
    return [str(s.title) for s in app.main_screen.query_one(TracePane).steps]


class GatedAgent(RecordedAgent):
    """Stops mid-stream (after a few tokens) until ``gate`` is set, to look at a turn in flight."""

    def __init__(self, traces) -> None:
        super().__init__(traces)
        self.gate = asyncio.Event()
        self.paused = asyncio.Event()

    async def run_turn(self, question, session_id=None):
        seen = 0
        async for ev in super().run_turn(question, session_id):
            if isinstance(ev, TokenDelta):
                seen += 1
                if seen == 6:
                    self.paused.set()
                    await self.gate.wait()
            yield ev


async def ask_until_paused(pilot, app, agent) -> None:
    """Send the comparison question and wait until the gated agent holds the turn mid-stream."""
    await wait_until(pilot, lambda: app.session.agent is not None)
    app.main_screen.query_one("#chat-input").load_text(COMPARE_Q)
    await pilot.press("enter")
    await wait_until(pilot, lambda: agent.paused.is_set())


async def test_ask_streams_answer_then_sources(settings):
    app, agent = recorded_app(settings, GatedAgent)
    streamed = "".join(e.text for e in COMPARE if isinstance(e, TokenDelta))[:12].strip()
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_until_paused(pilot, app, agent)
        answer = app.main_screen.query_one(Answer)
        await wait_until(pilot, lambda: streamed in answer.source)  # streamed before the turn ended
        assert app.session.busy
        assert app.main_screen.query_one("#graph-view").active == "comparative"
        agent.gate.set()
        await wait_until(pilot, lambda: app.main_screen.turns_ended == 1)
        await settle(pilot)
        assert "| Memory |" in answer.source and "(#source-3)" in answer.source  # citations became links
        panel = app.main_screen.query_one(SourcesPanel)
        assert [s.index for s in panel.sources] == [s.index for s in COMPARE_RESULT.sources]
        await pilot.press("ctrl+o", "down")
        detail = str(app.main_screen.query_one("#source-detail").render())
        second = COMPARE_RESULT.sources[1]
        assert second.title in detail and second.breadcrumb in detail and second.chunk_id in detail
        steps = titles(app)
        for done in (e for e in COMPARE if isinstance(e, RetrievalFinished)):
            assert any(t.startswith(f"search [{done.entity}]") and fmt_ms(done.duration_ms) in t for t in steps)
        graph = app.main_screen.query_one("#graph-view")
        assert graph.status["comparative"] == "done" and graph.status["critic"] == "done"


async def test_follow_up_in_same_session_and_input_history(settings):
    app, agent = recorded_app(settings, session="s9")
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, COMPARE_Q)
        await ask(pilot, FOLLOW_Q)
        assert [q for q, _ in agent.turns["s9"]] == [COMPARE_Q, FOLLOW_Q]
        questions = [str(q.render()) for q in app.main_screen.query(Question)]
        assert questions == [COMPARE_Q, FOLLOW_Q]
        assert [t for t in titles(app) if t.startswith("▶ ")] == [f"▶ {COMPARE_Q}", f"▶ {FOLLOW_Q}"]
        graph = app.main_screen.query_one("#graph-view")
        assert graph.intent.type == "follow_up" and graph.strategy == "simple"
        box = app.main_screen.query_one("#chat-input")
        box.focus()
        await pilot.press("up")
        assert box.text == FOLLOW_Q
        await pilot.press("up")
        assert box.text == COMPARE_Q
        await pilot.press("down", "down")
        assert box.text == ""
        await pilot.press("a", "ctrl+j", "b")
        assert box.text == "a\nb"


async def test_chat_and_trace_follow_new_content_until_scrolled_up(settings):
    app, _ = recorded_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, COMPARE_Q)
        await ask(pilot, FOLLOW_Q)
        chat = app.main_screen.query_one("#chat-log")
        trace = app.main_screen.query_one("#trace-list")
        for log in (chat, trace):
            assert log.max_scroll_y > 0  # two turns overflow both panes
            await wait_until(pilot, lambda log=log: log.scroll_y == log.max_scroll_y)
        chat.scroll_home(animate=False)  # the reader scrolls up: new content must not pull the view down
        await pilot.pause()
        app.main_screen.query_one("ChatPane").note("a note while reading")
        await pilot.pause()
        assert chat.scroll_y == 0 < chat.max_scroll_y
        await ask(pilot, COMPARE_Q)  # a new turn follows again
        await wait_until(pilot, lambda: chat.scroll_y == chat.max_scroll_y)


async def test_trace_pane_keeps_the_recent_turns_only(settings, monkeypatch):
    monkeypatch.setattr(TracePane, "KEEP_TURNS", 2)
    app, _ = recorded_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        for question in (COMPARE_Q, FOLLOW_Q, "What rank does LoRA use?"):
            await ask(pilot, question)
        headers = [t for t in titles(app) if t.startswith("▶ ")]
        assert len(headers) == 2 and headers[0].startswith("▶ " + FOLLOW_Q[:20])
        assert titles(app)[0] == headers[0]  # nothing of the first turn is left above it


async def test_escape_cancels_running_turn(settings):
    app, agent = recorded_app(settings, GatedAgent)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_until_paused(pilot, app, agent)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.session.busy)
        assert any("turn cancelled" in t for t in titles(app))
        assert app.main_screen.status.activity == "cancelled"


async def test_memory_browser_edit_and_delete(settings):
    from core.stores import open_stores

    settings.memory.enabled = True
    stores = open_stores(settings).open_all()
    first = stores.facts.add("LoRA uses rank 8 by default.")
    second = stores.facts.add("QLoRA uses NF4.")
    app = PaperPilotApp(settings, agent_factory=recorded_factory(RecordedAgent(stores.traces)),
                        stores_factory=lambda s: stores)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        await pilot.press("ctrl+p")
        await pilot.press(*"memory browser")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "MemoryScreen")
        screen = app.screen
        await wait_until(pilot, lambda: len(screen.facts) == 2)
        row = [f.id for f in screen.facts].index(first.id)
        screen.query_one("DataTable").move_cursor(row=row)
        await pilot.press("e")
        editor = screen.query_one("#fact-editor")
        assert editor.value == "LoRA uses rank 8 by default."
        editor.value = "LoRA commonly uses rank 4 or 8."
        await pilot.press("enter")
        await wait_until(pilot, lambda: stores.facts.get(first.id).content == "LoRA commonly uses rank 4 or 8.")
        await wait_until(pilot, lambda: any(f.content.startswith("LoRA commonly") for f in screen.facts))
        row = [f.id for f in screen.facts].index(second.id)
        screen.query_one("DataTable").move_cursor(row=row)
        await pilot.press("d")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        await pilot.press("n")  # declining keeps it
        await pilot.pause()
        assert stores.facts.get(second.id) is not None
        await pilot.press("d")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "ConfirmScreen")
        await pilot.press("y")
        await wait_until(pilot, lambda: stores.facts.get(second.id) is None)
        await wait_until(pilot, lambda: len(screen.facts) == 1)


async def test_session_resume_after_restart_real_agent(settings):
    settings.memory.enabled = False
    hub = StubHub()
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(hub))
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, COMPARE_Q)
        session = app.session.session_id
        assert "QLoRA" in app.main_screen.query(Answer).last().source
    again = PaperPilotApp(settings, session=session, agent_factory=real_agent_factory(hub))
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: len(again.main_screen.query(Question)) == 1, timeout=60)
        assert str(again.main_screen.query_one(Question).render()) == COMPARE_Q
        await ask(pilot, FOLLOW_Q)
        graph = again.main_screen.query_one("#graph-view")
        assert graph.intent.type == "follow_up"
        assert len(again.main_screen.query(Question)) == 2
        assert again.main_screen.status.session == session


async def test_hub_failure_mid_turn_keeps_app_running(settings):
    settings.memory.enabled = False
    hub = StubHub()
    hub.fail = True
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(hub))
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "What does LoRA freeze?")
        steps = titles(app)
        assert any(t.startswith("✗ turn failed") for t in steps)
        assert any("failed during query_knowledge_hub" in str(n.message) for n in app._notifications)
        assert app.main_screen.status.activity == "turn failed"
        hub.fail = False
        await ask(pilot, "What does LoRA freeze?")
        assert "LoRA" in app.main_screen.query(Answer).last().source


async def test_replay_from_trace_store_with_pause(settings):
    from core.stores import open_stores

    stores = open_stores(settings).open_all()
    events = recorded_events("compare")
    for ev in events:
        ev.turn_id = "abc123trace"
    stores.traces.save_turn_sync("abc123trace", "s1", COMPARE_Q, events)
    app = PaperPilotApp(settings, replay="abc123", agent_factory=recorded_factory(RecordedAgent(stores.traces)),
                        stores_factory=lambda s: stores)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.main_screen.turns_ended == 1, timeout=60)
        await settle(pilot)
        assert "| Memory |" in app.main_screen.query_one(Answer).source
        assert any(t.startswith("search [QLoRA]") for t in titles(app))
        assert "replay abc123trace  done" in str(app.main_screen.query_one("#replay-bar").render())
        app.replay("abc123trace", speed=0.05)  # slow enough to pause mid-way
        await wait_until(pilot, lambda: app.session.replaying)
        await pilot.press("space")
        assert app.session.replay_control.paused
        assert app.main_screen.query_one("#chat-input").text == ""  # space went to the replay, not the input
        await pilot.press("plus", "plus", "plus", "plus")  # while paused: 0.05 → 0.25 (floor) → 0.5 → 1 → 2
        assert app.session.replay_control.speed == 2.0
        assert "paused" in str(app.main_screen.query_one("#replay-bar").render())
        await pilot.press("space")
        await wait_until(pilot, lambda: app.main_screen.turns_ended == 2, timeout=60)
        assert "replay abc123trace  done" in str(app.main_screen.query_one("#replay-bar").render())


async def test_keymap_remap_help_and_narrow_layout(settings):
    settings.tui.keymap = {"open_sessions": "f12"}
    app, _ = recorded_app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.main_screen.has_class("narrow")
        await pilot.press("alt+3")
        assert app.main_screen.query_one("#trace").has_class("-shown")
        assert not app.main_screen.query_one("#chat").has_class("-shown")
        await pilot.press("f12")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SessionsScreen")
        await pilot.press("f1")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
        assert app.keys_for("open_sessions") == "f12"
        await pilot.press("escape", "escape")
        await wait_until(pilot, lambda: app.screen is app.main_screen)
        await pilot.press("f10")
        assert app.theme == "paperpilot-high-contrast"
