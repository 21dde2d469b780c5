"""What the user can do with one answer: copy it, regenerate it, edit and resend its question, export it.

Mixed into the main screen. The actions apply to the focused answer (alt+up from the question box,
↑/↓ between answers, a click or tab), or, from the command palette with no answer focused, to the
latest one. Copy and export write the turn as the session export does (:func:`to_markdown`: the
answer with its ``[n]`` and, under it, its own numbered sources), so the two never disagree.
"""

from __future__ import annotations

from typing import Any

from paperpilot_tui.transcript import TurnRecord, to_markdown
from paperpilot_tui.widgets.chat import Answer, ChatPane
from paperpilot_tui.widgets.chat_input import ChatInput


class AnswerActions:
    """The ``answer`` scope's actions, for a :class:`~textual.screen.Screen` holding a :class:`ChatPane`."""

    def answers(self: Any) -> list[Answer]:
        """The answers in the conversation, top to bottom."""
        return list(self.query_one(ChatPane).log_view.query(Answer))

    def focused_answer(self: Any) -> Answer | None:
        """The answer with the focus (or holding the focused code block), else the latest answer."""
        node = self.focused
        while node is not None and not isinstance(node, Answer):
            node = node.parent
        if isinstance(node, Answer):
            return node
        answers = self.answers()
        return answers[-1] if answers else None

    def _turn(self: Any) -> tuple[Answer, TurnRecord] | None:
        """The target answer and its finished turn; None (said in one line) without one."""
        answer = self.focused_answer()
        record = answer.record if answer is not None else None
        if record is None or not record.answer:
            self.notify("No finished answer here yet.", severity="warning", timeout=3)
            return None
        return answer, record

    def _markdown(self: Any, record: TurnRecord) -> str:
        app = self.app
        return to_markdown(app.session.session_id, [record], title=record.question.strip(),
                           secrets=app.settings.secrets())

    def action_focus_answers(self: Any) -> None:
        answers = self.answers()
        if not answers:
            self.notify("No answer yet: ask a question first.", severity="warning", timeout=3)
            return
        self._show("chat")
        answers[-1].focus()

    def action_answer_step(self: Any, delta: int) -> None:
        """↑/↓ between answers; ↓ past the latest goes back to the question box."""
        answers = self.answers()
        current = self.focused_answer()
        if current not in answers:
            return
        at = answers.index(current) + delta
        if at >= len(answers):
            self.query_one(ChatInput).focus()
        elif at >= 0:
            answers[at].focus()

    def action_answer_copy(self: Any) -> None:
        target = self._turn()
        if target is None:
            return
        text = self._markdown(target[1])
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied this answer and its {len(target[1].sources)} source(s) ({len(text)} characters).",
                    timeout=3)

    def action_answer_regenerate(self: Any) -> None:
        """The same question again, as a new turn at the end of the conversation (scoped to the same
        document when an @paper mention scoped it)."""
        target = self._turn()
        if target is not None and self.app.session.ask(target[1].question, target[1].doc_id):
            self.query_one(ChatInput).remember(target[1].question)

    def action_answer_edit(self: Any) -> None:
        """The question back in the box, to change and send (enter) as a new turn."""
        target = self._turn()
        if target is None:
            return
        self._show("chat")
        box = self.query_one(ChatInput)
        box.load_text(target[1].question)
        box.move_cursor(box.document.end)
        box.focus()

    def action_answer_export(self: Any) -> None:
        target = self._turn()
        if target is not None:
            n = self.answers().index(target[0]) + 1
            self.run_worker(self._export_one(target[1], n), group="export", exclusive=True, exit_on_error=False)

    async def _export_one(self: Any, record: TurnRecord, n: int) -> None:
        from paperpilot_tui.screens.export import prompt_and_write

        app = self.app
        path = await prompt_and_write(app, f"Export answer {n} (with its {len(record.sources)} source(s)) to Markdown",
                                      f"{app.session.session_id}-answer-{n}", lambda: self._markdown(record))
        if path is not None:
            app.notify(f"Exported answer {n} to {path}", title="Export", timeout=6)
