"""Which rows of a page in reading order are a table's, by their layout alone.

A row of three or more short cells is a table row, or of two set far apart; a displayed equation
set in pieces (mostly letters alone, mathematical symbols) is not. Rows the cell test misses are
taken in from their neighbours: a row of very short cells ("P R P R") beside a table row, two
cells set close in a run of rows aligned at the same x (a weight and its feature), one-cell rows
between table rows (a row label over two lines, a value centred between them), and rows right
above a table caption set one line a row, each starting with a value. A lone row that lines up
with the prose line next to it is that prose, read in pieces.
"""

from __future__ import annotations

from core.hub.pdf.forms import CAPTION as _CAPTION
from core.hub.pdf.forms import MATH as _MATH
from core.hub.pdf.forms import NAMED as _NAMED
from core.hub.pdf.forms import NUMBERED as _NUMBERED
from core.hub.pdf.cells import is_value
from core.hub.pdf.layout import Line


def tabular_rows(rows: list[list[Line]]) -> list[bool]:
    """For each row, whether it is a table's."""
    return classify_rows(rows)[0]


def classify_rows(rows: list[list[Line]]) -> tuple[list[bool], list[bool]]:
    """For each row, whether it is a table's, and whether it is a line of prose read in pieces
    (:func:`prose_line`: its pieces are that prose's, whatever their size)."""
    tabular = [len(row) >= 2 and table_row(row) for row in rows]
    for i in range(len(rows)):  # two cells set close, aligned with the rows around them
        tabular[i] = tabular[i] or aligned_pair(rows, i)
    for i in above_table_caption(rows, tabular):
        tabular[i] = True
    for i, row in enumerate(rows):  # a row of short cells (a header "P R P R") right by a table row
        if len(row) >= 2 and not tabular[i] and all(len(c.text.strip()) <= 12 for c in row) \
                and table_row(row, short=True):
            near = [k for k in (i - 1, i + 1) if 0 <= k < len(rows) and tabular[k]]
            tabular[i] = any(abs(rows[k][0].top - row[0].top) < 2 * row[0].size for k in near)
    for order in (range(1, len(rows)), range(len(rows) - 2, -1, -1)):  # rows lined up with a table row next to them
        for i in order:
            k = i - 1 if order.step == 1 else i + 1
            tabular[i] = tabular[i] or (tabular[k] and lined_up(rows[i], rows[k]))
    inside = [inside_table(rows, tabular, i) for i in range(len(rows))]
    out = [t or n for t, n in zip(tabular, inside)]
    prose = [t and prose_line(rows, out, i) for i, t in enumerate(out)]
    return [t and not p for t, p in zip(out, prose)], prose


def prose_line(rows: list[list[Line]], tabular: list[bool], i: int) -> bool:
    """A row alone between rows that are not a table's, right under or over a line of prose at the
    usual line spacing, whose pieces start and end where that line does: justified prose that the
    layout read in pieces (wide word spaces around inline math or a name in another font)."""
    if any(0 <= k < len(rows) and tabular[k] for k in (i - 1, i + 1)):
        return False
    row = rows[i]
    x0, x1, size = min(c.x0 for c in row), max(c.x1 for c in row), row[0].size

    def prose(k: int) -> bool:
        if not 0 <= k < len(rows) or len(rows[k]) != 1 or len(rows[k][0].text.strip()) < 30:
            return False
        ln = rows[k][0]
        gap = ln.top - max(c.bottom for c in row) if k > i else min(c.top for c in row) - ln.bottom
        return gap < 0.8 * size and abs(ln.x0 - x0) <= 0.3 * size and abs(ln.x1 - x1) <= 0.3 * size

    return prose(i - 1) or prose(i + 1)


def lined_up(row: list[Line], table_row_: list[Line]) -> bool:
    """A row of two or more cells right by a table row, with two of its cells starting or ending
    where that row's cells do (a last row whose label ran into its first value, "PROTO+SIM 79.1")."""
    if len(row) < 2 or any(_CAPTION.match(c.text.strip()) or len(c.text.strip()) >= 60 for c in row):
        return False
    gap = min(abs(c.top - t.bottom) for c in row[:1] for t in table_row_[:1])
    same = sum(any(abs(c.x0 - t.x0) <= 2 or abs(c.x1 - t.x1) <= 2 for t in table_row_) for c in row)
    return gap < 1.5 * row[0].size and same >= 2


