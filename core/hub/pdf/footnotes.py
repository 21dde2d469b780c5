"""Footnotes set as large as the body: a column's bottom lines from one that opens with a raised,
smaller mark ("⁵Parsers are…") set apart from the line above it by more than a line and a half.

Most papers set footnotes smaller than the body (:func:`core.hub.pdf.structure.footnote_lines`
finds those by size); some set them at the body's size, and then only the mark and the gap above
tell a footnote from the column's last paragraph. A mark at the start of a line inside a
paragraph has no such gap, and stays the body's.
"""

from __future__ import annotations

import re

from core.hub.pdf.layout import Line

_MARK = re.compile(r"^(?:\d{1,2}|[*†‡§¶∗])\s?[^\W\d_]")
GAP = 1.6  # baseline distance, in the line's size, that sets a footnote apart from the text above it
LOW = 0.6  # footnotes sit below this share of the page's height


def raised_mark(ln: Line) -> bool:
    """A line that opens with a mark set smaller than its text, then a word ("⁵Parsers", "† We")."""
    t = ln.text
    if not _MARK.match(t) or len(ln.sizes) != len(t):
        return False
    k = 1 + t[1:2].isdigit()
    return max(ln.sizes[:k]) <= 0.8 * ln.size


def body_size_notes(column: list[Line], height: float) -> list[Line]:
    """The footnote lines at the bottom of one column's lines (empty when it has none)."""
    lines = sorted(column, key=lambda ln: ln.base or ln.bottom)
    for i in range(1, len(lines)):
        ln, above = lines[i], lines[i - 1]
        if ln.top > height * LOW and raised_mark(ln) and \
                (ln.base or ln.bottom) - (above.base or above.bottom) > GAP * ln.size:
            return lines[i:]
    return []
