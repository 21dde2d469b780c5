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


async def test_keymap_refuses_keys_that_cannot_fire_and_keeps_the_defaults(settings):
    settings.tui.keymap = {"open_memory": "ctrl+m", "open_replay": "f6", "open_sessions": "f12"}
    app, _ = recorded_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        warned = "\n".join(notices(app))
        assert "open_memory: ctrl+m is enter" in warned
        assert "open_replay: f6 is taken by" in warned
        assert "open_sessions" not in warned
        assert app.keys_for("open_memory") == "f3" and app.keys_for("open_replay") == "f4"
        await pilot.press("f3")  # the default still works
        await wait_until(pilot, lambda: type(app.screen).__name__ == "MemoryScreen")
        await pilot.press("f12")  # a good remap applies
        await wait_until(pilot, lambda: type(app.screen).__name__ == "SessionsScreen")
        await pilot.press("f1")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HelpScreen")


async def test_help_says_ctrl_j_is_the_newline_that_always_works(settings):
    app, _ = recorded_app(settings)
    async with app.run_test(size=(160, 50)) as pilot:
        box = app.main_screen.query_one("#chat-input")
        await pilot.press("a", "ctrl+j", "b")
        assert box.text == "a\nb"
        await pilot.press("f1")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "HelpScreen")
        from rich.console import Console

        console = Console(width=160, record=True)
        console.print(app.screen.query("Static").last().content)
        text = console.export_text()
        assert "ctrl+j / shift+enter / alt+enter" in text and "ctrl+j in every terminal" in text


async def test_pane_keys_reach_the_app_while_the_input_has_focus(settings):
    app, _ = recorded_app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        box = app.main_screen.query_one("#chat-input")
        assert app.main_screen.has_class("narrow") and app.focused is box
        box.load_text("draft")
        for key, pane in (("f7", "trace"), ("f6", "graph"), ("f8", "memory"), ("f5", "chat"), ("alt+3", "trace")):
            await pilot.press(key)
            assert app.main_screen.query_one(f"#{pane}").has_class("-shown"), key
        assert box.text == "draft" and box.selected_text == ""  # not typed, not select-line/all
        assert app.keys_for("pane_trace") == "f7 / alt+3"
