"""Status bar: brain, knowledge-hub status, session, collection, and what the agent is doing."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static


class StatusBar(Static):
    DEFAULT_CSS = """
    StatusBar { height: 1; background: $panel; color: $text; padding: 0 1; }
    """

    brain = reactive("loading…")
    hub = reactive("starting…")
    session = reactive("")
    collection = reactive("")
    activity = reactive("starting the agent")

    def render(self) -> Text:
        text = Text(no_wrap=True, overflow="ellipsis")
        for label, value in (("brain", self.brain), ("hub", self.hub), ("session", self.session),
                             ("collection", self.collection)):
            text.append(f"{label} ", style="dim")
            text.append(value or "—", style="bold")
            text.append("  ")
        text.append("● ", style="bold")
        text.append(self.activity)
        return text
