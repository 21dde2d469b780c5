"""Per-answer actions (issue 25, item 7): answers take focus, ↑/↓ move between them, and the
focused answer is copied, regenerated, edited and resent, or exported with its own sources."""

from __future__ import annotations

import os
import stat

from textual.widgets import Input

from paperpilot_tui.widgets.chat import Answer, ChatPane, Question
from tests.support.recorded import COMPARE_Q, FOLLOW_Q
from tests.tui.conftest import ask, settle, wait_until
from tests.tui.test_flows import recorded_app


def footer_keys(app) -> set[str]:
    return {b.id for (_, b, enabled, _) in app.screen.active_bindings.values() if b.show and enabled}


async def test_answer_actions_act_on_the_focused_answer(settings, tmp_path):
    app, _ = recorded_app(settings)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot, COMPARE_Q)
        await ask(pilot, FOLLOW_Q)
        screen = app.main_screen
        chat = screen.query_one(ChatPane)
        first, second = screen.answers()
        assert first.record.question == COMPARE_Q and second.record.question == FOLLOW_Q
        # from the question box to the latest answer, then up to the first
        await pilot.press("alt+up")
        assert app.focused is second
        assert {"answer_copy", "answer_regenerate", "answer_edit", "answer_export"} <= footer_keys(app)
        await pilot.press("up")
        assert app.focused is first
        # copy: the first answer with ITS sources, as written ([n], not the chat's links)
        await pilot.press("c")
        copied = app.clipboard
        assert COMPARE_Q in copied and first.record.answer.strip() in copied and "#source-" not in copied
        assert f"[{first.record.sources[0].index}]" in copied and first.record.sources[0].chunk_id in copied
        assert FOLLOW_Q not in copied
        # the sources pane follows the focused answer
        assert screen.query_one("#sources").sources == first.record.sources
        # edit and resend: the question in the box, focused, nothing sent
        await pilot.press("e")
        box = screen.query_one("#chat-input")
        assert box.text == COMPARE_Q and app.focused is box and len(chat.record) == 2
        box.clear()
        # regenerate the first answer: the same question again, as a new (third) turn
        first.focus()
        await pilot.pause()
        before = screen.turns_ended
        await pilot.press("r")
        await wait_until(pilot, lambda: screen.turns_ended > before)
        await settle(pilot)
        assert [q.text for q in screen.query(Question)] == [COMPARE_Q, FOLLOW_Q, COMPARE_Q]
        assert len(screen.answers()) == 3
        # ↓ past the latest answer: back to the question box
        screen.answers()[-1].focus()
        await pilot.press("down")
        assert app.focused is box
        # export the second answer: its question and its sources only, a private file
        second.focus()
        await pilot.press("x")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "PromptScreen")
        target = tmp_path / "answer.md"
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await wait_until(pilot, target.exists)
        text = target.read_text(encoding="utf-8")
        assert FOLLOW_Q in text and second.record.answer.strip() in text and COMPARE_Q not in text
        assert stat.S_IMODE(os.stat(target).st_mode) == 0o600


async def test_answer_actions_from_the_palette_use_the_latest_answer(settings):
    app, _ = recorded_app(settings)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot, COMPARE_Q)
        assert app.focused is app.main_screen.query_one("#chat-input")
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "CommandPalette")
        await pilot.press(*"Copy this answer")
        hits = app.screen.query_one("CommandList")
        await wait_until(pilot, lambda: hits.option_count > 0 and hits.highlighted is not None)
        assert "Copy this answer" in str(hits.get_option_at_index(hits.highlighted).prompt)
        await pilot.press("enter")
        await wait_until(pilot, lambda: bool(app.clipboard))
        latest = app.main_screen.query(Answer).last()
        assert latest.record.answer.strip() in app.clipboard
