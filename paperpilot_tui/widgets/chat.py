"""Chat pane: the conversation, the streaming answer, its sources and the question input.

Tokens are buffered and written to a ``MarkdownStream`` every 80 ms (one widget update per flush,
never per token); when the turn ends the answer gets one final ``update()`` with the formatted
text, whose ``[n]`` citations become links to the sources list. The pane keeps one
:class:`~paperpilot_tui.transcript.TurnRecord` per turn (question, answer as written, numbered
sources) for copy and export; code blocks in answers take focus, so one can be copied alone.
An empty conversation shows a hint of what to ask and the keys.
"""

from __future__ import annotations

import re
from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Markdown, Static
from textual.widgets._markdown import MarkdownBlock, MarkdownFence, MarkdownTable

from core.events import (
    Event, ResearchStarted, RetryStarted, ReviewFinished, TokenDelta, TurnFailed, TurnFinished, TurnStarted,
)
from core.tracing.describe import forced_pass
from core.text import LIBRARY_LISTING
from paperpilot_tui.actions import bindings
from paperpilot_tui.hub_collections import BUNDLED_EXAMPLE
from paperpilot_tui.transcript import TurnRecord
from paperpilot_tui.widgets.answer_table import AnswerTable
from paperpilot_tui.widgets.chat_input import ChatInput
from paperpilot_tui.widgets.chat_search import ChatSearch
from paperpilot_tui.widgets.sources import SourcesPanel

FLUSH_S = 0.08
LINEAGE_HINT = "alt+l: the lineage of this topic in the library (its papers by year, with cite arrows)"
_CITE = re.compile(r"\[(\d+)\](?!\()")
KEYS_HINT = "enter sends · ctrl+j new line · ↑/↓ history · esc cancels · F1 help"
HINT = f"Ask about the papers in your knowledge hub, e.g. “{BUNDLED_EXAMPLE}”. {KEYS_HINT}"


def hint_for(example: str | None, collection: str = "") -> str:
    """The first screen's line: a question to try (one about this collection's own papers once the
    hub has listed them), or, for a collection that holds no documents, how to add some."""
    if example is None and collection:
        return (f"The collection {collection!r} holds no documents yet: /ingest PATH (a PDF, a folder, a .bib) "
                f"adds some, or /collection NAME switches. {KEYS_HINT}")
    return f"Ask about the papers in your knowledge hub, e.g. “{example or BUNDLED_EXAMPLE}”. {KEYS_HINT}"


def link_citations(answer: str) -> str:
    """``[3]`` → a Markdown link ``[[3]](#source-3)`` that the app resolves to the sources list."""
    return _CITE.sub(lambda m: f"[\\[{m.group(1)}\\]](#source-{m.group(1)})", answer)


class Question(Static):
    DEFAULT_CSS = """
    Question { margin: 1 0 0 0; padding: 0 1; background: $primary 15%; color: $text; text-style: bold; }
    """

    def __init__(self, text: str, **kwargs: Any) -> None:
        super().__init__(text, markup=False, **kwargs)
        self.text = text


class CodeBlock(MarkdownFence, can_focus=True):
    """A code block in an answer: focusable (tab, click), so the copy key takes just its code."""

    DEFAULT_CSS = """
    CodeBlock:focus { background-tint: $accent 25%; }
    """


