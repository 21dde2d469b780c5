"""Accents drawn as glyphs of their own (older TeX fonts set "ö" as an "o" with a "¨" placed over it):
the reader joins each to the letter it sits on, wherever the PDF's text order puts it."""

from __future__ import annotations

from core.hub.pdf.layout import _off_baseline, attach_accents, in_font
from core.hub.readers import read_document
from tests.hub.pdfgen import BODY, LEFT, Paper, filler_lines


def _over(paper: Paper, accent: str, before: str, letter: str, x: float, y: float, size: float) -> None:
    """Draw ``accent`` centred over ``letter``, which follows ``before`` in a word drawn at ``x``."""
    pdf = paper.pdf
    pdf.set_font(paper.family, "", size)
    at = x + pdf.get_string_width(before) + (pdf.get_string_width(letter) - pdf.get_string_width(accent)) / 2
    paper.line(accent, at, y, size)


def test_accents_drawn_apart_join_their_letters_in_title_byline_and_body(tmp_path):
    paper = Paper().page()
    paper.line("Combating Spam with Careful Reading", 120, 80, 16, bold=True)
    # the byline as an old TeX font draws it: "Gy", then the diaeresis, then "ongyi"; the acute of
    # "Zoltán" comes last, after the whole line
    y, x = 110, 200
    paper.line("Zoltan Gy", x, y, 12)
    paper.pdf.set_font(paper.family, "", 12)
    gy = x + paper.pdf.get_string_width("Zoltan Gy")
    _over(paper, "\u00a8", "", "o", gy, y, 12)
    paper.line("ongyi and Jan Pedersen", gy, y, 12)
    _over(paper, "\u00b4", "Zolt", "a", x, y, 12)
    paper.line("Abstract", 280, 150, 12, bold=True)
    paper.lines(filler_lines(4), LEFT, 170)
    paper.line("1 Introduction", LEFT, 260, 12, bold=True)
    paper.line("The lexicon follows Manning and Schutze closely.", LEFT, 280, BODY)
    _over(paper, "\u00a8", "The lexicon follows Manning and Sch", "u", LEFT, 280, BODY)
    paper.lines(filler_lines(3), LEFT, 292)
    doc = read_document(paper.save(tmp_path / "accents.pdf"))
    text = " ".join(b.text for b in doc.blocks)
    assert "Manning and Schütze closely" in text
    assert doc.authors[:1] == ["Zoltán Gyöngyi"], doc.authors
    assert not any(ch in text for ch in "\u00a8\u00b4")


def test_an_accent_over_no_precomposed_letter_or_over_nothing_is_left_alone():
    em = 10.0
    sigma, tilde = (100.0, 106.0, 700.0, 705.0), (101.0, 105.0, 707.0, 709.0)
    chars, boxes = ["σ", "\u02dc"], [sigma, tilde]
    attach_accents(chars, boxes, [em, em], lambda i: False)
    assert chars == ["σ", "\u02dc"]  # a math "σ̃" has no single letter: left as drawn
    # a grave on the baseline beside a digit (a font's "ℓ" read as "`") sits over no letter
    chars, boxes = ["`", "1"], [(100.0, 103.0, 700.0, 707.0), (103.5, 108.0, 700.0, 707.0)]
    attach_accents(chars, boxes, [em, em], lambda i: False)
    assert chars == ["`", "1"]
    # a cedilla hangs under its letter
    chars, boxes = ["s", "\u00b8"], [(100.0, 104.0, 700.0, 705.0), (101.0, 103.0, 697.0, 699.5)]
    attach_accents(chars, boxes, [em, em], lambda i: False)
    assert chars == ["ş", ""]


def test_tex_math_italic_ell_is_read_as_ell_not_a_grave():
    assert in_font("`", "CMMI10") == "\u2113" and in_font("`", "ABCDEF+CMMI9") == "\u2113"
    assert in_font("`", "CMR10") == "`" and in_font("`", "Helvetica") == "`"  # a real grave elsewhere
    assert in_font("a", "CMMI10") == "a"


def test_tex_symbol_font_slots_read_as_its_symbols():
    """CMSY has no lower-case letters or digits: an "h" read from it is its left angle bracket."""
    drawn = [("h", "ABCDEF+CMSY10"), *((c, "ABCDEF+CMR10") for c in "key, record"), ("i", "ABCDEF+CMSY10")]
    assert "".join(in_font(c, f) for c, f in drawn) == "\u27e8key, record\u27e9"
    assert in_font("0", "CMSY7") == "\u2032" and in_font("k", "CMSY10") == "\u2016"
    assert in_font("h", "CMR10") == "h" and in_font("h", "CMMI10") == "h"  # a real "h" in the text and math fonts


def test_the_font_is_asked_for_a_bracket_that_sits_level_with_its_word():
    """"⟨word, list(document ID)⟩": a closing bracket read as "i" after ")" sits as low as the
    parenthesis, so its place in the word, not its box, sends it to the font check."""
    text = "a hkey, list(x)i pair"
    boxes = [None if c == " " else (float(k), k + 0.9, 700.0, 707.0) for k, c in enumerate(text)]
    picked = _off_baseline(list(text), boxes, [10.0] * len(text))
    assert [text[i] for i in picked] == ["h", "k", "i"]  # "k" (a double bar's slot) is always asked
    assert picked[0] == text.index("hkey") and picked[-1] == text.index("i pair")
