"""The app, asked a question in a session another process is running a turn in, says it waits."""

from __future__ import annotations

from core.memory.turnlock import TurnLock
from paperpilot_tui.app import PaperPilotApp
from tests.tui.conftest import real_agent_factory, settings, wait_until  # noqa: F401 - fixture
from tests.tui.stub_hub import StubHub


async def test_the_app_shows_it_waits_for_a_busy_session_then_answers(settings):  # noqa: F811
    settings.memory.enabled = False
    holder = TurnLock(settings.paths.resolve("locks"), "S")  # "another window": the lock of session S
    assert holder.try_acquire()
    app = PaperPilotApp(settings, session="S", agent_factory=real_agent_factory(StubHub()))
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(pilot, lambda: app.session.agent is not None, timeout=60)
            box = app.main_screen.query_one("#chat-input")
            box.focus()
            box.load_text("What does LoRA freeze?")
            await pilot.press("enter")
            await wait_until(pilot, lambda: app.main_screen.status.activity == "waiting for the session")
            assert any("waiting for session S" in str(n.message) for n in app._notifications)
            assert app.main_screen.turns_ended == 0
            holder.release()
            await wait_until(pilot, lambda: app.main_screen.turns_ended == 1, timeout=60)
            assert app.main_screen.status.activity == "ready"
            assert [t.question for t in await app.session.agent.history("S")] == ["What does LoRA freeze?"]
    finally:
        holder.release()
