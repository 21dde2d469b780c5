"""Status bar: brain, knowledge-hub status, session, collection, what turns cost, and what the agent is doing.

The activity is always shown. Where the bar is too narrow, the first of :data:`FALLBACKS` that fits
is shown: the cost line shrinks to its seconds (and money) while that keeps every segment, else hub
and session go first, and the collection goes last, since it is what the next question is answered
from (so a turn's cost appearing never pushes it out).
A value that already begins with its segment's label (the bundled hub's connection is named
"hub": "hub (stdio)") is not labelled twice."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

# what is left out, in order of preference, until the line fits; "cost~": the cost line's short form
FALLBACKS = ((), ("cost~",), ("hub", "session"), ("hub", "session", "cost~"), ("hub", "session", "cost"),
             ("hub", "session", "cost", "brain"), ("hub", "session", "cost", "brain", "collection"))


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    brain = reactive("loading…")
    hub = reactive("starting…")
    session = reactive("")
    collection = reactive("")
    activity = reactive("starting the agent")
    cost = reactive("")  # last turn and session totals (paperpilot_tui.cost), once a turn has ended
    cost_short = reactive("")  # the same, seconds (and money) only: where the full line does not fit
    indexing = reactive(0)  # files a watching hub is indexing (hub.watch)

    def render(self) -> Text:
        hub = f"{self.hub} · indexing {self.indexing} file{'s' if self.indexing != 1 else ''}…" if self.indexing \
            else self.hub
        segments = {"brain": self.brain, "hub": hub, "session": self.session, "collection": self.collection,
                    **({"cost": self.cost} if self.cost else {})}
        width = self.content_region.width or self.app.size.width
        for left_out in FALLBACKS:
            shown = {k: v for k, v in segments.items() if k not in left_out}
            if "cost~" in left_out and "cost" in shown:
                shown["cost"] = self.cost_short or shown["cost"]
            text = self._line(shown)
            if text.cell_len <= width:
                break
        return text

    def _line(self, segments: dict[str, str]) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        for label, value in segments.items():
            if not value.startswith(f"{label} ") and value != label:
                text.append(f"{label} ", style="dim")
            text.append(value or "—", style="bold")
            text.append("  ")
        text.append("● ", style="bold")
        text.append(self.activity)
        return text
