"""Section headings that used to be read into the running text (on small papers drawn here):
the heading becomes the breadcrumb and the paragraphs before and after it stay apart, so no
sentence reads "…on the Web 4 HERON This section introduces…"."""

from __future__ import annotations

from core.hub.readers import read_document
from tests.hub.pdfgen import BODY, LEFT, MID, Paper, filler_lines, heavy_weights


def titled(paper: Paper) -> Paper:
    paper.page().line("A Study of Careful Reading", 120, 80, 16, bold=True)
    paper.line("Ada Lovelace and Alan Turing", 200, 110, 12)
    paper.line("Abstract", 280, 150, 12, bold=True)
    paper.lines(filler_lines(4), LEFT, 170)
    return paper


def opened(heading: str, lines: list[str]) -> tuple[Paper, float]:
    """A titled paper whose section ``heading`` opens with ``lines`` of body; the baseline after them."""
    paper = titled(Paper())
    paper.line(heading, LEFT, 250, 12, bold=True)
    return paper, paper.lines(lines, LEFT, 270)


def sections(doc) -> dict[str, str]:
    """Body text by the last crumb of its block."""
    out: dict[str, str] = {}
    for b in doc.blocks:
        if b.kind == "body":
            out[b.path[-1]] = f"{out.get(b.path[-1], '')} {b.text}".strip()
    return out


def small_caps(paper: Paper, pieces: list[tuple[str, float]], x: float, y: float) -> None:
    """Draw a bold line piece by piece: full-size capitals and smaller ones (small capitals)."""
    for piece, size in pieces:
        paper.line(piece, x, y, size, bold=True)
        paper.pdf.set_font(paper.family, "B", size)
        x += paper.pdf.get_string_width(piece)


def test_a_numbered_heading_in_small_capitals_is_a_heading(tmp_path):
    """A heading set in small capitals has more small letters than full-size ones, so its most
    common letter size is below the body's; it is still a heading (its capitals are set larger),
    not a body line glued between the paragraph before it and the one after it."""
    paper, y = opened("3 Related Work", filler_lines(3) + ["this comes at the cost of lower precision on the Web"])
    # "4 HERON": "4 H" at 12 pt, "ERON" at 9 pt (a 10 pt body)
    small_caps(paper, [("4 H", 12), ("ERON", 9)], LEFT, y + 14)
    paper.lines(["This section introduces the parser, a careful reader of papers."] + filler_lines(3), LEFT, y + 34)
    doc = read_document(paper.save(tmp_path / "caps_heading.pdf"))
    secs = sections(doc)
    assert "4 HERON" in secs, list(secs)
    assert secs["4 HERON"].startswith("This section introduces the parser")
    assert secs["3 Related Work"].endswith("lower precision on the Web")
    assert not any("HERON" in b.text for b in doc.blocks if b.kind == "body")


def test_a_numbered_heading_ending_left_of_the_middle_on_a_one_column_page_is_a_heading(tmp_path):
    """On a one-column page no column ends at the page's middle: a bold numbered heading of five
    words that happens to be the longest line ending left of it is not a list item running to a
    column's edge."""
    paper, y = opened("1 Introduction", filler_lines(4) + ["and the chain mixes quickly."])
    paper.line("1.1 Sampling the hidden states twice", LEFT, y + 10, BODY, bold=True)
    paper.lines(["Each hidden state is drawn from its conditional given all the other states and data."] + filler_lines(4), LEFT, y + 26)
    doc = read_document(paper.save(tmp_path / "one_column.pdf"))
    paper.pdf.set_font(paper.family, "B", BODY)
    assert LEFT + paper.pdf.get_string_width("1.1 Sampling the hidden states twice") < MID  # ends left of the middle
    secs = sections(doc)
    assert "1.1 Sampling the hidden states twice" in secs, list(secs)
    assert secs["1.1 Sampling the hidden states twice"].startswith("Each hidden state is drawn")
    assert secs["1 Introduction"].endswith("and the chain mixes quickly.")


