"""A word space PDFium did not mark: some PDFs place each word with its own move and no space
character, and PDFium guesses the spaces from the font and the gap, so a narrow gap reads as no
space at all ("The MapReduce mastersimply re-executed"). The reader puts the space back where the
gap between two letters' advance boxes is as wide as the line's word spaces and the letters around
it touch. The PDFs here are drawn word by word with fpdf2 at known gaps and read back by PDFium."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest
from fpdf import FPDF

from core.hub.pdf import layout
from core.hub.pdf.runin import split_run_in

FONTS = Path("/usr/share/fonts/truetype")
SERIF = FONTS / "liberation" / "LiberationSerif-Regular.ttf"
BOLD = FONTS / "liberation" / "LiberationSerif-Bold.ttf"
MONO = FONTS / "dejavu" / "DejaVuSansMono.ttf"
# a proportional serif font with a bold face, from the system (.ci/run installs it); without it, each test
# says so rather than failing on a missing file
pytestmark = pytest.mark.skipif(not (SERIF.exists() and BOLD.exists() and MONO.exists()),
                                reason="needs Liberation Serif and DejaVu Sans Mono: apt-get install fonts-liberation fonts-dejavu-core")
SIZE = 10.0
SPACE = 0.3  # a word space PDFium marks, in font sizes
GLUED = 0.17  # a word space PDFium reads as none


def _draw(path: Path, lines: list[list[tuple[str, str, float]]], spacing: float = 0.0) -> Path:
    """Each line is ``[(font, word, gap after it in font sizes), ...]``; words are drawn one by one."""
    pdf = FPDF(unit="pt", format="letter")
    pdf.set_auto_page_break(False)
    for name, file in (("S", SERIF), ("B", BOLD), ("M", MONO)):
        pdf.add_font(name, "", str(file))
    pdf.add_page()
    for n, words in enumerate(lines):
        x, y = 72.0, 100.0 + 16 * n
        for font, word, gap in words:
            pdf.set_font(font, "", SIZE)
            pdf.set_char_spacing(spacing if font == "M" else 0.0)
            pdf.text(x, y, word)
            x += pdf.get_string_width(word) + gap * SIZE
    pdf.output(str(path))
    return path


def _read(path: Path) -> list[layout.Line]:
    doc = pdfium.PdfDocument(str(path))
    try:
        return layout.page_lines(doc[0], 1).lines
    finally:
        doc.close()


def _prose(text: str, font: str = "S", glued_after: str = "") -> list[tuple[str, str, float]]:
    return [(font, w, GLUED if w == glued_after else SPACE) for w in text.split()]


def test_an_unmarked_word_space_is_put_back(tmp_path: Path) -> None:
    line = _prose("The MapReduce master simply re-executed the work of the unreachable machines.",
                  glued_after="master")
    pdf = _draw(tmp_path / "glued.pdf", [line])
    doc = pdfium.PdfDocument(str(pdf))
    assert "mastersimply" in doc[0].get_textpage().get_text_range()  # PDFium reads no space there
    doc.close()
    assert _read(pdf)[0].text == "The MapReduce master simply re-executed the work of the unreachable machines."


def test_code_set_in_a_monospace_font_keeps_its_words_whole(tmp_path: Path) -> None:
    """A monospace "r" leaves wide ink margins ("ret rieve" by the ink); its advance box leaves none."""
    words = ["retrieve", "retry", "memory", "reward", "extra", "Kojima", "every"]
    lines = [[*_prose("We call the function"), ("M", w, SPACE), *_prose("on each of the rows here.")] for w in words]
    read = [ln.text for ln in _read(_draw(tmp_path / "mono.pdf", lines))]
    assert read == [f"We call the function {w} on each of the rows here." for w in words]


def test_a_letter_spaced_word_is_not_cut_into_letters(tmp_path: Path) -> None:
    """Every gap of a tracked word is wide: that is spacing, not missing spaces."""
    line = [*_prose("is the label"), ("M", "null", SPACE), *_prose("used for it in the parser")]
    assert _read(_draw(tmp_path / "spaced.pdf", [line], spacing=4.0))[0].text == "is the label null used for it in the parser"


def test_two_unmarked_spaces_in_one_run_are_both_put_back(tmp_path: Path) -> None:
    line = [("S", w, GLUED if w in ("master", "of") else SPACE)
            for w in "The MapReduce master of the cluster re-ran the work of the lost machines.".split()]
    assert _read(_draw(tmp_path / "two.pdf", [line]))[0].text == \
        "The MapReduce master of the cluster re-ran the work of the lost machines."


def test_a_run_in_headings_bold_words_are_put_apart_and_the_heading_still_found(tmp_path: Path) -> None:
    """The bold lead is counted in PDFium's characters; the spaces put back count too."""
    line = [("B", "Extended", GLUED), ("B", "Task", GLUED), ("B", "Suite", SPACE),
            *_prose("We release all of our code and the data we used in the study.")]
    got = _read(_draw(tmp_path / "runin.pdf", [line]))[0]
    assert got.text.startswith("Extended Task Suite We release")
    found = split_run_in(got)
    assert found and found[0] == "Extended Task Suite", found


def test_a_line_without_word_spaces_is_not_judged(tmp_path: Path) -> None:
    assert _read(_draw(tmp_path / "short.pdf", [[("S", "master", GLUED), ("S", "simply", 0.0)]]))[0].text == \
        "mastersimply"
