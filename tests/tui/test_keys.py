"""Pilot tests for keys and the question input: sending while busy, replay keys, pane keys, keymaps."""

from __future__ import annotations

from tests.tui.conftest import wait_until
from tests.tui.test_flows import GatedAgent, ask_until_paused, recorded_app


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_enter_during_a_turn_keeps_the_typed_question(settings):
    app, agent = recorded_app(settings, GatedAgent)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_until_paused(pilot, app, agent)
        box = app.main_screen.query_one("#chat-input")
        box.load_text("and which one is faster?")
        await pilot.press("enter")
        await pilot.pause()
        assert box.text == "and which one is faster?"
        assert any("turn is running" in n for n in notices(app))
        agent.gate.set()
        await wait_until(pilot, lambda: app.main_screen.turns_ended == 1)
        await pilot.press("enter")  # now it goes
        await wait_until(pilot, lambda: box.text == "")
        assert box.past[-1] == "and which one is faster?"


async def test_replay_of_an_unknown_trace_leaves_the_input_typing(settings):
    app, _ = recorded_app(settings, replay="nosuchtrace")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: any("no trace with id nosuchtrace" in n for n in notices(app)))
        await wait_until(pilot, lambda: not app.session.busy)
        box = app.main_screen.query_one("#chat-input")
        box.focus()
        await pilot.press("a", "space", "plus", "space", "minus", "equals_sign")
        assert box.text == "a + -="
        assert not app.main_screen.query_one("#replay-bar").has_class("-on")
