"""Group labels beside a table's blocks of rows (:func:`core.hub.pdf.rowgroups.spread`)."""

from __future__ import annotations

from core.hub.pdf.cells import Unit
from core.hub.pdf.layout import Line
from core.hub.pdf.rowgroups import spread


def _row(base: float, *cells: tuple[float, str]) -> list[Unit]:
    out = []
    for x, text in cells:
        ln = Line(text=text, x0=x, x1=x + 6 * len(text), top=base - 8, bottom=base + 2, size=9, page=1, base=base)
        out.append(Unit(text, ln.x0, ln.x1, ln))
    return out


def test_a_lone_label_between_rows_that_hold_no_values_leaves_the_rows_as_they_are():
    """A short line between two rows of cells, left of them, where no row holds a value (a
    pseudo-code box read as cells): there are no blocks of value rows to label, so nothing
    changes. Before, the empty list of blocks raised IndexError and the whole PDF was unreadable."""
    rows = [_row(100, (100, "for all"), (160, "pairs do")), _row(110, (40, "end")),
            _row(120, (100, "return"), (160, "weights"))]
    assert spread(rows) == (rows, [])


def test_a_lone_label_beside_a_block_of_value_rows_is_put_in_each_row():
    rows = [_row(100, (100, "Model"), (200, "Acc")), _row(112, (100, "base"), (200, "0.81")),
            _row(118, (20, "Alg 1")), _row(124, (100, "ours"), (200, "0.86")),
            _row(150, (100, "base"), (200, "0.71")), _row(162, (100, "ours"), (200, "0.77"))]
    out, labels = spread(rows)
    assert {u.text for u in labels} == {"Alg 1"}
    firsts = {r[-1].text: r[0].text for r in out if len(r) >= 2}
    assert firsts["0.81"] == firsts["0.86"] == "Alg 1" and firsts["0.71"] == "base"
