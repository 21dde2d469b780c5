"""Defect 10 of the app issue: an offline answer builds up on screen sentence by sentence."""

from __future__ import annotations

from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.chat import Answer
from tests.tui.conftest import real_agent_factory, settle, wait_until
from tests.tui.stub_hub import StubHub


async def test_the_offline_answer_is_shown_in_parts_before_the_turn_ends(settings):
    settings.memory.enabled = False
    settings.tui.answer_pace = 0.6  # well above a table append under load
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.agent is not None)
        box = app.main_screen.query_one("#chat-input")
        box.load_text("How does QLoRA compare with LoRA in memory and speed?")
        await pilot.press("enter")
        seen: list[str] = []

        def shown() -> bool:
            answers = app.main_screen.query(Answer)
            if answers and app.session.busy:
                seen.append(answers.last().source)
            return app.main_screen.turns_ended == 1

        await wait_until(pilot, shown, timeout=60, step=0.05)
        await settle(pilot)
        final = app.main_screen.query(Answer).last().source
        partial = {s for s in seen if s.strip() and len(s) < len(final)}
        assert len(partial) >= 2, seen  # at least two distinct partial states: it grew while the turn ran
