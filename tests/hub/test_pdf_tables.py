"""Tables in PDFs rebuilt row by row (core.hub.pdf.grid), one kind of table a test, each drawn
here at known positions (tests/hub/pdfgen.py): the header names over a stub column, header cells
over two lines, a spanning header, two label columns with a group label over two lines, a row
label over two lines, values set close together and with deviations, ratios that look like
equations, two tables side by side and two tables one above the other, each under its caption."""

from __future__ import annotations

from core.hub.pdf.layout import Line
from core.hub.pdf.tablerows import table_row
from core.hub.readers import read_document
from tests.hub.pdfgen import BODY, LEFT, MID, Paper, filler_lines, table


def paper_with(rows, caption: str, tmp_path, name: str = "t.pdf", y_caption: float = 0) -> list:
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    table(paper, rows)
    last = max(y for y, _ in rows)
    paper.line(caption, LEFT, y_caption or last + 24, 9)
    paper.lines(filler_lines(3), LEFT, (y_caption or last + 24) + 30)
    return [b for b in read_document(paper.save(tmp_path / name)).blocks if b.kind == "table"]


def test_header_over_a_stub_column_names_the_values(tmp_path):
    """The measures in the first column, the systems in a header row whose first cell is empty."""
    rows = [(230, [(250, "Baseline"), (350, "Ours")]),
            (244, [(LEFT, "Precision"), (250, "0.61"), (350, "0.78")]),
            (258, [(LEFT, "Recall"), (250, "0.42"), (350, "0.66")])]
    blocks = paper_with(rows, "Table 1: Scores of both systems.", tmp_path)
    assert [b.path[-1] for b in blocks] == ["Table 1: Scores of both systems."]
    assert blocks[0].text.splitlines() == ["| Precision | Baseline: 0.61 | Ours: 0.78 |",
                                           "| Recall | Baseline: 0.42 | Ours: 0.66 |"]


def test_header_cells_over_two_lines_are_joined(tmp_path):
    rows = [(230, [(LEFT, "Method"), (250, "Hamming"), (350, "Rank")]),
            (240, [(250, "loss"), (350, "loss")]),
            (254, [(LEFT, "Boosting"), (250, "0.183 ± 0.020"), (350, "0.189 ± 0.016")]),
            (268, [(LEFT, "Metric learning"), (250, "0.137 ± 0.010"), (350, "0.150 ± 0.017")])]
    blocks = paper_with(rows, "Table 2: Losses of the methods.", tmp_path)
    assert blocks[0].text.splitlines() == [
        "| Boosting | Hamming loss: 0.183 ± 0.020 | Rank loss: 0.189 ± 0.016 |",
        "| Metric learning | Hamming loss: 0.137 ± 0.010 | Rank loss: 0.150 ± 0.017 |"]


def test_spanning_header_and_a_group_label_over_two_lines(tmp_path):
    """A header over two columns each, a second header row under it, two label columns whose
    first names a group of rows (empty below its first row, or hyphenated over two rows)."""
    xs = (230, 280, 350, 400)
    rows = [(230, [(235, "Clean"), (355, "Noisy")]),
            (242, [(x, h) for x, h in zip(xs, ("P", "R", "P", "R"))]),
            (256, [(LEFT, "Supervised"), (140, "CRF")] + [(x, v) for x, v in zip(xs, ("91.0", "82.5", "71.2", "60.3"))]),
            (268, [(140, "MaxEnt")] + [(x, v) for x, v in zip(xs, ("88.1", "80.0", "69.9", "58.4"))]),
            (280, [(LEFT, "Un-"), (140, "CRF")] + [(x, v) for x, v in zip(xs, ("79.4", "70.1", "61.8", "50.2"))]),
            (292, [(LEFT, "supervised"), (140, "MaxEnt")] + [(x, v) for x, v in zip(xs, ("77.7", "68.0", "60.0", "49.9"))])]
    blocks = paper_with(rows, "Table 3: F-scores by training scenario.", tmp_path)
    assert blocks[0].text.splitlines() == [
        "| Supervised CRF | Clean P: 91.0 | Clean R: 82.5 | Noisy P: 71.2 | Noisy R: 60.3 |",
        "| Supervised MaxEnt | Clean P: 88.1 | Clean R: 80.0 | Noisy P: 69.9 | Noisy R: 58.4 |",
        "| Unsupervised CRF | Clean P: 79.4 | Clean R: 70.1 | Noisy P: 61.8 | Noisy R: 50.2 |",
        "| Unsupervised MaxEnt | Clean P: 77.7 | Clean R: 68.0 | Noisy P: 60.0 | Noisy R: 49.9 |"]


