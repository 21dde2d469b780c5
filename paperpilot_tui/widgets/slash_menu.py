"""The completion menu above the question box: slash commands, their arguments and ``@paper`` titles.

It never takes focus: the question box keeps typing while the menu shows what :func:`paperpilot_tui.
slash.complete` offers for the text before the cursor, and the box's keys drive it (tab takes the
highlighted entry, up/down move, esc closes).
"""

from __future__ import annotations

from textual.widgets import OptionList
from textual.widgets.option_list import Option

from paperpilot_tui.slash import Candidate


class SlashMenu(OptionList, can_focus=False):
    DEFAULT_CSS = """
    SlashMenu { display: none; height: auto; max-height: 8; border: round $accent 60%;
                background: $panel; padding: 0 1; }
    SlashMenu.-open { display: block; }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.candidates: list[Candidate] = []

    @property
    def is_open(self) -> bool:
        return self.has_class("-open")

    def show(self, candidates: list[Candidate]) -> None:
        """Offer ``candidates`` (closed when there are none)."""
        self.candidates = candidates
        width = max((self.parent.size.width if self.parent is not None else 0) - 6, 20)
        self.set_options([Option(_fit(c.label, width)) for c in candidates])
        self.set_class(bool(candidates), "-open")
        if candidates:
            self.highlighted = 0
            self.border_title = "tab completes · ↑↓ choose · esc closes"

    def close(self) -> None:
        self.show([])

    def move(self, step: int) -> None:
        if self.candidates:
            self.highlighted = ((self.highlighted or 0) + step) % len(self.candidates)

    def chosen(self) -> Candidate | None:
        if not self.is_open or self.highlighted is None or not self.candidates:
            return None
        return self.candidates[self.highlighted]


def _fit(label: str, width: int) -> str:
    """One line per entry: a long help text ends in "…" rather than wrapping."""
    return label if len(label) <= width else label[:width - 1].rstrip() + "…"
