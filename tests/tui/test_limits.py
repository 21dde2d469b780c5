"""The app's question box honours ``limits.question_chars``: refused with one toast, nothing lost."""

from __future__ import annotations

from tests.support.recorded import COMPARE_Q
from tests.tui.conftest import ask, wait_until
from tests.tui.test_flows import recorded_app


async def test_a_question_over_the_limit_is_refused_and_stays_in_the_box(settings):
    settings.limits.question_chars = len(COMPARE_Q)
    app, agent = recorded_app(settings, session="s1")
    too_long = COMPARE_Q + " And please explain every detail."
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.agent is not None)
        box = app.main_screen.query_one("#chat-input")
        box.focus()
        box.load_text(too_long)
        await pilot.press("enter")
        await pilot.pause()
        toasts = [str(n.message) for n in app._notifications]
        assert any("limits.question_chars" in t and f"{len(too_long):,} characters" in t for t in toasts), toasts
        assert box.text == too_long and not agent.turns and not app.session.busy
        await ask(pilot, COMPARE_Q)  # a question at the limit goes through
        assert [q for q, _ in agent.turns["s1"]] == [COMPARE_Q]
