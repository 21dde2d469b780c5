"""Small modal dialogs: confirm (delete) and a one-line text prompt (add, edit, rename, search)."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from paperpilot_tui.actions import bindings


class ConfirmScreen(ModalScreen[bool]):
    """Yes/no; dismisses with True only on an explicit yes (y or the button)."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS = bindings("dialog") + [("y", "answer(True)", "Yes"), ("n", "answer(False)", "No")]
    HELP_SCOPES = ("dialog",)

    def __init__(self, question: str) -> None:
        super().__init__(classes="dialog-screen")
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.question, classes="dialog-title", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Delete (y)", variant="error", id="yes")
                yield Button("Cancel (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no").focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def action_dismiss_screen(self) -> None:
        self.dismiss(False)


class PromptScreen(ModalScreen[str | None]):
    """One line of text; enter accepts, esc cancels (None)."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS = bindings("dialog")
    HELP_SCOPES = ("dialog",)

    def __init__(self, title: str, value: str = "", placeholder: str = "") -> None:
        super().__init__(classes="dialog-screen")
        self.title_text, self.value, self.placeholder = title, value, placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.title_text, classes="dialog-title", markup=False)
            yield Input(self.value, placeholder=self.placeholder, id="prompt-input")
            yield Static("enter saves · esc cancels", classes="dialog-hint")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
