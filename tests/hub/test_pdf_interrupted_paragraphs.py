"""Reader pdf-36: text drawn twice, a caption's label set apart by a justified gap, and the text that
follows a script on its baseline, each on a small paper drawn here (tests/hub/pdfgen.py). Seen in a
two-column paper's results page: a chart's labels read "AreaArea" and "REVERBREVERB", "Figure 3:" was an
empty caption whose text became a paragraph, and "… over REVERB¬lex" lost its full stop to a line of its
own, which ended the caption."""

from __future__ import annotations

from core.hub.readers import read_document
from tests.hub.pdfgen import BODY, LEFT, Paper, filler_lines
from tests.hub.test_pdf_reader import one_caption, text_of, titled


def _results(paper: Paper) -> float:
    paper.line("2 Results", LEFT, 260, 12, bold=True)
    return paper.lines(filler_lines(3), LEFT, 280)


def _mentions_figure_3(paper: Paper, y: float) -> None:
    """A paragraph under the caption that names it (the caption's "In the text" note)."""
    paper.lines(["As Figure 3 shows, the rule helps everywhere. " + filler_lines(1)[0], *filler_lines(2)], LEFT, y)


def test_text_drawn_twice_over_itself_is_read_once(tmp_path):
    """A chart's labels drawn a second time a third of a point off (a shadow, a fake bold) are read once;
    before, each of the chart's label columns came twice ("Osprey: parse | Osprey: parse"). Letters that
    merely repeat ("all small balloons", "Mississippi") stay as they are."""
    paper = titled(Paper())
    y = _results(paper)
    rows = [["Kestrel", "Osprey", "Heron", "Wren"], ["lex", "parse", "pos", "base"]]
    for dx in (0, 0.3):  # the whole chart, then again (PDFium itself drops a copy drawn right after)
        for r, cells in enumerate(rows):
            for c, label in enumerate(cells):
                paper.line(label, LEFT + 40 + 60 * c + dx, y + 30 + 8 * r, 6)
    paper.line("Figure 2: Kestrel outperforms the other extractors.", LEFT, y + 60, 9)
    paper.lines(["All small balloons drift over Mississippi, as the chart shows.", *filler_lines(2)], LEFT, y + 90)
    text = text_of(read_document(paper.save(tmp_path / "twice.pdf")))
    assert all(text.count(label) == 1 for label in ("Osprey", "Heron", "Wren", "parse", "base")), text
    assert "All small balloons drift over Mississippi" in text


def test_a_caption_label_set_apart_by_a_justified_gap_keeps_its_text(tmp_path):
    """"Figure 3:" then, two font sizes on, its first words: one caption, not an empty one and a paragraph."""
    paper = titled(Paper())
    y = _results(paper)
    paper.line("Figure 3:", LEFT, y + 30, BODY)
    paper.line("The lexical rule gives Kestrel a boost in precision", LEFT + 62, y + 30, BODY)
    paper.line("and recall over the plain Kestrel at every depth.", LEFT, y + 42, BODY)
    _mentions_figure_3(paper, y + 70)
    doc = read_document(paper.save(tmp_path / "gap.pdf"))
    one_caption(doc, "Figure 3: The lexical rule gives Kestrel a boost in precision and recall over the plain Kestrel",
                "lexical rule gives")


def test_the_text_after_a_raised_script_stays_on_its_line(tmp_path):
    """"… over Kestrel" with a raised "lex" and the full stop back on the baseline: the stop ends the
    caption's line, which goes on to the caption's next line (before, the stop was a line of its own and
    ended the caption: its second sentence became body text)."""
    paper = titled(Paper())
    y = _results(paper)
    paper.line("Figure 3: The lexical rule gives a boost over Kestrel", LEFT, y + 30, BODY)
    paper.pdf.set_font(paper.family, "", BODY)
    end = LEFT + paper.pdf.get_string_width("Figure 3: The lexical rule gives a boost over Kestrel")
    paper.line("lex", end + 0.5, y + 26, 7)
    paper.pdf.set_font(paper.family, "", 7)
    paper.line(".", end + 1.5 + paper.pdf.get_string_width("lex"), y + 30, BODY)
    paper.line("Osprey cannot learn the model that Kestrel uses.", LEFT, y + 42, BODY)
    _mentions_figure_3(paper, y + 70)
    doc = read_document(paper.save(tmp_path / "script.pdf"))
    cap = one_caption(doc, "Figure 3: The lexical rule gives a boost over Kestrellex.", "Osprey cannot learn")
    assert "Kestrellex. Osprey cannot learn the model that Kestrel uses." in cap, cap


def _drawn(spec: list[tuple[str, float]]) -> tuple[list[str], list, list[float]]:
    """Characters at (x) on one baseline, size 10, each 5 pt wide."""
    chars = [c for c, _ in spec]
    boxes = [(x, x + 5, 100.0, 107.0) for _, x in spec]
    return chars, boxes, [10.0] * len(spec)


def test_only_a_copied_run_is_dropped_not_one_letter_on_another_nor_a_ligatures_letters():
    from core.hub.pdf.layout import drop_overprints

    chars, boxes, sizes = _drawn([("a", 0), ("b", 6), ("c", 12), ("a", 0.3), ("b", 6.3), ("c", 12.3)])
    drop_overprints(chars, boxes, sizes)
    assert "".join(chars) == "abc"  # the second copy of a run
    chars, boxes, sizes = _drawn([("a", 0), ("b", 6), ("c", 12), ("a", 0.3), ("x", 30), ("y", 36)])
    drop_overprints(chars, boxes, sizes)
    assert "".join(chars) == "abcaxy"  # one letter over another: its neighbours are no copies
    chars, boxes, sizes = _drawn([("e", 0), ("f", 6), ("f", 6), ("i", 6), ("c", 12), ("f", 18), ("l", 18)])
    drop_overprints(chars, boxes, sizes)
    assert "".join(chars) == "efficfl"  # a ligature's letters share a box; their neighbours are no copies


def test_a_caption_line_set_in_small_capitals_stays_in_the_caption(tmp_path):
    """The caption's last line is a name in small capitals with a lowered part ("OSPREYparse"), then its
    full stop at the caption's size: the name came as a line of its own, smaller than the caption, and was
    filed as the figure's text ("… 38% higher than ." and "(In the figure: … OSPREYparse …)")."""
    paper = titled(Paper())
    y = _results(paper)
    paper.line("Figure 2: Kestrel outperforms the other extractors, with an AUC 38% higher than", LEFT, y + 30, BODY)
    paper.line("OSPREY", LEFT, y + 42, 7)
    paper.pdf.set_font(paper.family, "", 7)
    end = LEFT + paper.pdf.get_string_width("OSPREY")
    paper.line("parse", end, y + 44, 5)
    paper.pdf.set_font(paper.family, "", 5)
    paper.line(".", end + paper.pdf.get_string_width("parse") + 0.5, y + 45, BODY)
    _mentions_figure_3(paper, y + 70)
    doc = read_document(paper.save(tmp_path / "smallcaps.pdf"))
    cap = one_caption(doc, "Figure 2: Kestrel outperforms the other extractors", "Kestrel outperforms")
    assert "38% higher than OSPREYparse." in cap and "In the figure" not in cap, cap
