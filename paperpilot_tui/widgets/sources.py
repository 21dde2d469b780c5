"""Sources of the last answer: a list of ``[n]`` citations and the chunk behind the selected one
(title, its authors, year, venue, DOI/arXiv id and citation key where known, breadcrumb,
page and text). Each citation shows its paper and, under it, what tells two
chunks of one paper apart: the section, the page, or the chunk's position. A source from the web
fallback shows its URL as a link (an OSC 8 hyperlink: ctrl/cmd+click in most terminals)."""

from __future__ import annotations

from typing import Any

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option


class SourcesPanel(Horizontal):
    DEFAULT_CSS = """
    SourcesPanel { height: 8; border-top: solid $primary 40%; }
    SourcesPanel > OptionList { width: 40%; min-width: 22; max-width: 40; border: none; height: 1fr; padding: 0;
                               text-wrap: nowrap; text-overflow: ellipsis; }
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
        options.add_options([Option(source_label(s), id=str(s.index)) for s in self.sources])
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
        if cite := citation_line(getattr(s, "meta", None)):
            text.append(cite + "\n")
        if url := getattr(s, "url", None):
            text.append(url, style=Style(link=url, underline=True))
            text.append("\n")
        text.append(f"{s.chunk_id}\n", style="dim")
        text.append(s.text or "(no text)")
        self.query_one("#source-detail", Static).update(text)


def citation_line(meta: Any) -> str:
    """The document's bibliographic line: "Vaswani, Shazeer et al. 2017 · NeurIPS · doi:… · @key"
    ("" without metadata)."""
    if meta is None:
        return ""
    names = [a.split()[-1] for a in meta.authors if a.split()]
    who = ", ".join(names[:2]) + (" et al." if len(names) > 2 else "")
    head = " ".join(x for x in (who, str(meta.year or "")) if x)
    parts = (head, meta.venue or "", f"doi:{meta.doi}" if meta.doi else "",
             f"arXiv:{meta.arxiv_id}" if meta.arxiv_id else "", f"@{meta.citation_key}" if meta.citation_key else "")
    return " · ".join(p for p in parts if p)


def where_in_paper(s: Any) -> str:
    """The chunk's position, section (last breadcrumb part) and page: what sets a chunk apart from
    the paper's other chunks (the position first: it is short and always differs)."""
    section = s.breadcrumb.split(" > ")[-1].strip() if s.breadcrumb else ""
    page = f"p. {s.page}" if s.page is not None else ""
    tail = s.chunk_id.rsplit("_", 1)[-1] if "_" in s.chunk_id else ""
    position = f"#{int(tail)}" if tail.isdigit() else ""
    return " ".join(x for x in (position, " · ".join(x for x in (section, page) if x)) if x) or s.chunk_id


def source_label(s: Any) -> Text:
    """Two lines: ``[n] title`` and, dimmed, where in the paper the chunk is."""
    text = Text(no_wrap=True, overflow="ellipsis")
    text.append(f"[{s.index}] ", style="bold")
    text.append(s.title or s.doc_id or s.chunk_id)
    if url := getattr(s, "url", None):
        text.append("\n  ")
        text.append(url, style=Style(link=url, dim=True))
    else:
        text.append(f"\n  {where_in_paper(s)}", style="dim")
    return text
