"""Footnotes set as large as the body: a column's bottom lines from one that opens with a raised,
smaller mark ("⁵Parsers are…") set apart from the line above it by more than a line and a half.

Most papers set footnotes smaller than the body (:func:`core.hub.pdf.structure.footnote_lines`
finds those by size); some set them at the body's size, and then only the mark and the gap above
tell a footnote from the column's last paragraph. A mark at the start of a line inside a
paragraph has no such gap, and stays the body's.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.hub.pdf.layout import Line

SYMBOLS = "*†‡§¶∗"  # the marks a footnote takes besides one or two digits
# A footnote's mark at the start of its first line, then its first letter (the mark is group 1).
_MARK = re.compile(rf"^(\d{{1,2}}|[{SYMBOLS}])\s?(?=[^\W\d_])")
GAP = 1.6  # baseline distance, in the line's size, that sets a footnote apart from the text above it
LOW = 0.6  # footnotes sit below this share of the page's height


def raised_mark(ln: Line) -> bool:
    """A line that opens with a mark set smaller than its text, then a word ("⁵Parsers", "† We")."""
    t = ln.text
    if not _MARK.match(t) or len(ln.sizes) != len(t):
        return False
    k = 1 + t[1:2].isdigit()
    return max(ln.sizes[:k]) <= 0.8 * ln.size


def body_size_notes(column: list[Line], height: float) -> list[Line]:
    """The footnote lines at the bottom of one column's lines (empty when it has none)."""
    lines = sorted(column, key=lambda ln: ln.base or ln.bottom)
    for i in range(1, len(lines)):
        ln, above = lines[i], lines[i - 1]
        if ln.top > height * LOW and raised_mark(ln) and \
                (ln.base or ln.bottom) - (above.base or above.bottom) > GAP * ln.size:
            return lines[i:]
    return []


# A footnote's mark drawn apart from its text, as a line of its own.
_LONE_MARK = re.compile(rf"^(?:\d{{1,2}}|[{SYMBOLS}])$")
# What a footnote mark in running text follows, touching it: a letter, a closing bracket or quote, or
# punctuation ("itWaC.⁵ A word …", "ranking³ (Shen …"); a digit before it would make it an exponent.
_MARK_AFTER = re.compile(r"[^\W\d_]|[.,;:)\]”’\"']")


def note_mark(ln: Line) -> str | None:
    """The mark a footnote's first line opens with ("5" of "⁵Parsers are …"), else None: set smaller
    than the line's text, or a mark and then a capitalized word ("5Parsers", "† We"; not "3D models")."""
    m = _MARK.match(ln.text)
    if not m:  # a mark drawn apart from the text it opens, as a line of its own
        return ln.text.strip() if _LONE_MARK.match(ln.text.strip()) else None
    if raised_mark(ln) or re.match(r"\s?[A-Z][a-z]", ln.text[m.end(1):]):
        return m.group(1)
    return None


def split_notes(lines: list[Line]) -> list[tuple[str | None, list[Line]]]:
    """A page's footnote lines as footnotes, each ``(mark, lines)``: a line that opens with a mark
    starts the next one (two footnotes of one column read as one run otherwise)."""
    out: list[tuple[str | None, list[Line]]] = []
    for ln in lines:
        mark = note_mark(ln)
        if mark is not None or not out:
            out.append((mark, []))
        out[-1][1].append(ln)
    return out


def strip_mark(text: str, mark: str | None) -> str:
    """A footnote's text without the mark it opens with ("5Parsers are" → "Parsers are")."""
    if mark is None:
        return text
    text = text.strip()
    return text[len(mark):].lstrip() if text.startswith(mark) else text


def drop_note_marks(ln: Line, marks: set[str]) -> Line:
    """``ln`` without the footnote marks in its running text: a run of ``marks`` (the marks the page's
    footnotes open with) set smaller than the line, touching the word or punctuation before it, with a
    space, punctuation or the line's end after it. The same line when it has none."""
    t, sizes, xs = ln.text, ln.sizes, ln.xs
    if not marks or len(sizes) < len(t) or len(xs) < len(t):
        return ln
    cut: list[tuple[int, int]] = []
    i = 1
    while i < len(t):
        j = i
        while j < len(t) and j - i < 2 and (t[j].isdigit() or t[j] in SYMBOLS) and sizes[j] <= 0.8 * ln.size:
            j += 1
        run = t[i:j]
        if run and run in marks and _MARK_AFTER.match(t[i - 1]) and (j == len(t) or not t[j].isalnum()):
            cut.append((i, j))
            i = j
        else:
            i = max(i + 1, j)
    if not cut:
        return ln
    keep = [k for k in range(len(t)) if not any(a <= k < b for a, b in cut)]
    return replace(ln, text="".join(t[k] for k in keep), sizes=[sizes[k] for k in keep] + sizes[len(t):],
                   xs=[xs[k] for k in keep] + xs[len(t):])