def test_a_row_label_over_two_lines_with_its_value_between_them(tmp_path):
    rows = [(230, [(LEFT, "Measure"), (250, "Score")]),
            (244, [(LEFT, "Precision"), (250, "87.46%")]),
            (258, [(LEFT, "Non-identical word preci-")]),
            (263, [(250, "76.99%")]),
            (268, [(LEFT, "sion")]),
            (282, [(LEFT, "Recall"), (250, "89.52%")])]
    blocks = paper_with(rows, "Table 4: Alignment quality.", tmp_path)
    assert blocks[0].text.splitlines() == ["| Precision | Score: 87.46% |",
                                           "| Non-identical word precision | Score: 76.99% |",
                                           "| Recall | Score: 89.52% |"]


def test_values_set_close_together_are_separate_cells_and_deviations_stay_whole(tmp_path):
    """Two values a few points apart read as one line by the layout; split at the column gap,
    with their parenthesised share kept."""
    rows = [(230, [(200, "Founded"), (262, "Merged")]),
            (244, [(LEFT, "Patterns"), (200, "0.633"), (262, "0.852")]),
            (258, [(LEFT, "Language model"), (200, "0.907 (19%)"), (255, "0.781 (27%)")])]
    blocks = paper_with(rows, "Table 5: Area under the curve.", tmp_path)
    assert blocks[0].text.splitlines() == ["| Patterns | Founded: 0.633 | Merged: 0.852 |",
                                           "| Language model | Founded: 0.907 (19%) | Merged: 0.781 (27%) |"]


def test_ratios_that_look_like_equations_stay_a_table(tmp_path):
    rows = [(230, [(LEFT, "Method"), (200, "Small set"), (330, "Large set")]),
            (244, [(LEFT, "Phrasal"), (200, "54 / 59 = 91.5%"), (330, "177 / 200 = 89.5%")]),
            (258, [(LEFT, "Lexical"), (200, "23 / 59 = 39.0%"), (330, "25 / 59 = 37.9%")])]
    paper_blocks = paper_with(rows, "Table 6: Acceptable outputs.", tmp_path)
    assert paper_blocks[0].text.splitlines() == [
        "| Phrasal | Small set: 54 / 59 = 91.5% | Large set: 177 / 200 = 89.5% |",
        "| Lexical | Small set: 23 / 59 = 39.0% | Large set: 25 / 59 = 37.9% |"]


def test_two_tables_side_by_side_each_under_its_caption(tmp_path):
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    paper.line("Table 1: Accuracy.", LEFT, 226, 9)
    paper.line("Table 2: Errors.", 330, 226, 9)
    table(paper, [(240, [(LEFT, "Method"), (180, "Accuracy"), (330, "Method"), (420, "Error"), (480, "Loss")]),
                  (254, [(LEFT, "DD"), (180, "0.676"), (330, "Boost"), (420, "0.282"), (480, "0.584")]),
                  (268, [(LEFT, "C2B"), (180, "0.797"), (330, "SVM"), (420, "0.271"), (480, "0.581")])])
    paper.lines(filler_lines(3), LEFT, 300)
    blocks = [b for b in read_document(paper.save(tmp_path / "side.pdf")).blocks if b.kind == "table"]
    assert [(b.path[-1], b.text.splitlines()) for b in blocks] == [
        ("Table 1: Accuracy.", ["| DD | Accuracy: 0.676 |", "| C2B | Accuracy: 0.797 |"]),
        ("Table 2: Errors.", ["| Boost | Error: 0.282 | Loss: 0.584 |", "| SVM | Error: 0.271 | Loss: 0.581 |"])]


