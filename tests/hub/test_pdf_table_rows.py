"""A wide table's row that the page's column cut read as two pieces is joined again: on a
two-column page, a row whose values were set close together reads as one long run of values on
each side of the gutter; the run on the right shares the row's baseline and comes back into it
(core.hub.pdf.clean: a labelled row's run of values counts as a short cell), instead of becoming a
body paragraph of bare numbers. And a typeset dash inside a name ("SSK–T1") reads as the hyphen
a question types, in a table's header as in body text; a dash between digits (a range) stays."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.hub.readers import read_document
from tests.hub.pdfgen import LEFT, MID, Paper, filler_lines, table

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
COLS = (170, 216, 334, 380, 426)  # where the runs of values below put each value


def _paper(tmp_path, last_right: str):
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.page()
    paper.line("3 Results", LEFT, 80, 12, bold=True)
    paper.lines(filler_lines(8, 40), LEFT, 100)
    paper.lines(filler_lines(8, 40), MID + 20, 100)
    rows = [(210, [(90, "Method")] + list(zip(COLS, ("Alpha", "Beta", "Gamma", "Delta", "Mean")))),
            (222, [(90, "Baseline")] + list(zip(COLS, ("0.70", "0.58", "0.40", "0.74", "0.60")))),
            (234, [(90, "Pooled")] + list(zip(COLS, ("0.88", "0.63", "0.65", "0.85", "0.78"))))]
    table(paper, rows)
    paper.line("Ours", 90, 246, 9)
    paper.line("0.91 (19%) 0.78 (27%)", COLS[0], 246, 9)  # set close: one run of values a side
    paper.line(last_right, COLS[2], 246, 9)
    paper.line("Table 2: Area under the curve for each method and relation.", LEFT, 270, 9)
    paper.lines(filler_lines(8, 40), LEFT, 300)
    paper.lines(filler_lines(8, 40), MID + 20, 300)
    return read_document(paper.save(tmp_path / "wide.pdf")).blocks


def test_the_rest_of_a_wide_row_past_the_gutter_joins_its_row(tmp_path):
    blocks = _paper(tmp_path, "0.81 (35%) 0.90 (38%) 0.85 (39%)")
    tables = [b for b in blocks if b.kind == "table"]
    assert len(tables) == 1 and tables[0].path[-1].startswith("Table 2: Area under the curve")
    assert tables[0].text.splitlines()[-1] == (
        "| Ours | Alpha: 0.91 (19%) | Beta: 0.78 (27%) | Gamma: 0.81 (35%) | Delta: 0.90 (38%) | Mean: 0.85 (39%) |")
    assert not any("0.81 (35%)" in b.text for b in blocks if b.kind != "table")


def test_words_past_the_gutter_on_a_rows_baseline_stay_body_text(tmp_path):
    """Only a run of values is a row's rest: words on that baseline are the right column's text."""
    blocks = _paper(tmp_path, "the right column goes on here with a few more words")
    assert all("right column goes on" not in b.text for b in blocks if b.kind == "table")
    assert any("right column goes on" in b.text for b in blocks if b.kind == "body")


@pytest.mark.skipif(not DEJAVU.is_file(), reason="needs the DejaVu Sans font to draw an en dash")
def test_a_dash_inside_a_name_reads_as_a_hyphen_and_a_range_keeps_its_dash(tmp_path):
    paper = Paper(font=str(DEJAVU)).page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(["We compare SSK\u2013MIL with the Kolmogorov\u2013Smirnov test on pages 3\u20135."] + filler_lines(2),
                LEFT, 170)
    table(paper, [(230, [(250, "SSK\u2013MIL"), (350, "SSK\u2013T1")]),
                  (242, [(100, "Corporate"), (250, "76.9%"), (350, "81.1%")]),
                  (254, [(100, "Birthplace"), (250, "72.5%"), (350, "78.2%")])])
    paper.line("Table 4: Area under the precision-recall curve.", LEFT, 280, 9)
    blocks = read_document(paper.save(tmp_path / "dash.pdf")).blocks
    rows = [b.text for b in blocks if b.kind == "table"]
    assert rows == ["| Corporate | SSK-MIL: 76.9% | SSK-T1: 81.1% |\n| Birthplace | SSK-MIL: 72.5% | SSK-T1: 78.2% |"]
    body = " ".join(b.text for b in blocks if b.kind == "body")
    assert "compare SSK-MIL with the Kolmogorov-Smirnov test on pages 3\u20135." in body


def test_a_header_cell_that_recurs_at_the_top_of_pages_is_the_tables_not_a_running_header(tmp_path):
    """Tables set at the top of three pages, each with "1-best" over its first value column: the
    word recurs in the top band like a running header, but it shares its row with other header
    cells, so it stays the column's name. The real running header (title and page number) goes."""
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(10), LEFT, 170)
    for n in (2, 3, 4):
        paper.page()
        paper.line("Careful Tables", 270, 40, 8)
        paper.line(str(n), 300, 760, 8)
        table(paper, [(62, [(250, "1-best"), (330, "oracle"), (410, "oracle")]),
                      (74, [(100, "System"), (250, "WER"), (330, "WCN"), (410, "lattice")]),
                      (86, [(100, "Baseline"), (250, f"4{n}.2"), (330, "39.7"), (410, "27.7")]),
                      (98, [(100, "Adapted"), (250, f"2{n}.6"), (330, "26.5"), (410, "16.5")])])
        paper.line(f"Table {n}: Word error rate by adaptation.", LEFT, 122, 9)
        paper.lines(filler_lines(10), LEFT, 150)
    blocks = read_document(paper.save(tmp_path / "top.pdf")).blocks
    rows = [b.text.splitlines()[-1] for b in blocks if b.kind == "table"]
    assert rows == [f"| Adapted | 1-best WER: 2{n}.6 | oracle WCN: 26.5 | oracle lattice: 16.5 |" for n in (2, 3, 4)]
    assert not any("Careful Tables" in b.text for b in blocks if b.kind in ("body", "table"))