def test_a_numbered_list_item_running_to_the_column_edge_stays_body(tmp_path):
    """The rule the heading above must not break: a numbered line of five or more words that runs
    to its column's right edge (two columns) is a list item of the paragraph, not a heading."""
    paper = titled(Paper())
    paper.page()
    left = filler_lines(6, 40)
    paper.lines(["Our reader makes three steps:"] + left, LEFT, 90)
    paper.line("1 We read every line of the page in its order", LEFT, 90 + 12 * 7, BODY, bold=True)
    paper.lines(["and keep where it sits on the page."] + filler_lines(6, 40), LEFT, 90 + 12 * 8)
    paper.lines(filler_lines(16, 40), MID + 20, 90)
    doc = read_document(paper.save(tmp_path / "list.pdf"))
    assert not any(b.path[-1].startswith("1 We read") for b in doc.blocks)


def test_a_bold_numbered_heading_with_a_colon_is_a_heading(tmp_path):
    """A heading that names a thing and then says what it is ("2.1 QUOKKA: a query language")
    is a heading when set bold; a plain numbered line with "Input: a …" is not."""
    paper, y = opened("2 Background", filler_lines(3))
    paper.line("2.1 QUOKKA: a query language for maps", LEFT, y + 10, 11, bold=True)
    y = paper.lines(["A query names the places it asks about."] + filler_lines(3), LEFT, y + 26)
    paper.line("1 Input: a set of places", LEFT, y + 4)
    paper.lines(filler_lines(2), LEFT, y + 16)
    doc = read_document(paper.save(tmp_path / "colon.pdf"))
    secs = sections(doc)
    assert "2.1 QUOKKA: a query language for maps" in secs, list(secs)
    assert secs["2.1 QUOKKA: a query language for maps"].startswith("A query names the places")
    assert not any(b.path[-1].startswith("1 Input") for b in doc.blocks)


def test_two_columns_sharing_a_baseline_of_short_pieces_are_not_a_full_width_row(tmp_path):
    """A paragraph's short last line in the left column and a right-column line set in two pieces
    (a wide space after a footnote mark) share a baseline: three short pieces across the page's
    middle, like a full-width table's row. They are column lines (column prose runs right above
    and below on both sides), so the left column is still read to its end before the right column,
    and the right column's heading is not read into the left column's unfinished sentence."""
    paper = titled(Paper())
    paper.page()
    left = ["Left column opens with a sentence that"] + filler_lines(8, 40) + \
        ["goes on below the shared baseline.", "its text (see Section 5)."] + filler_lines(6, 40)
    paper.lines(left, LEFT, 90)
    shared = 90 + 12 * 10
    paper.line("5 Heron", MID + 20, 90, 12, bold=True)
    paper.lines(["Right column opens the next section."] + filler_lines(7, 40), MID + 20, 108)
    paper.line("extraction triples.", MID + 20, shared)
    paper.line("Given the sentence", MID + 130, shared)
    paper.lines(filler_lines(7, 40), MID + 20, shared + 12)
    doc = read_document(paper.save(tmp_path / "shared_baseline.pdf"))
    text = " ".join(b.text for b in doc.blocks)
    assert text.index("Left column opens") < text.index("its text (see Section 5).") \
        < text.index("Right column opens")
    secs = sections(doc)
    assert "5 Heron" in secs and "goes on below the shared baseline." not in secs["5 Heron"]