def test_two_tables_one_above_the_other_each_under_its_caption(tmp_path):
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    table(paper, [(230, [(LEFT, "System"), (250, "BLEU")]), (244, [(LEFT, "Baseline"), (250, "25.9")])])
    paper.line("Table 1: Translation quality.", LEFT, 262, 9)
    table(paper, [(282, [(LEFT, "System"), (250, "Hours")]), (296, [(LEFT, "Baseline"), (250, "12.5")])])
    paper.line("Table 2: Training time.", LEFT, 314, 9)
    paper.lines(filler_lines(3), LEFT, 340)
    blocks = [b for b in read_document(paper.save(tmp_path / "stack.pdf")).blocks if b.kind == "table"]
    assert [(b.path[-1], b.text) for b in blocks] == [("Table 1: Translation quality.", "| Baseline | BLEU: 25.9 |"),
                                                      ("Table 2: Training time.", "| Baseline | Hours: 12.5 |")]


def test_a_paragraph_continues_after_a_table_set_inside_it(tmp_path):
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(2) + ["The largest gain comes from the retrieval step of the pipe-"], LEFT, 170)
    table(paper, [(220, [(LEFT, "System"), (250, "BLEU")]), (234, [(LEFT, "Baseline"), (250, "25.9")])])
    paper.lines(["line, which the ablation confirms.", *filler_lines(2)], LEFT, 260)
    doc = read_document(paper.save(tmp_path / "inside.pdf"))
    body = " ".join(b.text for b in doc.blocks if b.kind == "body")
    assert "The largest gain comes from the retrieval step of the pipeline, which the ablation confirms." in body
    assert [b.text for b in doc.blocks if b.kind == "table"] == ["| Baseline | BLEU: 25.9 |"]


def test_two_cells_set_close_in_aligned_rows_are_a_table(tmp_path):
    """A weight and its feature a few points apart, row after row at the same x."""
    rows = [(230, [(LEFT, "Weight"), (112, "Feature")]),
            (244, [(LEFT + 10, "1.16"), (112, "the extraction covers all words")]),
            (258, [(LEFT + 10, "0.50"), (112, "the last preposition is for")]),
            (272, [(LEFT + 10, "0.43"), (112, "the sentence has ten words or fewer")])]
    blocks = paper_with(rows, "Table 7: Features of the confidence function.", tmp_path)
    assert blocks[0].text.splitlines() == ["| the extraction covers all words | Weight: 1.16 |",
                                           "| the last preposition is for | Weight: 0.50 |",
                                           "| the sentence has ten words or fewer | Weight: 0.43 |"]


def test_lines_above_a_table_caption_that_start_with_values_stay_out_of_body_text(tmp_path):
    """A table set one line a row ("65% Correct relation phrase…") under a short title."""
    rows = [(230, [(100, "Errors of the system")]),
            (244, [(LEFT, "65% Correct relation phrase, incorrect arguments")]),
            (258, [(LEFT, "16% N-ary relation")]),
            (272, [(LEFT, "8% Non-contiguous relation phrase")])]
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    table(paper, rows, size=BODY)
    paper.line("Table 8: Most errors come from the arguments.", LEFT, 296, BODY)
    paper.lines(filler_lines(3), LEFT, 330)
    doc = read_document(paper.save(tmp_path / "lines.pdf"))
    body = " ".join(b.text for b in doc.blocks if b.kind == "body")
    assert "N-ary" not in body and "65%" not in body
    tables = [b for b in doc.blocks if b.kind == "table"]
    assert [b.path[-1] for b in tables] == ["Table 8: Most errors come from the arguments."]
    assert tables[0].text.splitlines() == ["| Errors of the system |", "| 65% Correct relation phrase, incorrect arguments |",
                                           "| 16% N-ary relation |", "| 8% Non-contiguous relation phrase |"]


