"""F1 help: the keys of the screen you are on (from the action registry, with user remaps)."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

from paperpilot_tui.actions import SCOPES, bindings, in_scope


class HelpScreen(ModalScreen):
    CSS_PATH = "dialogs.tcss"
    BINDINGS = bindings("dialog")
    HELP_SCOPES = ("dialog", "app")

    def __init__(self, under: Screen) -> None:
        super().__init__(classes="dialog-screen")
        self.scopes = getattr(under, "HELP_SCOPES", ("app",))
        self.title_text = getattr(under, "HELP_TITLE", "PaperPilot")

    def compose(self) -> ComposeResult:
        table = Table(box=None, expand=True, padding=(0, 1))
        table.add_column("keys", style="bold", no_wrap=True)
        table.add_column("action")
        table.add_column("id", style="dim", no_wrap=True)
        for scope in self.scopes:
            table.add_row("", f"[b u]{SCOPES[scope]}[/]", "")
            for a in in_scope(scope):
                table.add_row(self.app.keys_for(a.id), a.description, a.id)
        with VerticalScroll(id="dialog", classes="help"):
            yield Static(f"[b]Help — {self.title_text}[/b]   esc closes · remap keys with tui.keymap "
                         "{action id: keys} in settings", classes="dialog-title")
            yield Static(table)

    def action_dismiss_screen(self) -> None:
        self.dismiss()