def test_a_footnote_set_at_body_size_is_not_glued_to_the_body(tmp_path):
    """A footnote set as large as the body, opened by a raised smaller mark a line and a half
    below the column's last line, is a footnote: not "…the last words.5Parsers are not the only
    way…" in the body text."""
    paper, y = opened("1 Introduction", filler_lines(30) + ["and the column ends with these words."])
    paper.line("5", LEFT, y + 6, 6)
    paper.line("Parsers are not the only way to read a paper; readers also skim.", LEFT + 4, y + 10)
    paper.line("A second line of the same footnote follows here.", LEFT, y + 21)
    paper.page()
    paper.lines(["The next page goes on with the body."] + filler_lines(4), LEFT, 90)
    doc = read_document(paper.save(tmp_path / "body_size_note.pdf"))
    body = " ".join(b.text for b in doc.blocks if b.kind == "body")
    notes = " ".join(b.text for b in doc.blocks if b.kind == "footnote")
    assert "Parsers are not the only way" in notes and "A second line of the same footnote" in notes
    assert "Parsers are not" not in body and "same footnote" not in body
    assert body.index("the column ends with these words.") < body.index("The next page goes on")


def test_a_line_opening_with_a_mark_inside_a_paragraph_stays_body(tmp_path):
    """A footnote mark at the start of a line inside a paragraph (no gap above it) is the body's."""
    paper, y = opened("1 Introduction", filler_lines(30) + ["and the tokens are contiguous."])
    paper.line("6", LEFT, y - 4, 6)
    paper.line("We gathered all pairs of phrases from the aligned data.", LEFT + 4, y)
    paper.lines(filler_lines(2), LEFT, y + 12)
    doc = read_document(paper.save(tmp_path / "mark_in_body.pdf"))
    body = " ".join(b.text for b in doc.blocks if b.kind == "body")
    assert "We gathered all pairs of phrases" in body
    assert not [b for b in doc.blocks if b.kind == "footnote"]


def headed(paper: Paper, head: str, lines: list[str], y: float, x: float = LEFT) -> float:
    """A bold line of its own at ``(x, y)``, then ``lines`` of body from the next line; the baseline after them."""
    paper.line(head, x, y, BODY, bold=True)
    return paper.lines(lines, LEFT, y + 12)


def runin(paper: Paper, head: str, rest: str, y: float) -> None:
    """A paragraph that opens with a bold run-in heading, then regular text on the same line."""
    paper.line(head, LEFT, y, BODY, bold=True)
    paper.pdf.set_font(paper.family, "B", BODY)
    paper.line(rest, LEFT + paper.pdf.get_string_width(head + " "), y, BODY)


def test_a_run_in_heading_is_a_breadcrumb_not_the_start_of_a_sentence(tmp_path):
    """A paragraph heading set bold at the start of the paragraph's first line, without a period
    ("Decoding We decode…"), is the paragraph's breadcrumb under its section, and the sentence
    opens with its own first word; the next run-in heading replaces it."""
    paper, y = opened("3 Method", filler_lines(2))
    runin(paper, "Decoding", "We decode each sentence from left to right with a beam.", y)
    y = paper.lines(filler_lines(2), LEFT, y + 12)
    runin(paper, "Beam pruning", "The beam keeps the ten best partial sentences.", y)
    y = paper.lines(filler_lines(2), LEFT, y + 12)
    runin(paper, "Acknowledgments", "We thank the careful readers of the draft.", y)
    doc = read_document(paper.save(tmp_path / "runin.pdf"))
    paths = {b.path[-1]: b.path[1:] for b in doc.blocks if b.kind == "body"}
    assert paths.get("Decoding") == ["3 Method", "Decoding"], paths
    assert paths.get("Beam pruning") == ["3 Method", "Beam pruning"], paths
    assert paths.get("Acknowledgments") == ["3 Method", "Acknowledgments"], paths
    secs = sections(doc)
    assert secs["Decoding"].startswith("We decode each sentence")
    assert secs["Beam pruning"].startswith("The beam keeps")
    body = " ".join(b.text for b in doc.blocks if b.kind == "body")
    assert "Decoding We" not in body and "Beam pruning The" not in body and "Acknowledgments We" not in body


