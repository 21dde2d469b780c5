"""A PDF table rebuilt row by row from where its cells sit on the page.

The reader's table rows arrive as positioned lines (:class:`core.hub.pdf.layout.Line`), one row a
baseline. The grid is found from the layout, never from a paper's wording:

- **columns** are the x-ranges that the value rows' cells (:mod:`.cells`) share, the union of
  their boxes; a cell over two columns whose words each sit in one is split at its spaces;
- **label columns** hold mostly words, **value columns** mostly numbers; a label column after
  value columns starts a second table set beside the first, read on its own;
- **header rows** are the rows above the first row with both a label and a value; a header cell
  over several lines is joined top to bottom, and a spanning header is prefixed to every column
  under it ("ASR baseline"); a header cell that covers two columns word by word is split;
- **row labels**: a label over two lines is joined (a label-only line that starts in lower case
  continues its neighbour), a group label ("Supervised") names the rows below it, and an empty
  first label cell repeats the one above when the table has several label columns; a label set
  once beside a block of rows names each row of it (:mod:`.rowgroups`).

:func:`rebuild` returns ``| row label | column: value |`` lines, or None when no columns are found
(the caller keeps the rows as plain lines).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.hub.pdf import cells as _cells
from core.hub.pdf.cells import Unit, is_value
from core.hub.pdf.clean import join_lines, normalize
from core.hub.pdf.layout import SOFT_HYPHEN, Line
from core.hub.pdf.rowgroups import name_numbers, spread
_MIXED = re.compile(r"^\S*[^\W\d_]\S*(?:\s+\S+)*\s+[-+]?\d[\d.,]*%?$")  # words, then a number


def _columns(rows: list[list[Unit]]) -> list[tuple[float, float]]:
    """Column extents: the union of the cells of the rows that hold values and most cells (a
    label read with its first value as one line, "PROTO+SIM 79.1", set aside: split later)."""
    rows = [[u for u in r if is_value(u.text) or not _MIXED.match(u.text)] for r in rows]
    multi = [r for r in rows if len(r) >= 2]
    valued = [r for r in multi if any(is_value(u.text) for u in r)]
    pool = valued if len(valued) >= 2 else multi
    if not pool:
        return []
    most = max(len(r) for r in pool)
    spans = sorted((u.x0, u.x1) for r in pool if len(r) >= max(2, 0.6 * most) for u in r)
    cols: list[list[float]] = []
    for a, b in spans:
        if cols and a <= cols[-1][1] + 0.5:
            cols[-1][1] = max(cols[-1][1], b)
        else:
            cols.append([a, b])
    return [(a, b) for a, b in cols]


def _overlap(u: Unit, col: tuple[float, float]) -> float:
    return min(u.x1, col[1]) - max(u.x0, col[0])


def _place(u: Unit, cols: list[tuple[float, float]]) -> int:
    """The column a body cell belongs to: most overlap, else the nearest."""
    best = max(range(len(cols)), key=lambda j: _overlap(u, cols[j]))
    return best if _overlap(u, cols[best]) > 0 else min(
        range(len(cols)), key=lambda j: abs((u.x0 + u.x1) / 2 - (cols[j][0] + cols[j][1]) / 2))


def _split(u: Unit, cols: list[tuple[float, float]]) -> dict[int, str] | None:
    """A cell over several columns split word by word, when each word sits in one column and they
    sit in more than one; None when it truly spans them."""
    hit = [j for j, c in enumerate(cols) if _overlap(u, c) > 0]
    if len(hit) < 2 or u.text != normalize(u.line.text).replace(SOFT_HYPHEN, "-").strip():
        return None
    words = _cells.words(u.line)
    places = [[j for j, c in enumerate(cols) if min(b, c[1]) - max(a, c[0]) > 0] for _, a, b in words]
    if not words or any(len(p) != 1 for p in places) or len({p[0] for p in places}) < 2:
        return None
    out: dict[int, list[str]] = {}
    for (t, _, _), p in zip(words, places):
        out.setdefault(p[0], []).append(normalize(t))
    return {j: " ".join(ts) for j, ts in out.items()}


def _header_cells(row: list[Unit], cols: list[tuple[float, float]]) -> dict[int, str]:
    """A header row's text per column: a cell over several columns either splits word by word or
    is prefixed to each column under it."""
    out: dict[int, list[str]] = {}
    for u in row:
        split = _split(u, cols)
        if split:
            for j, t in split.items():
                out.setdefault(j, []).append(t)
            continue
        for j in [j for j, c in enumerate(cols) if _overlap(u, c) > 0] or [_place(u, cols)]:
            out.setdefault(j, []).append(u.text)
    return {j: " ".join(ts) for j, ts in out.items()}


@dataclass
class Group:
    """One table's rebuilt lines and its horizontal extent (two tables may be set side by side)."""

    x0: float
    x1: float
    lines: list[str]


def rebuild(rows: list[list[Line]]) -> list[str] | None:
    """The table's rows as ``| row label | column: value |`` lines (None when it has no columns)."""
    groups = rebuild_groups(rows)
    return [ln for g in groups for ln in g.lines] if groups else None


