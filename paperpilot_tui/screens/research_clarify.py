"""The clarifying questions of a deep-research run, as a form: one input per question.

Dismisses with the answers (question id → text, empty answers left out; ``{}`` when the user
skips), or None when the user leaves with esc (the run keeps waiting; "Deep research: continue"
in the palette reopens the form).
"""

from __future__ import annotations

from textual import on
from textual.actions import SkipAction
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Footer, Input, Static

from core.research.types import ClarifyingQuestion
from paperpilot_tui.actions import bindings


class ClarifyScreen(ModalScreen[dict[int, str] | None]):
    CSS_PATH = ["dialogs.tcss", "research.tcss"]
    BINDINGS = bindings("clarify", "dialog")
    HELP_SCOPES = ("clarify", "dialog", "app")
    HELP_TITLE = "Deep research · clarifying questions"

    def __init__(self, topic: str, questions: list[ClarifyingQuestion], answers: dict[int, str] | None = None) -> None:
        super().__init__(classes="dialog-screen")
        self.topic, self.questions = topic, questions
        self.answers = dict(answers or {})  # what the user typed before leaving the form

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog", classes="research-form"):
            yield Static(f"Deep research: {self.topic}", classes="dialog-title", markup=False)
            if not self.questions:
                yield Static("The agent has no question for you: send to get the outline.", markup=False)
            for n, q in enumerate(self.questions, 1):
                yield Static(f"{n}. {q.question}", classes="question", markup=False)
                yield Input(self.answers.get(q.id, ""), placeholder=f"{q.purpose} · empty: no preference",
                            id=f"answer-{q.id}", classes="answer")
            yield Static(f"Answer what matters to you; the outline comes next.  enter next question · "
                         f"{self._keys('research_send_answers')} send · {self._keys('research_skip')} skip all · "
                         f"esc later", classes="dialog-hint", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Skip the questions", id="skip")
                yield Button("Send the answers", variant="primary", id="send")
        yield Footer()

    def _keys(self, action_id: str) -> str:
        keys_for = getattr(self.app, "keys_for", None)
        return keys_for(action_id).split(" / ")[0] if keys_for else ""

    def on_mount(self) -> None:
        blink = getattr(self.app, "blink", True)
        for box in self.query(Input):
            box.cursor_blink = blink
        first = self.query(Input).first() if self.query(Input) else self.query_one("#send")
        first.focus()

    def collect(self) -> dict[int, str]:
        """The non-empty answers, by question id."""
        out = {}
        for q in self.questions:
            text = self.query_one(f"#answer-{q.id}", Input).value.strip()
            if text:
                out[q.id] = text
        return out

    def action_next_answer(self) -> None:
        """Enter in an answer: the next one takes the focus, the last one sends the answers. A
        priority binding, so the focus moves before the keys that came with enter are delivered
        (tmux send-keys, a paste, a fast typist); on a button, enter presses it. Sending waits
        for the keys already delivered to the box, so its answer is complete."""
        boxes = list(self.query(Input))
        if self.focused not in boxes:
            raise SkipAction()
        at = boxes.index(self.focused)
        if at + 1 < len(boxes):
            self.set_focus(boxes[at + 1])
        else:
            boxes[at].call_later(self.action_send)

    @on(Button.Pressed, "#send")
    def action_send(self) -> None:
        self.dismiss(self.collect())

    @on(Button.Pressed, "#skip")
    def action_skip(self) -> None:
        self.dismiss({})

    def action_dismiss_screen(self) -> None:
        self.answers = self.collect()
        self.dismiss(None)