def test_a_regular_font_whose_descriptor_says_heavy_is_not_bold(tmp_path):
    """Some PDFs give their regular Times-Roman a font descriptor as heavy as their Times-Bold (PDFium
    reports 792 and 800): a font whose name states its style is read by its name, so a bold heading
    line and a run-in heading still stand apart from the regular body."""
    paper, y = opened("3 Implementation", ["The workers run the map tasks on their local disks and report to the master",
                                           "when they finish a task, so the library must tolerate machine failures."])
    y = headed(paper, "Worker Failure", ["The master pings every worker periodically and marks the silent ones as failed.",
                                         *filler_lines(2)], y)
    runin(paper, "Decoding", "We decode each sentence from left to right with a beam.", y)
    paper.lines(filler_lines(2), LEFT, y + 12)
    doc = read_document(heavy_weights(paper.save(tmp_path / "heavy.pdf")))
    paths = {b.path[-1]: b.path[1:] for b in doc.blocks if b.kind == "body"}
    assert paths.get("Worker Failure") == ["3 Implementation", "Worker Failure"], paths
    assert paths.get("Decoding") == ["3 Implementation", "Decoding"], paths
    secs = sections(doc)
    assert secs["Worker Failure"].startswith("The master pings every worker")
    body = " ".join(b.text for b in doc.blocks if b.kind == "body")
    assert "Worker Failure The" not in body and "Decoding We" not in body


def test_a_bold_line_of_its_own_after_a_finished_sentence_heads_the_paragraphs_under_it(tmp_path):
    """Unnumbered bold words on a line of their own after a paragraph's last sentence are the crumb of
    what follows, until the next such line; the same bold words closing an unfinished sentence, or
    holding a number, stay the paragraph's."""
    paper, y = opened("3 Implementation", ["The workers run the map tasks on their local disks and report to the master",
                                           "when they finish a task."])
    y = headed(paper, "Master Failure", ["The master writes periodic checkpoints of its data structures to disk.",
                                         "A new copy starts from the last checkpointed state after a failure of the"], y)
    paper.line("Master Process", LEFT, y, BODY, bold=True)
    paper.line("Stage 2", LEFT, y + 12, BODY, bold=True)
    y = paper.lines(["The reduce workers read the intermediate files over the network."], LEFT, y + 24)
    y = headed(paper, "Y", ["The output is written to the global file system."], y)
    runin(paper, "Optimizing", "Mk. First we fix the weights and optimize the metric.", y)
    doc = read_document(paper.save(tmp_path / "own_line.pdf"))
    secs = sections(doc)
    assert set(secs) == {"3 Implementation", "Master Failure"}, secs
    assert secs["Master Failure"].startswith("The master writes periodic checkpoints")
    assert "failure of the Master Process" in secs["Master Failure"]
    assert "Stage 2" in secs["Master Failure"]
    assert "network. Y The output" in secs["Master Failure"]  # one bold letter is a symbol, not a heading
    assert "Optimizing Mk. First we fix" in secs["Master Failure"]  # "Mk." is no sentence of its own


def test_a_run_in_heading_may_be_followed_by_an_abbreviation(tmp_path):
    """"Fig. 3 shows …" opens a sentence: an abbreviation is no one-word sentence."""
    paper, y = opened("3 Method", filler_lines(2))
    runin(paper, "Architecture", "Fig. 3 shows the encoder and the decoder of the model.", y)
    doc = read_document(paper.save(tmp_path / "abbrev.pdf"))
    assert sections(doc).get("Architecture", "").startswith("Fig. 3 shows the encoder"), sections(doc)


