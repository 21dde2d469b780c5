"""Sources of the last answer: a list of ``[n]`` citations and the chunk behind the selected one
(title, breadcrumb, page and text)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class SourcesPanel(Horizontal):
    DEFAULT_CSS = """
    SourcesPanel { height: 8; border-top: solid $primary 40%; }
    SourcesPanel > OptionList { width: 26; border: none; height: 1fr; padding: 0; }
    SourcesPanel > VerticalScroll { width: 1fr; padding: 0 1; }
    SourcesPanel.-empty { display: none; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(classes="-empty", **kwargs)
        self.sources: list[Any] = []

    def compose(self) -> ComposeResult:
        yield OptionList(id="source-list")
        with VerticalScroll(id="source-scroll"):
            yield Static("", id="source-detail")

    def show(self, sources: list[Any]) -> None:
        self.sources = list(sources)
        options = self.query_one(OptionList)
        options.clear_options()
        options.add_options([Option(_clip(f"[{s.index}] {s.title or s.chunk_id}", 24), id=str(s.index)) for s in self.sources])
        self.set_class(not self.sources, "-empty")
        if self.sources:
            options.highlighted = 0
            self._detail(self.sources[0])

    def select_index(self, index: int) -> bool:
        """Highlight citation ``[index]``; False if there is no such source."""
        for pos, s in enumerate(self.sources):
            if s.index == index:
                self.query_one(OptionList).highlighted = pos
                self._detail(s)
                return True
        return False

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        if event.option_index is not None and event.option_index < len(self.sources):
            self._detail(self.sources[event.option_index])

    def _detail(self, s: Any) -> None:
        text = Text()
        text.append(f"[{s.index}] {s.title or s.source or s.chunk_id}\n", style="bold")
        where = " · ".join(x for x in (s.breadcrumb, f"p. {s.page}" if s.page is not None else "") if x)
        if where:
            text.append(where + "\n", style="italic")
        text.append(f"{s.chunk_id}\n", style="dim")
        text.append(s.text or "(no text)")
        self.query_one("#source-detail", Static).update(text)


def _clip(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"