def test_a_full_width_table_whose_long_cell_crosses_the_gutter_keeps_its_rows_whole(tmp_path):
    """On a two-column page, a row whose middle cell runs across the gutter is one table row,
    not three lines filed under the left column, the full width and the right column."""
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.page()
    paper.line("4 Translation", LEFT, 80, 12, bold=True)
    paper.lines(filler_lines(8, 40), LEFT, 100)
    paper.lines(filler_lines(8, 40), MID + 20, 100)
    table(paper, [(210, [(140, "Input"), (230, "Output"), (420, "Gold")]),
                  (222, [(140, "huge chest"), (230, "petto grande molto grande (big chest)"), (420, "scrigno immenso")]),
                  (234, [(140, "mortal sin"), (230, "peccato eterno e grave (eternal sin)"), (420, "peccato mortale")])])
    paper.line("Table 7: Translation examples.", 230, 256, 9)
    paper.lines(filler_lines(8, 40), LEFT, 280)
    paper.lines(filler_lines(8, 40), MID + 20, 280)
    tables = [b for b in read_document(paper.save(tmp_path / "gutter.pdf")).blocks if b.kind == "table"]
    assert [(b.path[-1], b.text.splitlines()) for b in tables] == [("Table 7: Translation examples.", [
        "| huge chest | Output: petto grande molto grande (big chest) | Gold: scrigno immenso |",
        "| mortal sin | Output: peccato eterno e grave (eternal sin) | Gold: peccato mortale |"])]


def test_a_table_beside_another_is_cut_at_the_gap_between_their_captions(tmp_path):
    """Rows that run under two captions set side by side, one text table and one of numbers."""
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    table(paper, [(230, [(LEFT, "Italian"), (170, "English"), (350, "Threshold"), (430, "Accuracy")]),
                  (244, [(LEFT, "cravatta (tie)"), (170, "nero (black)"), (350, "0.00"), (430, "0.21")]),
                  (258, [(LEFT, "legame (bond)"), (170, "sacro (sacred)"), (350, "0.55"), (430, "0.25")])])
    paper.line("Table 8: Translations of tie.", LEFT, 280, 9)
    paper.line("Table 9: Accuracy by threshold.", MID + 20, 280, 9)
    paper.lines(filler_lines(3), LEFT, 310)
    tables = [b for b in read_document(paper.save(tmp_path / "beside.pdf")).blocks if b.kind == "table"]
    assert [(b.path[-1], b.text.splitlines()) for b in tables] == [
        ("Table 8: Translations of tie.", ["| cravatta (tie) | English: nero (black) |",
                                           "| legame (bond) | English: sacro (sacred) |"]),
        ("Table 9: Accuracy by threshold.", ["| Threshold: 0.00 | Accuracy: 0.21 |", "| Threshold: 0.55 | Accuracy: 0.25 |"])]