def test_a_bold_label_a_bold_term_or_a_figure_label_alone_on_a_line_is_no_paragraph_heading(tmp_path):
    """A bold line alone is no paragraph heading when the line before ends in a colon (a label over a
    formula), when the line after goes on in lower case (a bold term is its sentence's subject), or
    when it is not flush with the paragraph before it (a figure's label)."""
    paper, y = opened("3 Assessing Trust", ["We call a trust function ideal if it has the following property for every page and",
                                            "every oracle we consider here, as follows:"])
    y = headed(paper, "Ideal Trust Property", ["The trust of a page equals the probability that the page is good.",
                                               "We compare the functions by their order of the pages."], y)
    y = headed(paper, "Precision", ["is the fraction of the pages above the threshold that are good pages."], y)
    headed(paper, "Encoder", ["The encoder reads the page and the decoder writes its label."], y, LEFT + 120)
    doc = read_document(paper.save(tmp_path / "labels.pdf"))
    secs = sections(doc)
    assert set(secs) == {"3 Assessing Trust"}, secs
    text = secs["3 Assessing Trust"]
    assert "as follows: Ideal Trust Property The trust" in text
    assert "pages. Precision is the fraction" in text
    assert "Encoder" in text


def test_a_paragraph_heading_after_a_displayed_equation_is_found(tmp_path):
    """The paragraph before the heading may hold a displayed equation: the body line that ends it is
    still the one the heading follows."""
    paper, y = opened("3 Learning", ["The network is trained to minimize the squared error of its output, namely"])
    paper.line("E = sum (y - x)^2", 200, y + 4)
    paper.line("(1)", 520, y + 4)
    y = paper.lines(["where the sum runs over every pixel of the image and its noisy copy."], LEFT, y + 24)
    headed(paper, "Learning to Denoise", ["The weights are learned by online gradient descent on noisy patches."], y)
    doc = read_document(paper.save(tmp_path / "after_display.pdf"))
    assert any(b.kind == "equation" for b in doc.blocks), [(b.kind, b.text) for b in doc.blocks]
    secs = sections(doc)
    assert secs.get("Learning to Denoise", "").startswith("The weights are learned"), secs


def test_bold_words_opening_a_line_that_are_no_heading_stay_body(tmp_path):
    """A bold run ended by a colon, holding a number, or followed by a lower-case word is no run-in
    heading: the line stays the paragraph's."""
    paper, y = opened("3 Method", filler_lines(2))
    runin(paper, "Outline:", "We begin with an overview of the method.", y)
    runin(paper, "Algorithm 1", "State synchronization across the machines.", y + 12)
    runin(paper, "Topic counts", "for each document are kept in memory.", y + 24)
    doc = read_document(paper.save(tmp_path / "not_runin.pdf"))
    assert {b.path[-1] for b in doc.blocks if b.kind == "body"} == {"3 Method"}
    secs = sections(doc)
    assert "Outline: We begin with an overview" in secs["3 Method"]
    assert "Topic counts for each document" in secs["3 Method"]


def test_a_heading_whose_number_is_set_apart_by_a_tab_is_a_heading(tmp_path):
    """A word processor sets a tab between a heading's number and its title ("3.4<tab>Pruning the
    lattice"): a gap wider than a word space, so the two arrive as pieces of their own. Side by side
    with another heading on the same baseline (the other column's "3 Experiments") they read as a
    table row of cells; they are two headings, and the text under each is filed under it."""
    paper = titled(Paper())
    paper.page()
    y = paper.lines(filler_lines(8, 40), LEFT, 90)
    paper.lines(filler_lines(8, 40), MID, 90)
    paper.line("2.3", LEFT, y + 10, BODY, bold=True)
    paper.pdf.set_font(paper.family, "B", BODY)
    paper.line("Pruning the lattice", LEFT + paper.pdf.get_string_width("2.3") + 2.5 * BODY, y + 10, BODY, bold=True)
    paper.line("3", MID, y + 10, BODY, bold=True)
    paper.line("Experiments", MID + paper.pdf.get_string_width("3") + 2.5 * BODY, y + 10, BODY, bold=True)
    paper.lines(["Each lattice is pruned to its best paths before decoding."] + filler_lines(6, 40), LEFT, y + 26)
    paper.lines(["We test the system on two news corpora of equal size."] + filler_lines(6, 40), MID, y + 26)
    doc = read_document(paper.save(tmp_path / "tab_heading.pdf"))
    secs = sections(doc)
    assert "2.3 Pruning the lattice" in secs and "3 Experiments" in secs, list(secs)
    assert secs["2.3 Pruning the lattice"].startswith("Each lattice is pruned")
    assert secs["3 Experiments"].startswith("We test the system")
    assert not [b for b in doc.blocks if b.kind == "table"], [b.text for b in doc.blocks if b.kind == "table"]


