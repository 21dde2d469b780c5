"""The question input: multi-line, with history and completion.

enter sends; shift+enter, ctrl+j or alt+enter insert a new line (ctrl+enter is never required:
many terminals and tmux swallow it); up on the first line / down on the last line walk the
history. Keys come from the action registry, so users can remap them. A ``/`` command or an ``@``
mention opens the completion menu above the box (:class:`~paperpilot_tui.widgets.slash_menu.SlashMenu`):
tab takes the highlighted entry, up/down choose, and enter takes it too while a command name or a
title is still being typed.
"""

from __future__ import annotations

from textual import on
from textual.message import Message
from textual.widgets import TextArea

from textual import events

from paperpilot_tui.actions import bindings, in_scope
from paperpilot_tui.slash import Candidate
from paperpilot_tui.widgets.slash_menu import SlashMenu


class ChatInput(TextArea):
    BINDINGS = bindings("input")
    DEFAULT_CSS = """
    ChatInput { height: 5; border: round $primary 50%; }
    ChatInput:focus { border: round $accent; }
    """

    class Submitted(Message):
        """enter: the user offers ``text``; the box is cleared only if it is accepted."""

        def __init__(self, text: str) -> None:
            super().__init__()
            self.text = text

    def __init__(self, **kwargs) -> None:
        super().__init__(soft_wrap=True, show_line_numbers=False, tab_behavior="focus", **kwargs)
        self.past: list[str] = []
        self._pos = 0  # index into history; len(history) = the draft being typed
        self._draft = ""
        self.menu: SlashMenu | None = None
        self._recalled = False  # the text was just loaded from the history: nothing to complete

    def on_mount(self) -> None:
        self.cursor_blink = getattr(self.app, "blink", True)
        if self.parent is not None:
            self.menu = SlashMenu(id="slash-menu")
            self.parent.mount(self.menu, before=self)

    def _before_cursor(self) -> str:
        return self.document.get_text_range((0, 0), self.cursor_location)

    @on(TextArea.Changed)
    def _offer(self) -> None:
        """Show what completes the text before the cursor (nothing: the menu closes)."""
        slash = getattr(self.app, "slash", None)
        if self.menu is None or slash is None:
            return
        if self._recalled:  # ↑/↓ through the history keep driving the history, not a menu
            self._recalled = False
            self.menu.close()
            return
        before = self._before_cursor()
        found = slash.complete(before)
        if len(found) == 1 and before[found[0].start:found[0].end] == found[0].insert.rstrip():
            found = []  # already typed out
        self.menu.show(found)

    def close_menu(self) -> bool:
        """Close the completion menu; False when it was not open."""
        if self.menu is None or not self.menu.is_open:
            return False
        self.menu.close()
        return True

    def _take(self, c: Candidate | None) -> None:
        if c is None:
            return
        before = self._before_cursor()

        def at(offset: int) -> tuple[int, int]:
            head = before[:offset]
            return head.count("\n"), len(head) - (head.rfind("\n") + 1)

        self.replace(c.insert, at(c.start), at(c.end))

    def _menu_key(self, key: str) -> bool:
        """Keys the open menu takes: tab, up/down, and enter while a name is still being typed."""
        menu = self.menu
        if menu is None or not menu.is_open:
            return False
        chosen = menu.chosen()
        typed = self._before_cursor()[chosen.start:] if chosen is not None else ""
        if key in ("up", "down"):
            menu.move(-1 if key == "up" else 1)
        elif key == "tab" or (key == "enter" and (typed.startswith("@") or (typed.startswith("/") and " " not in typed))):
            self._take(chosen)
        else:
            return False
        return True

    def _key_actions(self) -> dict[str, str]:
        """key → action for the input's registry actions, honouring the user's keymap."""
        keymap = getattr(self.app, "_keymap", {})
        out = {}
        for a in in_scope("input"):
            for key in keymap.get(a.id, a.keys).split(","):
                out[key.strip()] = a.action
        return out

    async def _on_key(self, event: events.Key) -> None:
        """Handle send/newline/history here, in key order: a priority binding would run before
        earlier keystrokes queued on this widget were inserted (fast typing, tmux send-keys)."""
        if self._menu_key(event.key):
            event.prevent_default()
            event.stop()
            return
        action = self._key_actions().get(event.key)
        if action is not None:
            event.prevent_default()
            event.stop()
            await self.run_action(action)

    def action_send(self) -> None:
        """Offer the question; the box keeps it until the screen accepts it (a turn may be running)."""
        text = self.text.strip()
        if text:
            if self.menu is not None:
                self.menu.close()
            self.post_message(self.Submitted(text))

    def accept(self, text: str) -> None:
        """The question was sent: remember it in the history and clear the box (unless it was edited since)."""
        self.remember(text)
        self._draft = ""
        if self.text.strip() == text:
            self.clear()

    def remember(self, *questions: str) -> None:
        """Add questions to the ↑ history (also used to fill it from a resumed session)."""
        for text in questions:
            if not self.past or self.past[-1] != text:
                self.past.append(text)
        self._pos = len(self.past)

    def action_newline(self) -> None:
        self.insert("\n")

    def action_history(self, step: int) -> None:
        row = self.cursor_location[0]
        at_edge = row == 0 if step < 0 else row == self.document.line_count - 1
        if not at_edge or not self.past:
            (self.action_cursor_up if step < 0 else self.action_cursor_down)()
            return
        if self._pos == len(self.past):
            self._draft = self.text
        pos = min(max(self._pos + step, 0), len(self.past))
        if pos == self._pos:
            return
        self._pos = pos
        self._recalled = True
        self.load_text(self.past[pos] if pos < len(self.past) else self._draft)
        self.move_cursor(self.document.end)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        """During a replay, space and +/- drive the player instead of typing."""
        if getattr(self.screen, "replaying", False) and key in ("space", "plus", "minus", "equals_sign"):
            return False
        return super().check_consume_key(key, character)
