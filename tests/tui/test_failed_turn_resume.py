"""A turn that failed shows as "✗ failed: <line>" when its session is resumed in the app (issue 26).

The real agent (graph, offline brain, checkpointer) on the stub hub: the first turn fails because the
hub fails, the second is answered; a new app resuming the session shows both, the failed one with its
line, and the agent's record of the session has the failure where the answer would be.
"""

from __future__ import annotations

from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.chat import ChatPane, Question
from tests.tui.conftest import ask, real_agent_factory, settings, wait_until  # noqa: F401 - fixture
from tests.tui.stub_hub import StubHub


async def test_a_resumed_session_shows_its_failed_turn(settings):  # noqa: F811
    settings.memory.enabled = False
    hub = StubHub()
    app = PaperPilotApp(settings, session="S", agent_factory=real_agent_factory(hub))
    async with app.run_test(size=(120, 40)) as pilot:
        hub.fail = True
        await ask(pilot, "What does LoRA freeze?")
        hub.fail = False
        await ask(pilot, "What is QLoRA?")
        turns = await app.session.agent.history("S")
    assert [(t.question, t.failed) for t in turns] == [("What does LoRA freeze?", True), ("What is QLoRA?", False)]
    error = turns[0].error
    assert error.startswith("MCP server hub (stub) failed"), error

    again = PaperPilotApp(settings, session="S", agent_factory=real_agent_factory(StubHub()))
    async with again.run_test(size=(120, 40)) as pilot:
        screen = again.main_screen
        await wait_until(pilot, lambda: len(screen.query(Question)) == 2, timeout=60)
        record = screen.query_one(ChatPane).record
        assert record[0].question == "What does LoRA freeze?" and record[0].answer == f"✗ failed: {error}", record