def rebuild_groups(rows: list[list[Line]]) -> list[Group] | None:
    """:func:`rebuild`, one :class:`Group` per table set side by side."""
    units = [r for r in ([u for ln in row for u in _cells.units(ln)] for row in _cells.merge_rows(rows)) if r]
    units, spread_labels = spread(units)
    cols = _columns(units)
    if len(cols) < 2:
        return None
    grouped = {_place(u, cols) for u in spread_labels}  # a column of group labels names rows
    name_numbers(units, spread_labels)
    grid = []
    for r in units:
        cells: dict[int, str] = {}
        ends: dict[int, float] = {}  # where each cell's text ends so far: touching pieces are one word ("M3" "I")
        for u in r:
            for j, t in (_split(u, cols) or {_place(u, cols): u.text}).items():
                touching = j in ends and u.x0 - ends[j] < 0.25 * u.line.size
                cells[j] = (cells[j] + ("" if touching else " ") + t) if j in cells else t
                ends[j] = u.x1
        grid.append(cells)
    filled = [[c[j] for c in grid if j in c] for j in range(len(cols))]
    label = [j in grouped or sum(not is_value(t) for t in f) * 2 > len(f) for j, f in enumerate(filled)]
    if all(label):
        return None
    spans, start = [], 0  # column groups: label columns, then value columns (tables set side by side)
    for j in range(1, len(cols)):
        if label[j] and not label[j - 1]:
            spans.append(range(start, j))
            start = j
    spans.append(range(start, len(cols)))
    for k in range(len(spans) - 1, 0, -1):  # label columns with no values after them stay with the table before
        if all(label[j] for j in spans[k]):
            spans[k - 1] = range(spans[k - 1][0], spans[k][-1] + 1)
            del spans[k]
    out = []
    for span in spans:
        lines = _read_group(units, grid, cols, [j for j in span if label[j]], [j for j in span if not label[j]])
        if lines:
            out.append(Group(cols[span[0]][0], cols[span[-1]][1], lines))
    return out or None


def _read_group(units: list[list[Unit]], grid: list[dict[int, str]], cols: list[tuple[float, float]],
                labels: list[int], values: list[int]) -> list[str]:
    """One table's lines from its label columns (the first names the row) and value columns."""
    mine_cols = set(labels) | set(values)

    def has_value(c: dict[int, str]) -> bool:
        return any(j in c and is_value(c[j]) for j in values)

    def is_body(c: dict[int, str]) -> bool:
        return has_value(c) and (not labels or any(j in c for j in labels))

    heads: list[dict[int, str]] = []  # the header rows over this block of the table, top to bottom
    rows: list[tuple[list[str], dict[int, str]]] = []  # (label parts, other cells)
    group_label, pending, header_open = "", "", True
    for k, (r, cells) in enumerate(zip(units, grid)):
        mine = {j: t for j, t in cells.items() if j in mine_cols}
        if not mine:
            continue
        nxt = [t for j, t in (grid[k + 1] if k + 1 < len(grid) else {}).items() if j in values]
        head_like = not is_body(mine) or (not rows and _cells.names_columns([mine[j] for j in values if j in mine], nxt))
        restart = (not header_open and not has_value(mine) and sum(j in mine for j in values) >= max(2, len(values) / 2))
        if (header_open and head_like and (any(j in mine for j in values) or not rows)) or restart:
            if restart:
                heads = []  # a header again: a new block of the table starts
            cells_here = _header_cells([u for u in r if _place(u, cols) in mine_cols], cols)
            heads.append({j: t for j, t in cells_here.items() if j in mine_cols})
            header_open = True
            continue
        header_open = False
        parts = [mine.get(j, "") for j in labels[:1]]
        if not any(j in mine for j in values) and not any(mine.get(j) for j in labels[1:]):  # a label-only line
            text = parts[0] if parts else ""
            if rows and text[:1].islower():
                rows[-1][0][-1] = join_lines([rows[-1][0][-1], text])
            elif text.endswith("-") or (len(labels) == 1 and text and not text.endswith(":")):
                pending = join_lines([pending, text]) if pending else text
            elif text:
                group_label = text.rstrip(":")
            continue
        if pending and parts:
            parts[0] = join_lines([pending, parts[0]]) if parts[0] else pending
            pending = ""
        if len(labels) > 1:  # the first label column names a group of rows: repeat it, join it over two lines
            if not parts[0]:
                parts[0] = group_label
            elif group_label.endswith("-") and parts[0][:1].islower() and rows:
                old, parts[0] = group_label, join_lines([group_label, parts[0]])
                for prev, _ in rows[::-1]:
                    if prev[0] != old:
                        break
                    prev[0] = parts[0]
            group_label = parts[0]
        elif group_label:
            parts = [group_label] + parts
        rows.append((parts, {j: t for j, t in mine.items() if j not in labels[:1]}))
    names = _names(heads, cols, values)
    out = []
    for parts, cells in rows:
        name = " ".join(p for p in parts if p)
        extra = [j for j in labels[1:] if j in cells and not names.get(j)]  # unnamed label columns join the label
        name = " ".join([name] + [cells[j] for j in extra]).strip()
        shown = [f"{names[j]}: {cells[j]}" if names.get(j) else cells[j]
                 for j in sorted(cells) if j not in extra]
        if shown or name:
            out.append("| " + " | ".join(([name] if name else []) + shown) + " |")
    return out


def _names(heads: list[dict[int, str]], cols: list[tuple[float, float]], values: list[int]) -> dict[int, str]:
    """Each column's name from the header rows, top to bottom; a top row with fewer cells than
    columns above further header rows holds spanning headers, each over the columns nearest it."""
    def centre(j: int) -> float:
        return (cols[j][0] + cols[j][1]) / 2

    names: dict[int, list[str]] = {}
    for k, row in enumerate(heads):
        spanning = k == 0 and len(heads) >= 2 and 0 < sum(j in row for j in values) < len(values)
        for j in sorted(set(row) | (set(values) if spanning else set())):
            t = row.get(j) if j in row else row[min((i for i in row if i in values), key=lambda i: abs(centre(i) - centre(j)))]
            names.setdefault(j, []).append(t)
    return {j: re.sub(r"\s*:\s*", " ", " ".join(ts)).strip() for j, ts in names.items()}
