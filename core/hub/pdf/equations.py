"""Displayed equations that carry a number set flush right ("… ≤ α        (17)").

TeX sets a numbered display apart from the paragraph: indented (centred) in its column, with the
number at the column's right edge. Read line by line, its symbols, the number and the lines of a
fraction ran into the next sentence ("(17) d1d2 This guarantee is weaker …"). :func:`display_rows`
finds such a display by its number alone: a row ending in "(n)" at the column's edge, set apart
from the row's other pieces, which start indented; then the rows right above and below it that are
set indented, stop short of the edge and are no run of words (the rest of a multi-line display, a
fraction's numerator or denominator; not a paragraph's indented first line). An unnumbered display,
and a line of prose whose last word is a number in brackets, stay in the text.
"""

from __future__ import annotations

import re

from core.hub.pdf.clean import column_sides
from core.hub.pdf.forms import CAPTION, NAMED, NUMBERED
from core.hub.pdf.layout import Line, row_text

EQUATION_NUMBER = re.compile(r"\((?:[A-Z]\.)?\d{1,3}(?:\.\d{1,3})?[a-z]?\)")  # "(17)", "(3.2)", "(A.1)", "(4b)"
INDENT = 1.5  # a display's pieces start at least this many body sizes right of its column's left edge
# A run of plain words: a row of prose (a paragraph's indented first line over a display), not of a display
# (whose rows carry a word or two between symbols: "such that", "subject to").
WORDS = re.compile(r"(?:\b[^\W\d_]{2,}\b[,;:]?\s+){3}[^\W\d_]{2,}\b")
ROW_GAP = 2.0  # rows of one display sit within this many body sizes of each other (baseline to baseline)


def _base(row: list[Line]) -> float:
    return max(ln.base or ln.bottom for ln in row)


def display_rows(rows: list[list[Line]], edges: tuple[float, float], mid: float, width: float,
                 two_col: bool, body: float) -> dict[int, str]:
    """The rows (by index into ``rows``, the page's rows in reading order) of its numbered displayed
    equations, each with its number ("(17)"). ``edges``: the right text edges of the left column and
    of the page (:class:`core.hub.pdf.structure.Walker`), used where a column has no line at all."""
    if not any(row and EQUATION_NUMBER.fullmatch(row[-1].text.strip()) for row in rows):
        return {}  # most pages: no display numbered at a row's end
    left_side, right_side = column_sides(mid, width)

    def column(row: list[Line]) -> int:
        if not two_col:
            return 0
        return 0 if all(left_side(ln) for ln in row) else 1 if all(right_side(ln) for ln in row) else -1

    cols = [column(r) for r in rows]

    def edges_of(col: int) -> tuple[float, float]:
        """The column's left edge and its right edge: where most of its prose lines (30 characters or
        more; else all its lines) end: justified lines end there, a hyphen or a wide line may stand out."""
        lines = [ln for r, c in zip(rows, cols) if c == col for ln in r]
        lines = [ln for ln in lines if len(ln.text.strip()) >= 30] or lines
        ends = sorted(ln.x1 for ln in lines)
        right = ends[len(ends) // 2] if ends else (edges[0] if two_col and col == 0 else edges[1])
        return min((ln.x0 for ln in lines), default=0.0), right

    column_edges = {col: edges_of(col) for col in set(cols) if col >= 0}

    def numbered(i: int) -> str | None:
        row, col = rows[i], cols[i]
        last = row[-1]
        if col < 0 or not EQUATION_NUMBER.fullmatch(last.text.strip()):
            return None
        left, right = column_edges[col]
        if last.x1 < right - 0.5 * last.size:
            return None  # short of the column's edge
        if len(row) > 1 and (last.x0 - row[-2].x1 < last.size or row[0].x0 < left + INDENT * body):
            return None
        return last.text.strip()

    def displayed(i: int) -> bool:
        row, col = rows[i], cols[i]
        if col < 0:
            return False
        left, right = column_edges[col]
        text = row_text(row)
        return (not WORDS.search(text) and min(ln.x0 for ln in row) >= left + INDENT * body
                and max(ln.x1 for ln in row) <= right - body and not any(ln.bold for ln in row)
                and not CAPTION.match(text) and not NUMBERED.match(text) and not NAMED.match(text))

    out: dict[int, str] = {}
    for i in range(len(rows)):
        number = numbered(i)
        if number is None or i in out:
            continue
        out[i] = number
        for step in (-1, 1):
            j = i
            while (0 <= j + step < len(rows) and j + step not in out and cols[j + step] == cols[i]
                   and abs(_base(rows[j + step]) - _base(rows[j])) <= ROW_GAP * body and displayed(j + step)):
                j += step
                out[j] = number
    return out