def test_captions_set_above_their_tables_name_the_rows_below_them(tmp_path):
    """A paper that sets each table's caption above it: the rows under a caption are its own,
    even where the next table's caption sits closer below them. Whole numbers over a row of
    fractions name the columns."""
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    paper.line("Table 1: Runtime on one machine.", LEFT, 222, 9)
    table(paper, [(240, [(LEFT, "machines"), (250, "1"), (300, "2"), (350, "5")]),
                  (252, [(LEFT, "runtime (hours)"), (250, "17.2"), (300, "9.0"), (350, "4.1")])])
    paper.line("Table 2: Throughput on a cluster.", LEFT, 270, 9)
    table(paper, [(292, [(LEFT, "machines"), (250, "10"), (300, "20"), (350, "50")]),
                  (304, [(LEFT, "documents/hour"), (250, "47.6K"), (300, "45.9K"), (350, "40.3K")])])
    paper.lines(filler_lines(3), LEFT, 340)
    tables = [b for b in read_document(paper.save(tmp_path / "above.pdf")).blocks if b.kind == "table"]
    assert [(b.path[-1], b.text) for b in tables] == [
        ("Table 1: Runtime on one machine.", "| runtime (hours) | 1: 17.2 | 2: 9.0 | 5: 4.1 |"),
        ("Table 2: Throughput on a cluster.", "| documents/hour | 10: 47.6K | 20: 45.9K | 50: 40.3K |")]


def test_a_cell_left_of_its_tables_caption_stays_with_its_table(tmp_path):
    """A cell of the table set beside another that starts left of its caption still belongs to it
    (the cut sits midway between the captions)."""
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    paper.line("Table 1: Accuracy.", LEFT, 222, 9)
    paper.line("Table 2: Errors.", 345, 222, 9)
    rows = [(240, [(LEFT, "Method"), (200, "Accuracy"), (330, "Method"), (420, "Error"), (480, "Loss")]),
            (254, [(LEFT, "DD"), (200, "0.676"), (330, "DM"), (420, "0.282"), (480, "0.584")])]
    table(paper, rows)
    paper.pdf.set_font("Helvetica", "", 9)
    width = paper.pdf.get_string_width("M3")
    table(paper, [(268, [(LEFT, "M3"), (200, "0.832"), (330, "M3"), (420, "0.207"), (480, "0.512")])])
    for x in (LEFT, 330):
        paper.line("I", x + width + 0.3, 270.5, 5)  # a subscript mark, set smaller and lower
    paper.lines(filler_lines(3), LEFT, 300)
    tables = [b for b in read_document(paper.save(tmp_path / "mark.pdf")).blocks if b.kind == "table"]
    assert [(b.path[-1], b.text.splitlines()) for b in tables] == [
        ("Table 1: Accuracy.", ["| DD | Accuracy: 0.676 |", "| M3I | Accuracy: 0.832 |"]),
        ("Table 2: Errors.", ["| DM | Error: 0.282 | Loss: 0.584 |", "| M3I | Error: 0.207 | Loss: 0.512 |"])]


def test_pieces_of_one_name_read_as_separate_lines_count_as_one_cell():
    """PDFium may give a name and its raised mark as two lines ("M3", "I"): touching, they are one
    cell, so the row is not taken for an equation set in short pieces."""
    def cell(text: str, x0: float, x1: float) -> Line:
        return Line(text, x0, x1, 200, 207, 7, 1)

    row = [cell("M3", 114, 123), cell("I", 124, 126), cell("0.832 ± 0.029", 176, 226),
           cell("M3", 257, 266), cell("I", 267, 269), cell("0.207", 311, 326), cell("0.512", 352, 367)]
    assert table_row(row)


def test_a_last_row_whose_label_ran_into_its_first_value_is_kept_and_split(tmp_path):
    """The last row's label and first value set close enough to read as one line
    ("PROTO+SIM 79.1"), its values lined up with the values above it."""
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    paper.pdf.set_font("Helvetica", "", 9)
    first = LEFT + paper.pdf.get_string_width("PROTO+SIM") + 3  # the label ends 3 points before the value
    table(paper, [(230, [(LEFT, "Setting"), (first, "48K"), (first + 50, "193K")]),
                  (244, [(LEFT, "BASE"), (first, "42.2"), (first + 50, "41.3")]),
                  (258, [(LEFT, "PROTO"), (first, "61.9"), (first + 50, "68.8")]),
                  (272, [(LEFT, "PROTO+SIM"), (first, "79.1"), (first + 50, "80.5")])])
    paper.line("Table 1: Accuracy by setting.", LEFT, 296, 9)
    paper.lines(filler_lines(3), LEFT, 330)
    tables = [b for b in read_document(paper.save(tmp_path / "ran.pdf")).blocks if b.kind == "table"]
    assert [b.text.splitlines() for b in tables] == [["| BASE | 48K: 42.2 | 193K: 41.3 |",
                                                      "| PROTO | 48K: 61.9 | 193K: 68.8 |",
                                                      "| PROTO+SIM | 48K: 79.1 | 193K: 80.5 |"]]


