"""A table's group label set once over several rows (a first column whose label sits vertically
centred beside its block of rows, the blocks set apart by a wider gap) names every row of its
block: ``| Method 2 | Split: dev | … |``. Before, the lone label lines read as a table of their own
("| Method: 1 |") and the rows did not say which group they belong to."""

from __future__ import annotations

from core.hub.readers import read_document
from tests.hub.pdfgen import LEFT, MID, Paper, filler_lines, table

PITCH, GAP = 12, 15  # rows inside a block, and between blocks


def _blocks(tmp_path, label_x: float = 100, labels=("1", "2", "3"), on_row: bool = False):
    """A paper with one table: a header row, a row with its own label ("Baseline"), then three
    blocks of rows, each with one group label set between its rows (not on any row's baseline);
    ``on_row``: the middle block's label sits on its middle row's baseline instead."""
    paper = Paper().page()
    paper.line("A Study of Grouped Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    y = 230
    rows = [(y, [(90, "Method"), (160, "Split"), (250, "Size"), (350, "Score")])]
    y += PITCH
    rows.append((y, [(90, "Baseline"), (160, "dev"), (250, "12"), (350, "0.61")]))
    lone = []
    for k, label in enumerate(labels):
        y += GAP
        block = []
        for split in ("train", "dev", "test")[: 2 + k % 2]:
            block.append((y, [(160, split), (250, f"{k + 3}{len(block)}"), (350, f"0.{7 + k}{len(block)}")]))
            y += PITCH
        y -= PITCH
        off = 0 if on_row else PITCH / 2 if len(block) % 2 else 0
        lone.append(((block[0][0] + block[-1][0]) / 2 + off, [(label_x, label)]))
        rows += block
    table(paper, rows + lone)
    paper.line("Table 3: Scores of each method on each split.", LEFT, y + 25, 9)
    paper.lines(filler_lines(4), LEFT, y + 50)
    paper.lines(filler_lines(4), MID + 20, y + 50)
    return read_document(paper.save(tmp_path / "groups.pdf")).blocks


def test_a_group_label_between_its_rows_names_each_row_of_its_block(tmp_path):
    tables = [b for b in _blocks(tmp_path) if b.kind == "table"]
    assert len(tables) == 1, [b.text for b in tables]
    lines = tables[0].text.splitlines()
    assert lines[0] == "| Baseline | Split: dev | Size: 12 | Score: 0.61 |"
    assert lines[1:] == [
        "| Method 1 | Split: train | Size: 30 | Score: 0.70 |",
        "| Method 1 | Split: dev | Size: 31 | Score: 0.71 |",
        "| Method 2 | Split: train | Size: 40 | Score: 0.80 |",
        "| Method 2 | Split: dev | Size: 41 | Score: 0.81 |",
        "| Method 2 | Split: test | Size: 42 | Score: 0.82 |",
        "| Method 3 | Split: train | Size: 50 | Score: 0.90 |",
        "| Method 3 | Split: dev | Size: 51 | Score: 0.91 |",
    ]


def test_a_word_group_label_keeps_its_own_name(tmp_path):
    """A label that is a word ("Pooled") is the row's name as it is, not prefixed by the column."""
    tables = [b for b in _blocks(tmp_path, labels=("Pooled", "Stacked", "Mixed")) if b.kind == "table"]
    assert len(tables) == 1, [b.text for b in tables]
    lines = tables[0].text.splitlines()
    assert "| Pooled | Split: dev | Size: 31 | Score: 0.71 |" in lines
    assert "| Stacked | Split: test | Size: 42 | Score: 0.82 |" in lines
    assert "| Mixed | Split: train | Size: 50 | Score: 0.90 |" in lines


def test_a_group_label_on_a_rows_baseline_names_its_whole_block(tmp_path):
    """A block of three rows has its label centred on the middle row's baseline: read with that
    row, it still names the row above it, not the group before."""
    tables = [b for b in _blocks(tmp_path, on_row=True) if b.kind == "table"]
    assert len(tables) == 1, [b.text for b in tables]
    lines = tables[0].text.splitlines()
    assert lines[3:6] == [
        "| Method 2 | Split: train | Size: 40 | Score: 0.80 |",
        "| Method 2 | Split: dev | Size: 41 | Score: 0.81 |",
        "| Method 2 | Split: test | Size: 42 | Score: 0.82 |",
    ]
    assert lines[6] == "| Method 3 | Split: train | Size: 50 | Score: 0.90 |"


def test_rows_evenly_spaced_are_left_as_they_are(tmp_path):
    """Without wider gaps between blocks, which rows a lone label names is not clear: no row
    takes it (the label lines keep their old reading)."""
    global GAP
    old, GAP = GAP, PITCH
    try:
        tables = [b for b in _blocks(tmp_path) if b.kind == "table"]
    finally:
        GAP = old
    assert not any("Method 1 |" in b.text for b in tables)
    assert any("| dev | Size: 31 | Score: 0.71 |" in b.text for b in tables)
