"""Memory pane: the long-term facts recalled for the current turn (once the answer is ready, those it
drew on apart from those it left out), what the turn memorized, and the way into the memory browser."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Button, Static

from core.events import AnswerReady, Event, MemoryRecalled, MemoryWritten, TurnStarted
from core.text import term_set


class MemoryPane(Vertical):
    DEFAULT_CSS = """
    MemoryPane #memory-facts { height: 1fr; padding: 0 1; }
    MemoryPane Button { width: 100%; height: 1; border: none; min-width: 10; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.recalled: list[str] = []
        # per recalled fact, whether the answer drew on it (None for the list: no answer yet; for a fact:
        # the user's own note, which is followed rather than quoted, so never judged)
        self.used: list[bool | None] | None = None
        self.written: list[str] = []
        self.skipped = ""
        self.added = self.updated = 0

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="memory-scroll"):
            yield Static(self._render_facts(), id="memory-facts")
        yield Button("Open memory browser  (F3)", id="open-memory", compact=True)

    def _render_facts(self) -> Text:
        text = Text()
        if not self.recalled:
            text.append("No facts recalled for this turn.\n", style="dim")
        elif self.used is not None and False in self.used:
            judged = sum(u is not None for u in self.used)
            text.append(f"recalled {len(self.recalled)}; the answer used {sum(u is True for u in self.used)} of the "
                        f"{judged} from papers:\n", style="dim")
        for i, fact in enumerate(self.recalled):
            if self.used is not None and self.used[i] is False:  # the brain found it not about this question
                text.append("◦ ", style="dim")
                text.append(fact + " (not used)\n", style="dim")
                continue
            text.append("• ", style="bold")
            text.append(fact + "\n")
        if self.written:
            text.append(f"saved {self.added} new, {self.updated} updated:\n", style="dim")
            for fact in self.written:
                text.append("+ ", style="bold")
                text.append(fact + "\n", style="italic")
        elif self.skipped:
            text.append(f"nothing saved: {self.skipped}", style="dim")
        return text

    def clear(self) -> None:
        """Nothing recalled or saved: a new or another session starts without this one's facts."""
        self.recalled, self.written, self.skipped, self.used = [], [], "", None
        self.added = self.updated = 0
        self.query_one("#memory-facts", Static).update(self._render_facts())

    def apply(self, ev: Event) -> None:
        match ev:
            case TurnStarted():
                self.recalled, self.written, self.skipped, self.used = [], [], "", None
            case MemoryRecalled():
                self.recalled, self.used = list(ev.facts), None
            case AnswerReady():
                self.used = [drew_on(ev.answer, fact) if " says: " in fact else None for fact in self.recalled]
            case MemoryWritten():
                self.written, self.skipped = list(ev.facts), ev.skipped_reason
                self.added, self.updated = ev.added, ev.updated
            case _:
                return
        self.query_one("#memory-facts", Static).update(self._render_facts())

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.app.run_action("open_memory")


USED_SHARE = 0.6  # of a fact's content words in the answer: quoted, or closely restated by an LLM


def drew_on(answer: str, fact: str) -> bool:
    """Whether ``answer`` draws on a recalled ``fact`` ("<title> says: …" or as written): most of the
    claim's content words are in the answer (the title it is filed under does not count)."""
    claim = fact.split(" says: ", 1)[-1]
    terms = term_set(claim)
    return bool(terms) and len(terms & term_set(answer)) >= USED_SHARE * len(terms)
