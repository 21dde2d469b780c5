"""Status bar: brain, knowledge-hub status, session, collection, what turns cost, and what the agent is doing.

The activity is always shown: where the bar is too narrow, the lower-priority segments
(collection, then hub, cost, session, brain) are dropped first."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

# segments dropped first when the bar is too narrow, in order
DROP_ORDER = ("collection", "hub", "cost", "session", "brain")


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
    indexing = reactive(0)  # files a watching hub is indexing (hub.watch)

    def render(self) -> Text:
        hub = f"{self.hub} · indexing {self.indexing} file{'s' if self.indexing != 1 else ''}…" if self.indexing \
            else self.hub
        segments = {"brain": self.brain, "hub": hub, "session": self.session, "collection": self.collection,
                    **({"cost": self.cost} if self.cost else {})}
        width = self.content_region.width or self.app.size.width
        for dropped in range(len(DROP_ORDER) + 1):
            shown = {k: v for k, v in segments.items() if k not in DROP_ORDER[:dropped]}
            text = self._line(shown)
            if text.cell_len <= width:
                break
        return text

    def _line(self, segments: dict[str, str]) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        for label, value in segments.items():
            text.append(f"{label} ", style="dim")
            text.append(value or "—", style="bold")
            text.append("  ")
        text.append("● ", style="bold")
        text.append(self.activity)
        return text