def aligned_pair(rows: list[list[Line]], i: int) -> bool:
    """A row of two cells set closer than a table's usual gap (a weight and its feature), in a
    run of three such rows whose cells start (or a right-aligned first cell ends) at the same x:
    justified prose split at a wide space never lines up so."""
    def pair(k: int) -> bool:
        return (0 <= k < len(rows) and len(rows[k]) == 2 and len(rows[k][0].text.strip()) < 25
                and len(rows[k][1].text.strip()) < 60 and not any(_CAPTION.match(c.text.strip()) for c in rows[k]))

    def aligned(a: int, b: int) -> bool:
        (a0, a1), (b0, b1) = rows[a], rows[b]
        return abs(a1.x0 - b1.x0) <= 1.5 and (abs(a0.x0 - b0.x0) <= 1.5 or abs(a0.x1 - b0.x1) <= 1.5)

    if not pair(i):
        return False
    return any(all(pair(k) for k in run) and all(aligned(a, b) for a, b in zip(run, run[1:]))
               for run in ((i - 2, i - 1, i), (i - 1, i, i + 1), (i, i + 1, i + 2)))

def above_table_caption(rows: list[list[Line]], tabular: list[bool]) -> list[int]:
    """Rows right above a table caption set as one line a row, each starting with a value
    ("65% Correct relation phrase"), under at most one short title line, each close to the
    next: they stay table lines under the caption, out of body sentences."""
    out: list[int] = []
    for i, row in enumerate(rows):
        cap = _CAPTION.match(row[0].text.strip())
        if len(row) != 1 or not cap or cap.group(1).lower().startswith("fig"):
            continue
        width = max(ln.x1 for r in rows for ln in r if ln.x0 < row[0].x1 and ln.x1 > row[0].x0) - row[0].x0
        found, j = [], i - 1
        while j >= 0 and rows[j][0].bottom < row[0].top:
            below = rows[j + 1] if j + 1 < i else row
            if min(c.top for c in below) - max(c.bottom for c in rows[j]) > (2.0 if j + 1 < i else 3.0) * row[0].size:
                break
            if not tabular[j]:
                text = " ".join(c.text.strip() for c in rows[j])
                if (max(c.x1 for c in rows[j]) - min(c.x0 for c in rows[j]) > 0.9 * width
                        or text.endswith((".", ",")) or _NUMBERED.match(text) or _NAMED.match(text)):
                    break
                found.append(j)
            j -= 1
        lead = [is_value(rows[j][0].text.split()[0]) for j in found]
        titled = bool(found) and not lead[-1] and len(rows[found[-1]][0].text) <= 40  # one short title on top
        if len(found) - titled >= 2 and all(lead[:len(found) - titled]):
            out += found
    return out


def inside_table(rows: list[list[Line]], tabular: list[bool], i: int) -> bool:
    """A one-cell row among one-cell rows between two table rows, each close to the next: a
    row label set over two lines, a value centred between them, a header cell set alone."""
    def short(k: int) -> bool:
        t = rows[k][0].text.strip()
        return len(rows[k]) == 1 and len(t) < 40 and not _CAPTION.match(t)

    def close(a: int, b: int) -> bool:
        return min(c.top for c in rows[b]) - max(c.bottom for c in rows[a]) < 1.5 * rows[b][0].size

    if tabular[i] or not short(i):
        return False
    lo = i
    while lo > 0 and not tabular[lo - 1] and short(lo - 1) and close(lo - 1, lo):
        lo -= 1
    hi = i
    while hi < len(rows) - 1 and not tabular[hi + 1] and short(hi + 1) and close(hi, hi + 1):
        hi += 1
    return (lo > 0 and tabular[lo - 1] and close(lo - 1, lo) and hi < len(rows) - 1 and tabular[hi + 1]
            and close(hi, hi + 1) and hi - lo < 4)

def table_row(row: list[Line], short: bool = False) -> bool:
    """Three or more cells, or two set far apart (two pieces of justified text sit closer); no
    caption among them, and not a displayed equation set in pieces (mostly letters alone,
    unless ``short``: such a row counts beside a table row)."""
    if len(row) == 2 and (_NUMBERED.match(f"{row[0].text.strip()} {row[1].text.strip()}")
                          or row[1].x0 - row[0].x1 < 2.0 * row[0].size):
        return False
    cells = [c.text.strip() for c in row]
    if any(_CAPTION.match(c) for c in cells):
        return False
    if len(row) > 2:  # pieces set touching (a name and its superscript, "M3" "I") are one cell
        cells = [t for t in cells[:1]]
        for prev, ln in zip(row, row[1:]):
            if ln.x0 - prev.x1 < 0.3 * ln.size:
                cells[-1] = f"{cells[-1]} {ln.text.strip()}"
            else:
                cells.append(ln.text.strip())
    if not short and sum(len(c) <= 2 for c in cells) * 5 >= 2 * len(cells) and not all(is_value(c) for c in cells):
        return False
    if any(_MATH.search(c) and not is_value(c) for c in cells):
        return False
    return all(len(c) < 60 for c in cells)
