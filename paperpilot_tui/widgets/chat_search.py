"""Find in the conversation: a bar over the chat with a search box and "k of n".

Every case-insensitive occurrence of the text in a question or an answer block is a match; the
blocks with matches are tinted, the current one more strongly, and scrolled to the middle of the
chat. enter or ↓ goes to the next match, ↑ (or shift+enter where the terminal sends it) to the
previous, wrapping around; esc closes the bar and gives the question box its focus back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Static

from paperpilot_tui.actions import bindings

HIT, CURRENT = "-search-hit", "-search-current"


class SearchInput(Input):
    """The search box: its keys (next, previous, close) come from the registry's ``search`` scope."""

    BINDINGS = bindings("search")

    def action_next(self) -> None:
        self.parent.step(1)

    def action_previous(self) -> None:
        self.parent.step(-1)

    def action_close(self) -> None:
        self.parent.close()


class ChatSearch(Horizontal):
    DEFAULT_CSS = """
    ChatSearch { height: auto; display: none; padding: 0 1; background: $boost; }
    ChatSearch.-open { display: block; }
    ChatSearch > SearchInput, ChatSearch > SearchInput:focus { width: 1fr; border: none; height: 1; padding: 0 1; }
    ChatSearch > #chat-search-count { width: auto; min-width: 12; padding: 0 1; color: $text-muted; }
    """

    class Closed(Message):
        """The bar was closed (the chat gives the focus back to the question box)."""

    def __init__(self, units: Callable[[], list[tuple[Any, str]]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._units = units
        self.matches: list[Any] = []  # one widget per occurrence, top to bottom
        self.current = -1

    def compose(self) -> ComposeResult:
        yield SearchInput(placeholder="search the conversation · enter/↓ next · ↑ previous · esc close",
                          id="chat-search-input")
        yield Static("", id="chat-search-count")

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    @property
    def term(self) -> str:
        return self.query_one(SearchInput).value

    def open(self) -> None:
        self.add_class("-open")
        box = self.query_one(SearchInput)
        box.focus()
        box.select_all()
        self.search(box.value)

    def close(self) -> None:
        self._mark([])
        self.matches, self.current = [], -1
        self.remove_class("-open")
        self.post_message(self.Closed())

    @on(Input.Changed, "#chat-search-input")
    def _changed(self, event: Input.Changed) -> None:
        self.search(event.value)

    @on(Input.Submitted, "#chat-search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.step(1)

    def search(self, term: str) -> None:
        """Find every occurrence of ``term``; the current match is the first one."""
        needle = term.strip().casefold()
        matches: list[Any] = []
        if needle:
            for widget, text in self._units():
                matches += [widget] * text.casefold().count(needle)
        self.matches = matches
        self._mark(matches)
        self.current = -1
        self.step(1)

    def step(self, delta: int) -> None:
        """Go to the next (1) or previous (-1) match, wrapping around, and scroll it into view."""
        if not self.matches:
            self.current = -1
            self._count("no matches" if self.term.strip() else "")
            return
        if self.current < 0:
            self.current = 0 if delta > 0 else len(self.matches) - 1
        else:
            self.current = (self.current + delta) % len(self.matches)
        widget = self.matches[self.current]
        for w in set(self.matches):
            w.set_class(w is widget, CURRENT)
        log = self.parent.log_view
        log.release_anchor()
        log.scroll_to_center(widget, animate=False, immediate=True)
        self._count(f"{self.current + 1} of {len(self.matches)}")

    def _count(self, text: str) -> None:
        self.query_one("#chat-search-count", Static).update(text)

    def _mark(self, matches: list[Any]) -> None:
        hits = set(matches)
        for widget in self.parent.log_view.query(f".{HIT}"):
            if widget not in hits:
                widget.remove_class(HIT, CURRENT)
        for widget in hits:
            widget.add_class(HIT)