def test_marks_set_small_after_a_value_stay_apart_from_its_digits(tmp_path):
    """A value with its significance marks in superscript ("28.81" then a small "123") reads
    "28.81 ^123", never the number 28.81123; a value without marks is unchanged."""
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    table(paper, [(230, [(250, "dev"), (350, "test")]),
                  (242, [(100, "Baseline"), (250, "26.09"), (350, "27.94")]),
                  (254, [(100, "Mixed"), (250, "26.80"), (350, "28.81")])])
    paper.pdf.set_font("Helvetica", "", 9)
    end = 350 + paper.pdf.get_string_width("28.81")
    paper.line("123", end + 0.3, 251, 6)
    paper.line("Table 2: BLEU on the development and test sets.", LEFT, 280, 9)
    rows = [b.text for b in read_document(paper.save(tmp_path / "marks.pdf")).blocks if b.kind == "table"]
    assert rows == ["| Baseline | dev: 26.09 | test: 27.94 |\n| Mixed | dev: 26.80 | test: 28.81 ^123 |"]


def test_acronyms_the_paper_defines_are_spelled_out_in_its_table_rows(tmp_path):
    """The prose defines "Word Error Rate (WER)" and "word confusion networks (WCNs)"; the table
    labels a row "WER" and a column "WCN": each row names the measure in words once, values stay
    as they are, and an acronym the paper never defines ("BLEU") is left alone."""
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(["We measure the Word Error Rate (WER) of each system and decode from word",
                 "confusion networks (WCNs) built from the lattices."] + filler_lines(2), LEFT, 170)
    table(paper, [(240, [(250, "1-best"), (350, "WCN"), (430, "BLEU")]),
                  (252, [(100, "WER"), (250, "47.2"), (350, "39.7"), (430, "21.0")]),
                  (264, [(100, "Oracle WER"), (250, "27.7"), (350, "26.5"), (430, "22.4")])])
    paper.line("Table 3: Error rates before and after adaptation.", LEFT, 290, 9)
    rows = [b.text for b in read_document(paper.save(tmp_path / "acr.pdf")).blocks if b.kind == "table"]
    assert rows == ["| WER (Word Error Rate) | 1-best: 47.2 | WCN (word confusion networks): 39.7 | BLEU: 21.0 |\n"
                    "| Oracle WER (Word Error Rate) | 1-best: 27.7 | WCN (word confusion networks): 26.5 | BLEU: 22.4 |"]



def test_a_word_hyphenated_over_a_captions_line_break_is_whole_in_the_rows_label(tmp_path):
    """The rows' breadcrumb (the caption shortened) joins the caption's lines as body text is: a
    word hyphenated over the line break reads whole ("corpus", not "cor pus")."""
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    table(paper, [(230, [(90, "Method"), (250, "Acc"), (350, "F1")]),
                  (242, [(90, "Baseline"), (250, "0.70"), (350, "0.58")]),
                  (254, [(90, "Pooled"), (250, "0.88"), (350, "0.63")])])
    paper.lines(["Table 2: Accuracy and F1 on the quokka cor-", "pus, averaged over five seeds."], LEFT, 280, 9, lead=11)
    paper.lines(filler_lines(4), LEFT, 330)
    blocks = read_document(paper.save(tmp_path / "caption.pdf")).blocks
    (rows,) = [b for b in blocks if b.kind == "table"]
    assert rows.path[-1] == "Table 2: Accuracy and F1 on the quokka corpus, averaged over five seeds."