def test_touching_pieces_of_one_cell_are_one_word():
    """A name read as two touching lines (a letter run and its raised mark) is one word in its cell
    ("M3I"), as the layout reads touching letters; pieces set apart stay separate words."""
    from core.hub.pdf.grid import rebuild

    def cell(text: str, x0: float, x1: float, top: float) -> Line:
        return Line(text, x0, x1, top, top + 7, 7, 1, base=top + 6)

    rows = [[cell("Method", 114, 138, 100), cell("Accuracy", 176, 206, 100)],
            [cell("C2B", 114, 126, 110), cell("-SC", 127.2, 137, 110), cell("0.820", 180, 200, 110)],
            [cell("M3", 114, 123, 120), cell("I", 124, 126, 120), cell("0.832", 180, 200, 120)],
            [cell("Multi", 114, 130, 130), cell("label", 134, 150, 130), cell("0.801", 180, 200, 130)]]
    assert rebuild(rows) == ["| C2B-SC | Accuracy: 0.820 |", "| M3I | Accuracy: 0.832 |",
                             "| Multi label | Accuracy: 0.801 |"]


def test_the_last_rows_of_a_table_that_runs_on_below_its_neighbour_stay_in_it(tmp_path):
    """Two tables side by side, the right one a row longer, and a heading opening the left column under
    the left table's two-line caption: the reading order reads the right table's last row after that
    heading, as a table of bare values. It joins its table, named after its columns."""
    paper = Paper().page()
    paper.line("A Study of Careful Tables", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Results", LEFT, 150, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 170)
    table(paper, [(230, [(LEFT, "Italian"), (170, "English"), (350, "Thr."), (420, "Accuracy"), (490, "Cov.")]),
                  (244, [(LEFT, "cravatta (tie)"), (170, "nero (black)"), (350, "0.00"), (420, "0.21"), (490, "100%")]),
                  (258, [(LEFT, "legame (bond)"), (170, "sacro (sacred)"), (350, "0.55"), (420, "0.25"), (490, "70%")]),
                  (272, [(350, "0.65"), (420, "0.45"), (490, "9%")])])
    paper.line("Table 9: Accuracy by confidence threshold.", MID + 20, 294, 9)
    paper.line("Table 8: Translations of tie into English", LEFT, 304, 9)
    paper.line("with their glosses.", LEFT, 316, 9)
    paper.line("2 Confidence and quality", LEFT, 350, 12, bold=True)
    paper.lines(filler_lines(10, 40), LEFT, 370)
    paper.lines(filler_lines(14, 40), MID + 20, 330)
    tables = [b for b in read_document(paper.save(tmp_path / "runs_on.pdf")).blocks if b.kind == "table"]
    assert [(b.path[-1], b.text.splitlines()) for b in tables] == [
        ("Table 8: Translations of tie into English with their glosses.",
         ["| cravatta (tie) | English: nero (black) |", "| legame (bond) | English: sacro (sacred) |"]),
        ("Table 9: Accuracy by confidence threshold.",
         ["| Thr.: 0.00 | Accuracy: 0.21 | Cov.: 100% |", "| Thr.: 0.55 | Accuracy: 0.25 | Cov.: 70% |",
          "| Thr.: 0.65 | Accuracy: 0.45 | Cov.: 9% |"])]
