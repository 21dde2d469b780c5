"""A word space PDFium did not mark (some PDFs place each word with its own move and no space
character, and PDFium guesses the spaces from the font): the line builder puts it back where the gap
between two letters is as wide as the line's word spaces and far wider than its letter gaps."""

from __future__ import annotations

from core.hub.pdf.layout import _Builder

SIZE = 10.0
LETTER = 5.0  # an advance, in points
KERN = 0.3  # the gap between two letters of one word


def _line(parts: list[tuple[str, float]]) -> str:
    """Build one line from ``(text, gap before it in points)`` pieces: a text's letters are KERN apart;
    a space character in a text is a word space PDFium marked (it carries the box before it)."""
    b = _Builder(1, 792.0)
    x = 72.0
    for text, before in parts:
        x += before
        for ch in text:
            if ch == " ":
                b.chars.append(" ")
                b.sizes.append(SIZE)
                b.boxes.append(b.boxes[-1])
                x += 2.5
                continue
            b.add(ch, (x, x + LETTER - KERN, 700.0, 707.0), SIZE, len(b.chars))
            x += LETTER
    b.end()
    return b.lines[0].text


def test_an_unmarked_word_space_as_wide_as_the_lines_spaces_is_put_back() -> None:
    # 2.3 pt between "master" and "simply" (0.23 font sizes), the marked spaces 2.8 pt
    assert _line([("The MapReduce master", 0.0), ("simply re-executed the work", 2.3 - KERN)]) == \
        "The MapReduce master simply re-executed the work"


def test_letter_gaps_of_a_word_stay_joined() -> None:
    assert _line([("The MapReduce master", 0.0), ("simply re-executed the work", 0.6 - KERN)]) == \
        "The MapReduce mastersimply re-executed the work"


def test_a_letter_spaced_word_is_not_cut_into_letters() -> None:
    # every gap of "null" is as wide as a word space: spacing, not missing spaces
    parts = [("is the label n", 0.0), *[(c, 2.3 - KERN) for c in "ull"], (" used for it", 0.0)]
    assert _line(parts) == "is the label null used for it"


def test_a_line_without_word_spaces_is_not_judged() -> None:
    assert _line([("ab", 0.0), ("cd", 2.3 - KERN)]) == "abcd"