def test_a_bold_table_row_of_a_number_a_name_and_a_score_is_no_heading(tmp_path):
    """The tab rule's limit: a bold row of a table ("2   Sparse   71.4", the best result set bold) has a
    third piece as close on its baseline, so its number and name stay cells, not a heading "2 Sparse"."""
    paper, y = opened("4 Results", filler_lines(3))
    paper.pdf.set_font(paper.family, "B", BODY)
    for i, (rank, name, score) in enumerate((("1", "Dense", "68.0"), ("2", "Sparse", "71.4"), ("3", "Local", "66.9"))):
        x = LEFT
        for cell in (rank, name, score):
            paper.line(cell, x, y + 16 + 14 * i, BODY, bold=(rank == "2"))
            x += paper.pdf.get_string_width(cell) + 2.5 * BODY
    paper.lines(["The sparse model is best on every split."] + filler_lines(3), LEFT, y + 70)
    doc = read_document(paper.save(tmp_path / "bold_row.pdf"))
    tables = " ".join(b.text for b in doc.blocks if b.kind == "table")
    assert "| Sparse | 71.4 |" in tables and "2 Sparse" not in tables, tables
    assert not any("2 Sparse" in " > ".join(b.path) for b in doc.blocks), [b.path for b in doc.blocks]


def test_a_font_name_says_bold_or_not_where_it_states_its_style():
    """The name decides where it says (PDFium's forms: a subset prefix, a "~1e" suffix, ",Bold"); a
    name that says nothing leaves it to the font's weight (None)."""
    from core.hub.pdf.layout import bold_by_name

    bold = ["Times-Bold~1e", "ABCDEF+CMBX10", "Arial,Bold", "Arial-BoldMT", "NimbusRomNo9L-Medi", "Bookman-Demi",
            "AvantGarde-DemiOblique", "LMRomanDemi10-Regular", "Arial-Black"]
    regular = ["Times-Roman~18", "ABCDEF+CMR10", "CMMI10", "CMSY7", "CMEX10", "Courier~2c", "Helvetica", "ArialMT",
               "NimbusRomNo9L-Regu", "Helvetica-Oblique", "NotoSansCJKsc-DemiLight", "Times-Italic"]
    assert [n for n in bold if bold_by_name(n) is not True] == []
    assert [n for n in regular if bold_by_name(n) is not False] == []
    assert bold_by_name("DejaVuSans") is None and bold_by_name("ABCDEF+Calibri") is None and bold_by_name("") is None


def test_a_paragraph_heading_wrapped_onto_the_line_its_text_starts_on_is_read_whole(tmp_path):
    """A bold heading on a line of its own whose last word wraps onto the next line, where the regular
    text begins ("Semantics in the Presence of" / "Failures When the user …"), is one crumb."""
    paper, y = opened("3 Implementation", ["The workers run the map tasks on their local disks and report to the master",
                                           "when they finish a task."])
    paper.line("Semantics in the Presence of", LEFT, y, BODY, bold=True)
    runin(paper, "Failures", "When the user code is deterministic, the output is the same.", y + 12)
    paper.lines(filler_lines(2), LEFT, y + 24)
    doc = read_document(paper.save(tmp_path / "wrapped.pdf"))
    secs = sections(doc)
    assert set(secs) == {"3 Implementation", "Semantics in the Presence of Failures"}, secs
    assert secs["Semantics in the Presence of Failures"].startswith("When the user code is deterministic")