class Answer(Markdown, can_focus=True):
    """One answer, holding its own numbered sources: its ``[n]`` opens its source n, whichever turn
    is the latest (an earlier answer's [2] is not the latest answer's [2]). It takes focus (click,
    tab, or the answers key), and then its own actions apply (:mod:`paperpilot_tui.answer_actions`)."""

    DEFAULT_CSS = """
    Answer { margin: 0 0 0 0; padding: 0 1; background: transparent; }
    Answer:focus { background-tint: $accent 12%; }
    """
    BLOCKS = {**Markdown.BLOCKS, "fence": CodeBlock, "code_block": CodeBlock, "table_open": AnswerTable}
    BINDINGS = bindings("answer")

    class Chosen(Message):
        """The user clicked this answer: the sources pane shows its sources."""

        def __init__(self, answer: Answer) -> None:
            super().__init__()
            self.answer = answer

    def __init__(self, *args: Any, sources: list[Any] | None = None, record: TurnRecord | None = None,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.sources: list[Any] = list(sources or [])
        self.record = record  # the turn it answers (question, answer as written, sources)

    def on_focus(self) -> None:
        self.scroll_visible()
        self.post_message(self.Chosen(self))

    def on_click(self) -> None:
        self.post_message(self.Chosen(self))


class ChatNote(Static):
    DEFAULT_CSS = """
    ChatNote { padding: 0 1; color: $text-muted; }
    ChatNote.-error { color: $error; text-style: bold; }
    ChatNote.-warning { color: $warning; }
    """


class ChatLog(VerticalScroll):
    """Anchored: follows new content until the user scrolls up; a new turn re-anchors it."""

    DEFAULT_CSS = """
    ChatLog { layout: stream; height: 1fr; scrollbar-size-vertical: 1; }
    ChatLog .-search-hit { background-tint: $warning 20%; }
    ChatLog .-search-current { background-tint: $warning 50%; text-style: bold; }
    """

    def on_mount(self) -> None:
        self.anchor()


class ChatPane(Vertical):
    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._answer: Answer | None = None
        self._stream: Any = None
        self._buffer: list[str] = []
        self._timer: Any = None
        self.record: list[TurnRecord] = []
        self.example: tuple[str | None, str] | None = None  # the hub's suggestion for the active collection

    def compose(self) -> ComposeResult:
        yield ChatSearch(self.search_units, id="chat-search")
        with ChatLog(id="chat-log"):
            yield ChatNote(self._hint(), classes="chat-hint", markup=False)
        yield SourcesPanel(id="sources")
        yield ChatInput(id="chat-input")

    @property
    def log_view(self) -> ChatLog:
        return self.query_one(ChatLog)

    def _hint(self) -> str:
        line = hint_for(*self.example) if self.example else HINT
        keys = getattr(self.app, "keys_for", None)
        if keys is None:
            return line
        first = {a: keys(a).split(" / ")[0] for a in ("search_chat", "copy_answer", "export_session")}
        return (f"{line} · {first['search_chat']} search · {first['copy_answer']} copy · "
                f"{first['export_session']} export")

    def suggest(self, example: str | None, collection: str) -> None:
        """Suggest ``example`` (None: the collection is empty) on the first screen, if it still shows."""
        self.example = (example, collection)
        for hint in self.log_view.query(".chat-hint"):
            hint.update(self._hint())

    def clear(self) -> None:
        """An empty conversation: the hint again (a new session; until a resumed one has loaded)."""
        self._end_stream()
        search = self.query_one(ChatSearch)
        if search.is_open:
            search.close()
        self.record = []
        self.log_view.remove_children()
        self.log_view.mount(ChatNote(self._hint(), classes="chat-hint", markup=False))
        self.query_one(SourcesPanel).show([])

    def _drop_hint(self) -> None:
        for hint in self.log_view.query(".chat-hint"):
            hint.remove()

    def _question(self, text: str) -> None:
        self._drop_hint()
        self.log_view.mount(Question(text))

    def show_history(self, turns: list[tuple[str, str]]) -> None:
        for question, answer in turns:
            self._question(question)
            self.record.append(TurnRecord(question, answer))
            self.log_view.mount(Answer(link_citations(answer), record=self.record[-1]))
        self.log_view.anchor()

    def last_answer(self) -> str:
        """The newest answer as the agent wrote it (``[n]`` citations), or ''."""
        return next((t.answer for t in reversed(self.record) if t.answer), "")

    def search_units(self) -> list[tuple[Any, str]]:
        """What find-in-chat looks through, top to bottom: each question, and each block of each
        answer (paragraph, list, table, code) with its text as shown."""
        units: list[tuple[Any, str]] = []
        for child in self.log_view.children:
            if isinstance(child, Question):
                units.append((child, child.text))
            elif isinstance(child, Answer):
                units += [(block, block_text(block)) for block in child.children if isinstance(block, MarkdownBlock)]
        return units

    def note(self, text: str, error: bool = False, warning: bool = False) -> None:
        self.log_view.mount(ChatNote(text, markup=False, classes="-error" if error else "-warning" if warning else ""))

    def _begin_answer(self) -> None:
        self._end_stream()
        self._answer = Answer("")
        self.log_view.mount(self._answer)
        self._stream = Markdown.get_stream(self._answer)
        self._timer = self.set_interval(FLUSH_S, self._flush)

    async def _flush(self) -> None:
        if self._buffer and self._stream is not None:
            text, self._buffer = "".join(self._buffer), []
            await self._stream.write(text)

    def _end_stream(self) -> Any:
        """Stop flushing; returns the stream (to be stopped) or None."""
        if self._timer is not None:
            self._timer.stop()
        stream, self._stream, self._timer, self._buffer = self._stream, None, None, []
        if stream is not None:
            self.run_worker(self._stop(stream), group="md-stream", exit_on_error=False)
        return stream

    async def _stop(self, stream: Any) -> bool:
        """Stop a Markdown stream; a stream task that had failed is reported, not raised (the
        caller still has the final text to show). Returns whether it stopped cleanly."""
        try:
            await stream.stop()
        except Exception as exc:  # noqa: BLE001 - a rendering fault must not lose the answer
            self.log.error(f"streamed answer stopped with {exc!r}")
            return False
        return True

    def _final(self, text: str, sources: list[Any] | None = None) -> None:
        if self._timer is not None:
            self._timer.stop()
        stream, self._stream, self._timer, self._buffer = self._stream, None, None, []
        if self._answer is None:
            self._answer = Answer("")
            self.log_view.mount(self._answer)
        answer, self._answer = self._answer, None
        answer.sources = list(sources or [])
        answer.record = self.record[-1] if self.record else None
        self.run_worker(self._finish(answer, stream, link_citations(text)), group="md-stream", exit_on_error=False)

    async def _finish(self, answer: Answer, stream: Any, text: str) -> None:
        """The final answer replaces whatever the stream showed, even when the stream task failed;
        a final render that fails is said in the conversation."""
        if stream is not None:
            await self._stop(stream)
        try:
            await answer.update(text)
        except Exception as exc:  # noqa: BLE001 - said to the user, the answer stays in the record
            self.log.error(f"final answer render failed: {exc!r}")
            self.note(f"✗ the answer could not be shown ({type(exc).__name__}: {exc}); "
                      "copy or export still have it", error=True)

    def apply(self, ev: Event) -> None:
        match ev:
            case TokenDelta():
                if self._stream is None:
                    self._begin_answer()
                self._buffer.append(ev.text)
            case TurnStarted() | ResearchStarted(stage="initial"):  # a research topic reads like a question
                question = ev.question if isinstance(ev, TurnStarted) else f"Deep research: {ev.topic}"
                self._question(question)
                self.record.append(TurnRecord(question))
                self.log_view.anchor()
                self.query_one(SourcesPanel).show([])
                self._answer = None
            case RetryStarted():
                if self._answer is not None:
                    self._end_stream()
                    self._answer.remove()
                    self._answer = None
                self.note(retry_note(ev))
            case TurnFinished(result=result):
                self._final(result.final_answer or "_(no answer)_", result.sources)
                if forced := forced_pass(result):
                    self.note(f"⚠ {forced}", warning=True)
                # a line of work: its papers by year (screens/lineage.py); the library's own list is none
                if result.strategy == "exploratory" and not LIBRARY_LISTING.match(result.final_answer.lstrip()):
                    self.note(LINEAGE_HINT)
                self.query_one(SourcesPanel).show(result.sources)
                if self.record:
                    self.record[-1].answer, self.record[-1].sources = result.final_answer, list(result.sources)
            case ReviewFinished(review=review):  # the review streamed like an answer (node "review")
                self._final(review.markdown or "_(no review)_", review.sources)
                self.query_one(SourcesPanel).show(review.sources)
                if self.record:
                    self.record[-1].answer, self.record[-1].sources = review.markdown, list(review.sources)
            case TurnFailed():
                if self.record and not self.record[-1].answer:
                    self.record[-1].failed = ev.error
                self._end_stream()
                self._answer = None
                label = "cancelled" if ev.category == "cancelled" else "failed"
                self.note(f"✗ turn {label}: {ev.error}", error=ev.category != "cancelled")

    @on(ChatSearch.Closed)
    def _search_closed(self) -> None:
        self.query_one(ChatInput).focus()

    @on(Markdown.LinkClicked)
    def _citation(self, event: Markdown.LinkClicked) -> None:
        """[n] opens source n of the answer it is in (the pane switches to that answer's sources)."""
        if event.href.startswith("#source-"):
            event.prevent_default()
            event.stop()
            n = int(event.href.rsplit("-", 1)[1])
            panel = self.query_one(SourcesPanel)
            answer = event.markdown if isinstance(event.markdown, Answer) else None
            if answer is not None and answer.sources and panel.sources != answer.sources:
                panel.show(answer.sources)
            if answer is not None and not answer.sources:
                self.app.notify("this answer's sources were not kept (an answer restored from the session's "
                                "history without its trace)", severity="warning")
                return
            if panel.select_index(n):
                self.query_one("#source-list").focus()

    @on(Answer.Chosen)
    def _answer_chosen(self, event: Answer.Chosen) -> None:
        """The sources pane follows the answer the user clicked."""
        panel = self.query_one(SourcesPanel)
        if event.answer.sources and panel.sources != event.answer.sources:
            panel.show(event.answer.sources)


def retry_note(ev: RetryStarted) -> str:
    """The critic's verdict that asked for a retry: its score and what it found missing, not the
    refine step's text (a weak model's reflection can be anything)."""
    if ev.score is None:  # a trace recorded before verdicts were carried
        return f"↻ the critic asked for a retry ({ev.attempt}): {ev.feedback}"
    issues = "; ".join(ev.issues[:3]) + (f" (+{len(ev.issues) - 3} more)" if len(ev.issues) > 3 else "")
    return f"↻ the critic asked for a retry ({ev.attempt}): score {ev.score:g}/10" + (f" · {issues}" if issues else "")


def block_text(block: MarkdownBlock) -> str:
    """A Markdown block's text as shown: code as written, a table's cells, else its inline text and
    its nested blocks'."""
    if isinstance(block, MarkdownFence):
        return block.code
    if isinstance(block, MarkdownTable):
        cells = [*block._headers, *(c for row in block._rows for c in row)]
        return " | ".join(c.plain for c in cells)
    parts = [block._content.plain]
    parts += [block_text(b) for b in block.children if isinstance(b, MarkdownBlock)]
    return "\n".join(p for p in parts if p)
