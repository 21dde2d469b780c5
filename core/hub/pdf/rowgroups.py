"""Group labels set once beside a block of a table's rows.

A table often names a group of rows once, in a first column, with the label set vertically
centred beside the group ("Algorithm 1" over three result rows), and sets the groups apart with a
wider gap between rows. The label then sits on a line of its own, between two of the group's
rows and left of every cell of theirs, and a row by row reading loses it: the rows do not say
which group they belong to, and the labels read as a table of their own.

:func:`spread` finds such lone label lines from the layout alone (one short cell, between two
rows of cells, left of all of them), finds the blocks of rows from the gaps between baselines (a
gap wider than the table's usual row pitch starts a block), and puts each label first in every
row of the block it sits in. :func:`name_numbers` makes a label that is a number read with its
column's header ("Algorithm 1"). When the blocks are not clear (no wider gaps, or two labels in
one block) nothing changes.
"""

from __future__ import annotations

from core.hub.pdf.cells import Unit, is_value

GAP_RATIO = 1.1  # a gap this much wider than the table's usual row pitch starts a block of rows
LABEL_WORDS = 4  # a group label is short


def _base(row: list[Unit]) -> float:
    ln = row[0].line
    return ln.base or ln.bottom


def _lone(rows: list[list[Unit]], k: int) -> bool:
    """Whether row ``k`` is one short cell set between two rows of cells, left of all of them."""
    if not 0 < k < len(rows) - 1 or len(rows[k]) != 1:
        return False
    above, below, (u,) = rows[k - 1], rows[k + 1], rows[k]
    return (len(above) >= 2 and len(below) >= 2 and len(u.text.split()) <= LABEL_WORDS
            and u.x1 < min(v.x0 for v in above + below))


def _blocks(body: list[list[Unit]]) -> list[list[list[Unit]]]:
    """Body rows cut into blocks where the gap between baselines is wider than the usual pitch
    (none when there are no body rows: a table whose rows hold no values)."""
    if not body:
        return []
    gaps = [_base(b) - _base(a) for a, b in zip(body, body[1:])]
    if not gaps:
        return [body]
    usual = sorted(gaps)[len(gaps) // 4]
    blocks = [[body[0]]]
    for gap, row in zip(gaps, body[1:]):
        if gap > GAP_RATIO * usual:
            blocks.append([])
        blocks[-1].append(row)
    return blocks


def _header(rows: list[list[Unit]], label: Unit) -> str:
    """The header cell over a label's column: in the rows above the first row holding a value."""
    for row in rows:
        if any(is_value(u.text) for u in row):
            break
        for u in row:
            if min(u.x1, label.x1) - max(u.x0, label.x0) > 0:
                return u.text
    return ""


def _holder(block: list[list[Unit]]) -> Unit | None:
    """The one row of a block whose first cell sits left of every other row's cells (a group label
    read on that row's baseline), when exactly one row of the block has it."""
    if len(block) < 2:
        return None
    firsts = [r[0] for r in block if all(r[0].x1 < v.x0 for o in block if o is not r for v in o)]
    return firsts[0] if len(firsts) == 1 else None


def spread(rows: list[list[Unit]]) -> tuple[list[list[Unit]], list[Unit]]:
    """The rows with each lone group label line taken out and its label put first in every row of
    its block (rows that have a cell of their own in the label's column keep it), and the label
    cells of the table; the rows as they are, and no cells, when the table has no lone labels or
    its blocks are not clear. Once a table has lone labels, a block's label read on one of its
    rows' baselines names the block too."""
    lone = [k for k in range(len(rows)) if _lone(rows, k)]
    if not lone:
        return rows, []
    rest = [r for k, r in enumerate(rows) if k not in lone]
    body = [r for r in rest if len(r) >= 2 and any(is_value(u.text) for u in r)]
    blocks = _blocks(body)
    owner: dict[int, Unit] = {}  # block index → its label
    for k in lone:
        base = _base(rows[k])
        inside = [i for i, b in enumerate(blocks) if _base(b[0]) < base < _base(b[-1])]
        if len(inside) != 1 or inside[0] in owner:
            return rows, []
        owner[inside[0]] = rows[k][0]
    for i, block in enumerate(blocks):
        held = None if i in owner else _holder(block)
        if held is not None:
            owner[i] = held
    x0, x1 = min(u.x0 for u in owner.values()), max(u.x1 for u in owner.values())
    named: list[Unit] = []
    for i, block in enumerate(blocks):
        label = owner.get(i)
        for row in block:
            first = row[0]
            if label is not None and first.x0 > label.x1:  # no cell of its own in the label's column
                row.insert(0, Unit(label.text, label.x0, label.x1, label.line))
            elif not (first.x1 > x0 and first.x0 < x1):
                continue
            named.append(row[0])
    return rest, named


def name_numbers(rows: list[list[Unit]], labels: list[Unit]) -> None:
    """Group labels that are numbers read with their column's header ("Algorithm 1"); called once
    the columns are found (a label with words and a number looks like a row's label and its value)."""
    heads = {id(u): _header(rows, u) for u in labels if is_value(u.text)}
    for u in labels:
        if heads.get(id(u)):
            u.text = f"{heads[id(u)]} {u.text}"
