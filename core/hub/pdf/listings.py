"""Algorithm listings (pseudo-code) set as text on the page, kept out of the running prose.

A paper's "function TrustRank … begin … for i = 1 to L do … return t* end" is a figure drawn in
letters: read as prose, its rows ran into the paragraph around it and became an answer's "sentence".
A listing is found by its form, not its words: a run of :data:`MIN_ROWS` or more rows that each stop
well short of the column's width (:data:`SHORT`), at least :data:`CODE_SHARE` of them shaped as code
and two of them unmistakably so (:data:`STRONG`: a comment "// …", an assignment arrow "←", a
"begin"/"end"/"return …" line, a "for … do", "while … do" or "if … then" line, a "function …" or
"procedure …" or "Algorithm 3 …" line, "input"/"output"; a URL's "//" is no comment). Weaker code
shapes (:data:`WEAK`) count toward the share: a numbered step "(3) …", an assignment "x = …" or
"x := …", a call "f(…)". A run ends at a caption line, a numbered display (an equation, which may define
with ":="), a footnote and a bold numbered heading ("4. Experiments"). (A gap between rows does not: a
figure's labels read between a listing's rows leave gaps, and splitting there left listing rows in the prose.)
A listing titled "Algorithm 3 …" is a block of its own under that label (:func:`title`).
"""

from __future__ import annotations

import re

from core.hub.pdf.forms import CAPTION
from core.hub.pdf.layout import Line, row_span, row_text

MIN_ROWS = 5
SHORT = 0.85  # of the column's width: a listing's rows stop short of it; a justified paragraph's run to the edge
CODE_SHARE = 0.4
STRONG = re.compile(
    r"(?<![:\w])//|←|^(?:begin|end(?:\s+(?:for|if|while|function|procedure))?|else|input:?|output:?)$|^return\b"
    r"|^(?:for|while)\b.*\bdo$|^if\b.*\bthen$|^(?:function|procedure)\s+\w|^algorithm\s+\d", re.I)
WEAK = re.compile(r"^\(\d{1,2}\)\s|[\w)\]]\s*:?=\s*[^=\s]|\w\([^)]*\)$")
_TITLE = re.compile(r"^(Algorithm\s+\d{1,2})\b")
_NUMBERED_HEADING = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+[A-Z]")
MIN_STRONG = 2


def listing_rows(rows: list[list[Line]], two_columns: bool, displays: set[int] | frozenset[int] = frozenset(),
                 notes: set[int] | frozenset[int] = frozenset()) -> set[int]:
    """The indexes of ``rows`` (a page's rows in reading order) that belong to an algorithm listing;
    ``displays``: the rows of numbered equations; ``notes``: the ids of footnote lines."""
    if not rows:
        return set()
    left = min(ln.x0 for row in rows for ln in row)
    right = max(ln.x1 for row in rows for ln in row)
    column = (right - left) / (2 if two_columns else 1)
    out: set[int] = set()
    run: list[int] = []

    def close() -> None:
        coded = [bool(STRONG.search(t) or WEAK.search(t)) for t in (row_text(rows[i]) for i in run)]
        if any(coded):  # a paragraph's short last line before the listing (or after it) is the paragraph's
            first, last = coded.index(True), len(coded) - 1 - coded[::-1].index(True)
            kept = run[first:last + 1]
            strong = sum(bool(STRONG.search(row_text(rows[i]))) for i in kept)
            if len(kept) >= MIN_ROWS and strong >= MIN_STRONG and sum(coded) >= CODE_SHARE * len(kept):
                out.update(kept)
        run.clear()

    for i, row in enumerate(rows):
        text = row_text(row)
        if (row_span(row) < SHORT * column and i not in displays and not CAPTION.match(text)
                and not any(id(ln) in notes for ln in row) and not (row[0].bold and _NUMBERED_HEADING.match(text))):
            run.append(i)
        else:
            close()
    close()
    return out


def title(lines: list[Line]) -> str | None:
    """The label of a listing whose first row names it ("Algorithm 3 State Synchronization" gives
    "Algorithm 3"), else None (a listing inside a figure, whose caption names it)."""
    m = _TITLE.match(lines[0].text.strip()) if lines else None
    return m.group(1) if m else None

