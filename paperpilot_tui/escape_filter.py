"""The app's last step before the terminal: every rendered line loses its control characters.

Stored text reaches the screen through many widgets (titles, lists, tables, notifications, the
Markdown answer), and Textual passes ESC, C1 and bidi override characters in a widget's text through
to the terminal. Rather than sanitize at each place text is set, the app installs this Textual line
filter, which sees every line every widget renders (borders and titles included), and removes them
with :func:`core.text_safety.drop_controls`. The characters it drops are zero-width, so the layout
Textual computed stays exact; what is left of a sequence is inert printable text. A link target (a
web source's URL, written inside an OSC 8 sequence) is cleaned the same way.
"""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter

from core.text_safety import drop_controls


def _unsafe(segment: Segment) -> bool:
    text, style, _ = segment
    return not text.isprintable() or bool(style and style.link and not style.link.isprintable())


def _clean(segment: Segment) -> Segment:
    text, style, control = segment
    if style and style.link and not style.link.isprintable():
        style = style + Style(link=drop_controls(style.link))
    return Segment(drop_controls(text), style, control)


class EscapeFilter(LineFilter):
    """Removes terminal control characters from rendered segments' text and link targets."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        if not any(map(_unsafe, segments)):  # the common case
            return segments
        cleaned = (_clean(s) if _unsafe(s) else s for s in segments)
        return [s for s in cleaned if s.text or s.control]
