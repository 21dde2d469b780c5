"""A float's own text set at the body's size, above the caption set below it, kept out of the prose.

A table set as a list of labelled numbers ("65% Correct relation phrase, incorrect arguments" / "16% N-ary
relation") or a chart's labels at the body's size read as body text, and ran into the paragraph that the
float interrupts ("… 7% Other, including POS/chunking errors extractions had a smaller effect …"). Such a
block is found by its place and form, not its words: the rows right above a caption, in the caption's
column, one after another at a line's spacing; the block starts at the top of its column or after a gap
wider than a line's; fewer than half of its rows run the column's width (a paragraph's lines do), and
the row right above the caption does not end a sentence (a paragraph's last line does). A heading ends it;
a list's items, or rows that a colon leads into, are no float's. The column's width is its widest row's
beside the caption (a justified line, or the caption itself).
"""

from __future__ import annotations

import re

from core.hub.pdf.forms import CAPTION, NAMED, NUMBERED
from core.hub.pdf.layout import Line, row_span, row_text

MIN_ROWS = 2
FULL = 0.9  # of the column's width: a justified paragraph's line
GAP = 1.0  # of a row's size: a wider gap sets a block apart from the text above it
_ITEM = re.compile(r"^(?:\(\d{1,2}\)|\d{1,2}[.)]|[•▪◦‣∙·\-–—*])\s")  # a list item's mark


def float_rows(rows: list[list[Line]]) -> dict[int, int]:
    """``{row index: caption row index}`` for the rows of ``rows`` (a page's rows in reading order)
    that are a float's own text above its caption."""
    out: dict[int, int] = {}
    for c, cap in enumerate(rows):
        if not CAPTION.match(row_text(cap)):
            continue
        # the caption's column: as wide as its widest row (a justified line, or the caption itself); a
        # stamp in the margin or the other column says nothing about it
        column = max(row_span(r) for r in rows if _beside(r, cap))
        block: list[int] = []
        j = c - 1
        while j >= 0 and _beside(rows[j], cap) and not _heading(rows[j]) and not CAPTION.match(row_text(rows[j])):
            if block and _gap(rows[j], rows[block[-1]]) > GAP * _size(rows[j]) or _gap(rows[j], rows[block[-1]] if block else cap) < -2:
                break
            block.append(j)
            j -= 1
        if len(block) < MIN_ROWS or row_text(rows[block[0]]).endswith((".", "!", "?")):
            continue
        if any(_ITEM.match(row_text(rows[k])) for k in block):
            continue  # a list's items ("(1) read each page …") are prose, whatever their stops
        if j >= 0 and _beside(rows[j], cap) and row_text(rows[j]).endswith(":"):
            continue  # what a colon leads into (a list, an example) belongs to its sentence
        opens = j < 0 or not _beside(rows[j], cap) or _gap(rows[j], rows[block[-1]]) > GAP * _size(rows[j])
        full = sum(row_span(rows[k]) >= FULL * column for k in block)
        if opens and full < len(block) / 2:
            out.update({k: c for k in block})
    return out


def _size(row: list[Line]) -> float:
    return max(ln.size for ln in row)


def _beside(row: list[Line], cap: list[Line]) -> bool:
    """Whether ``row`` shares horizontal extent with the caption (the same column)."""
    return min(max(ln.x1 for ln in row), max(ln.x1 for ln in cap)) > max(min(ln.x0 for ln in row), min(ln.x0 for ln in cap))


def _gap(above: list[Line], below: list[Line]) -> float:
    return min(ln.top for ln in below) - max(ln.bottom for ln in above)


def _heading(row: list[Line]) -> bool:
    text = row_text(row)
    return bool(NAMED.match(text) or (NUMBERED.match(text) and (row[0].bold or re.match(r"^\d", text))))
