"""Focus survives every pane switch: after F6..F8 and back with F5, what the user types is the next
question (issue 25, items 5 and 9: at 80×24 the question box lost focus and typed text was dropped)."""

from __future__ import annotations

import pytest

from paperpilot_tui.widgets.chat import Question
from tests.tui.conftest import settle, wait_until
from tests.tui.test_flows import recorded_app

SIZES = [(80, 24), (100, 30), (140, 45), (200, 60)]
SWITCHES = ("f6", "f7", "f8")  # graph, trace, memory; then f5 back to the chat


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_typed_question_is_sent_after_each_tab_switch(settings, size):
    app, _ = recorded_app(settings)
    async with app.run_test(size=size) as pilot:
        await wait_until(pilot, lambda: app.session.agent is not None)
        screen = app.main_screen
        for n, key in enumerate(SWITCHES):
            await pilot.press(key, "f5")
            await pilot.pause()
            question = f"and q{n}?"  # typed key by key, as a user does: nothing may be dropped
            before = screen.turns_ended
            await pilot.press(*question, "enter")
            await wait_until(pilot, lambda before=before: screen.turns_ended > before, timeout=60)
            await settle(pilot)
            asked = [q.text for q in screen.query(Question)]
            assert asked[-1] == question, (size, key, asked)
            assert screen.query_one("#chat-input").text == ""


async def test_footer_at_80x24_shows_the_keys_that_matter_most_whole(settings):
    """The footer once ended at "f2 Sessio▏": compact at narrow sizes, short labels, so send, cancel,
    help, sessions, quit and the palette are each shown whole, none under another."""
    app, _ = recorded_app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.session.agent is not None)
        await pilot.pause()
        footer = app.main_screen.query_one("Footer")
        keys = {k.description: k.region for k in footer.query("FooterKey")}
        palette = keys["Command palette"]
        assert palette.right <= 80
        for name in ("Send", "Cancel", "Help", "Sessions", "Quit"):
            region = keys[name]
            assert region.right <= palette.x and region.width >= len(name) + 2, (name, region, palette)


def _cut_keys(footer) -> list[tuple[str, object]]:
    """The footer keys shown but not whole: running under the palette's key or past the edge."""
    keys = [k for k in footer.query("FooterKey") if k.display]
    palette = [k for k in keys if k.has_class("-command-palette")]
    limit = palette[0].region.x if palette else footer.region.right
    return [(k.description, k.region) for k in keys
            if not k.has_class("-command-palette") and k.region.right > limit]


async def test_no_footer_key_is_cut_at_80x24(settings):
    """At 80×24 the footer ended "f2 Sessions f3 ▏": every key it shows is whole, and the keys that
    matter most are among them; with an answer focused its actions replace the least important."""
    from tests.tui.conftest import ask

    app, _ = recorded_app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.session.agent is not None)
        await pilot.pause()
        footer = app.main_screen.query_one("Footer")
        shown = [k.description for k in footer.query("FooterKey") if k.display]
        assert _cut_keys(footer) == [], shown
        assert {"Send", "Cancel", "Quit", "Help", "Sessions", "Command palette"} <= set(shown), shown
        await ask(pilot, "What is LoRA?")
        await pilot.press("alt+up")
        await wait_until(pilot, lambda: any(k.description == "Copy" for k in footer.query("FooterKey")))
        await pilot.pause(0.2)
        shown = [k.description for k in footer.query("FooterKey") if k.display]
        assert _cut_keys(footer) == [], shown
        assert {"Copy", "Regenerate"} <= set(shown), shown


async def test_the_answer_gets_most_of_the_chat_at_80x24(settings):
    """Found in tmux at 80×24: the sources list (7 rows) and the question box (5) left about 5 rows
    for the answer. Narrow, they take 4 and 3 rows; focused, the sources list grows to be read."""
    from tests.support.recorded import COMPARE_Q
    from tests.tui.conftest import ask

    app, _ = recorded_app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, COMPARE_Q)
        screen = app.main_screen
        log, sources = screen.query_one("#chat-log"), screen.query_one("SourcesPanel")
        assert sources.display and sources.region.height >= 4  # two sources still shown
        assert log.region.height >= 10, (log.region, sources.region, screen.query_one("#chat-input").region)
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert sources.has_focus_within and sources.region.height >= 8
        assert log.region.height >= 4
