"""The main screen's layout: side by side, or one pane at a time (tabs) when narrow; the
conversations sidebar when wide; and where the focus goes when the pane shown changes.

From 100×24 up all four panes are visible; below, one at a time (F5–F8). From
:data:`~paperpilot_tui.widgets.sidebar.WIDE` columns the sidebar is shown unless the user hid it
(alt+b), and below it is hidden unless the user showed it. A pane that is hidden takes the focus with
it, so switching panes moves the focus to the pane shown, and back in the chat to what had it there:
typed text always lands somewhere visible.
"""

from __future__ import annotations

from typing import Any

from textual.widgets import Footer, Tabs

from paperpilot_tui.widgets.chat_input import ChatInput
from paperpilot_tui.widgets.sidebar import WIDE, ConversationsSidebar

PANES = ("chat", "graph", "trace", "memory")
NARROW_WIDTH, NARROW_HEIGHT = 100, 24


class PaneLayout:
    """Mixed into the main screen (which composes the panes, the tabs, the sidebar and the footer)."""

    # state on the screen: ``shown`` (the pane shown when narrow), ``sidebar_choice`` (None: by the width)

    def on_resize(self: Any, event: Any) -> None:
        self._layout(event.size.width, event.size.height)

    def _layout(self: Any, width: int, height: int) -> None:
        narrow = width < NARROW_WIDTH or height < NARROW_HEIGHT
        self.set_class(narrow, "narrow")
        self.query_one(Footer).compact = narrow  # at 80 columns the keys that matter most fit: send … sessions, quit
        wanted = self.sidebar_choice if self.sidebar_choice is not None else width >= WIDE
        self.set_class(wanted and not narrow, "-sidebar")
        self._show(self.shown)

    def _show(self: Any, pane: str) -> None:
        previous, narrow = self.shown, self.has_class("narrow")
        self.shown = pane
        for p in PANES:
            self.query_one(f"#{p}").set_class(p == pane, "-shown")
        self.set_class(pane == "chat", "-show-chat")
        tabs = self.query_one(Tabs)
        if tabs.active != f"tab-{pane}":
            tabs.active = f"tab-{pane}"
        if pane != previous:  # focus follows the pane shown, and comes back to where it was in the chat
            if previous == "chat":
                self._chat_focus = self.focused
            if pane == "chat":
                self._refocus_chat()
            elif narrow:  # keys scroll the pane shown, not the hidden chat
                self._focus_pane(pane)

    def _focus_pane(self: Any, pane: str) -> None:
        shown = self.query_one(f"#{pane}")
        if not shown.has_focus_within:
            target = shown if shown.focusable else next((w for w in shown.query("*") if w.focusable), None)
            if target is not None:
                target.focus()

    def _refocus_chat(self: Any) -> None:
        """The question box, or what had the focus when the chat was left (still there, focusable)."""
        before = getattr(self, "_chat_focus", None)
        if before is not None and before.is_attached and before.focusable:
            before.focus()
        else:
            self.query_one(ChatInput).focus()

    def action_pane(self: Any, name: str) -> None:
        self._show(name)

    def action_toggle_sidebar(self: Any) -> None:
        self.sidebar_choice = not self.has_class("-sidebar")
        self._layout(self.size.width, self.size.height)
        if not self.has_class("-sidebar") and self.query_one(ConversationsSidebar).has_focus_within:
            self.query_one(ChatInput).focus()
