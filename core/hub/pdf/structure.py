"""The structure of a paper: rows in reading order become sectioned, kinded blocks.

Kinds of text, each found by layout and form, never by a paper's wording:

- a section heading: a numbered line ("3.2 Experimental Setup", "A Proofs") or a conventional
  name ("Related Work", "Appendix B"), short, without a final period, set bold or larger than the
  body, or next in the numbering sequence; it becomes the breadcrumb;
- a run-in heading: a few bold words opening a paragraph's first line, no period after them
  (:mod:`.runin`), or the same words set bold on a line of their own after a paragraph's last
  sentence; the paragraph's crumb under its section;
- the abstract: its own section;
- the reference list: from a "References"/"Bibliography" heading to the next appendix-like heading;
  a line there is never a heading unless set bold or larger (an entry that starts with a year is not);
- a caption: a paragraph that starts "Figure 3:" / "Table 2." (its own block, labelled);
- a footnote: smaller text below a column's last body line that starts with a marker;
- figure text: other text clearly smaller than the body (kept out of body sentences), an
  algorithm listing set in letters (:mod:`.listings`), and a float's own text at the body's size
  right above its caption (:mod:`.floats`);
- a table row: a row with several cells (``row label | column: value`` when a header row gives names);
- a displayed equation: a row numbered "(n)" flush right, with the display's other rows
  (:mod:`.equations`); its paragraph reads "(Equation n)" where it stands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.hub.pdf.clean import normalize, rejoin_small_caps, set_size, two_columns
from core.hub.pdf.equations import display_rows
from core.hub.pdf.footnotes import body_size_notes, drop_note_marks, note_mark
from core.hub.pdf.forms import ABSTRACT as _ABSTRACT
from core.hub.pdf.forms import APPENDIX as _APPENDIX
from core.hub.pdf.forms import CAPTION as _CAPTION
from core.hub.pdf.forms import MARKER as _MARKER
from core.hub.pdf.forms import NAMED as _NAMED
from core.hub.pdf.forms import NUMBERED as _NUMBERED
from core.hub.pdf.forms import REFS as _REFS
from core.hub.pdf.layout import SOFT_HYPHEN, Line, Page
from core.hub.pdf.floats import float_rows
from core.hub.pdf.listings import listing_rows
from core.hub.pdf.runin import heading_form, opens_sentence, split_run_in
from core.hub.pdf.tablerows import classify_rows

PROSE_CHARS = 40  # a line this long is a line of prose (a table's cell or a figure's label is shorter)

_OPENS = re.compile(r"^(?:\d{1,2}|[*†‡§¶∗])\s?[^\W\d_]{2}")  # a footnote's mark, then its first word


@dataclass
class Piece:
    """A run of text of one kind under one section on one page (``kind``: body, abstract, front,
    caption, footnote, figure, table, equation, listing, float, references)."""

    kind: str
    section: list[str]
    page: int
    lines: list[Line] = field(default_factory=list)
    label: str = ""  # a caption's "Figure 3", an equation's "(17)"
    rows: list[list[str]] = field(default_factory=list)  # a table's cells
    cells: list[list[Line]] = field(default_factory=list)  # a table's rows as positioned cells
    caption: Piece | None = None  # a caption read right before a table's rows (a caption set above?)
    after_table: bool = False  # a caption read right after table rows (a caption set below its table)


def _text(ln: Line) -> str:
    return normalize(rejoin_small_caps(ln))


def _cell(ln: Line) -> str:
    return _text(ln).replace(SOFT_HYPHEN, "-").strip()


class Walker:
    """Classifies rows in reading order and collects :class:`Piece` runs."""

    def __init__(self, body: float, title_lines: list[Line]):
        self.body = body
        self.title = set(map(id, title_lines))
        self.section: list[str] = []
        self.numbers: tuple[int, ...] = ()
        self.in_refs = False
        self.seen_refs = False
        self.front = True  # before the abstract or first heading
        self.pieces: list[Piece] = []
        self.caption: Piece | None = None
        self.last_heading: Line | None = None  # the heading line just read (a heading may wrap)
        self.edges, self.mid = (0.0, 0.0), 0.0  # the page's right text edges (left column, page) and middle
        self.table: Piece | None = None  # the table whose rows are being read (body text or a caption ends it)
        self.row_size = 0.0  # the largest size on the row being read (see page)
        self.row_x0 = 0.0  # where the row being read starts (see page)
        self.row_alone = True  # the row being read is one line, not pieces a wide gap set apart (see page)
        self.next_line: Line | None = None  # the first line of the page's next row (see page)
        self.marks: set[str] = set()  # the marks the page's footnotes open with (see page)
        self.run_in = False  # the breadcrumb's last part is a run-in heading (:mod:`.runin`)
        self.equation_mark: Line | None = None  # the "(Equation 17)" read in the paragraph (see _equation)

    # -- classification --------------------------------------------------------------------------
    def _emphasised(self, ln: Line) -> bool:
        return ln.bold or set_size(ln) >= self.body * 1.08

    def heading(self, ln: Line, text: str) -> list[str] | None:
        """The new breadcrumb if ``ln`` is a section heading, else None."""
        t = text.strip()
        if len(t) > 90 or len(t.split()) > 12 or t.endswith((".", ",", ";")) and not _NAMED.match(t.rstrip(".")):
            return None
        if self.in_refs and not (self._emphasised(ln) and (_APPENDIX.match(t) or _NAMED.match(t))):
            return None
        # a section's name opening in lower case, set as the text around it, closes a sentence
        # ("… directions for" / "future work."); a style may set its headings bold in lower case
        named = not (t[:1].islower() and not self._emphasised(ln)) and _NAMED.match(t.rstrip(".:"))
        if named and (self._emphasised(ln) or t.isupper() or len(t.split()) <= 3):
            return [t.rstrip(".:").title() if t.isupper() else t.rstrip(".:")]
        m = _NUMBERED.match(t)
        if not m or set_size(ln) < self.body * 0.95:
            return None
        label, name = m.group(1), m.group(2).strip()
        if not re.search(r"[^\W\d_]{3,}", name) or re.search(r"\d{3,}|[=<>+]|[-\ufffe]$", name):
            return None
        if re.search(r": [a-z]", name) and not self._emphasised(ln):
            return None  # "1 Input: a graph" is a list's step; a heading of this form is set bold
        if label[0].isalpha() and not (self.seen_refs or self.in_refs):
            return None  # lettered sections are appendices, after the references
        if not self._emphasised(ln) and len(name.split()) > 8:
            return None
        if len(name.split()) >= 5 and ln.x1 >= self.edges[0 if ln.x1 <= self.mid + 10 else 1] - 3:
            return None  # a numbered list item's first line runs to the column's edge; a heading stops short
        nums = tuple(int(p) if p.isdigit() else ord(p) - 64 + 100 for p in label.split("."))
        if not (self._emphasised(ln) or self._next_number(nums)):
            return None
        if label[0].isalpha() and not self._emphasised(ln):
            return None
        self.numbers = nums
        parents = self.section[: len(nums) - 1]
        if len(parents) != len(nums) - 1 or not all(_NUMBERED.match(s) for s in parents):
            parents = []
        return parents + [f"{label} {name}"]

    def _next_number(self, nums: tuple[int, ...]) -> bool:
        last = self.numbers
        if not last:
            return nums in ((1,), (0,))
        for depth in range(len(last), 0, -1):
            if nums[:-1] == last[: len(nums) - 1] and len(nums) == depth and nums[-1] == last[depth - 1] + 1:
                return True
        return len(nums) == len(last) + 1 and nums[:-1] == last and nums[-1] == 1

    # -- the walk ------------------------------------------------------------------------------------
    def _running_end(self) -> int:
        """The index after the last piece of running text: a table, figure text, a displayed equation, a
        listing or a float's text set inside a paragraph does not end it."""
        k = len(self.pieces)
        while k > 0 and self.pieces[k - 1].kind in ("table", "figure", "equation", "listing", "float"):
            k -= 1
        return k

    def _piece(self, kind: str, page: int, label: str = "") -> Piece:
        """The piece to add to: the last one when it is of this kind, page and section (a table,
        figure text or displayed equation set inside a paragraph does not end it); for figure text,
        any such piece on the page (it comes interleaved with other kinds)."""
        if kind == "figure":
            recent = self.pieces[::-1]
        elif kind in ("listing", "float"):  # a listing's (a float's) rows come one after another
            recent = self.pieces[-1:]
        else:
            k = self._running_end()
            recent = self.pieces[k - 1:k]
        same = [p for p in recent if p.kind == kind and p.page == page and p.section == self.section]
        if same and not label and kind != "caption":
            return same[0]
        piece = Piece(kind, list(self.section), page, label=label)
        self.pieces.append(piece)
        return piece

    def page(self, page: Page, rows: list[list[Line]], footnotes: set[int]) -> None:
        mid = page.width / 2
        right = max((ln.x1 for row in rows for ln in row), default=page.width)
        # a one-column page has no column ending at its middle (the longest line ending there may be a heading)
        self.edges = (max((ln.x1 for row in rows for ln in row if ln.x1 <= mid + 10), default=mid)
                      if two_columns(page) else right, right)
        self.mid = mid
        self.table = None
        # the marks this page's footnotes open with: the same marks in its running text are taken out
        self.marks = {m for row in rows for ln in row if id(ln) in footnotes and (m := note_mark(ln))}
        tabular, prose = classify_rows(rows)
        shown = display_rows(rows, self.edges, mid, page.width, two_columns(page), self.body)
        listed = listing_rows(rows, two_columns(page), set(shown), footnotes)
        floated = float_rows(rows)
        waiting: dict[int, list[Piece]] = {}  # a float's text (one piece or more) by the index of its caption's row
        for i, row in enumerate(rows):
            if i in shown and not self.in_refs and not self.front:
                self._equation(page, row, shown[i])
                continue
            if (i in listed and not self.in_refs and not self.front
                    and not (self.caption is not None and self._continues_caption(row[0]))):
                self.caption, self.table = None, None
                self._piece("listing", page.number).lines.extend(row)  # an algorithm listing is a figure in letters
                continue
            if (i in floated and not tabular[i] and not self.in_refs and not self.front
                    and min(ln.size for ln in row) >= self.body * 0.85 and not any(id(ln) in footnotes for ln in row)):
                self.table = None
                held = self._piece("float", page.number)  # a float's own text above its caption
                held.lines.extend(row)
                waiting.setdefault(floated[i], []).append(held)
                continue
            if not self.in_refs and not self.front and tabular[i] and not _opens_footnote(row, footnotes):
                self._table(page, row)
                continue
            # a piece set smaller inside a line of prose (inline math, a name in another font) is that prose's
            self.row_size = max(ln.size for ln in row) if prose[i] else 0.0
            self.row_x0 = min(ln.x0 for ln in row)  # where the row starts: a justified line may come in pieces
            self.row_alone = len(row) == 1
            self.next_line = rows[i + 1][0] if i + 1 < len(rows) else None
            for ln in row:
                self.line(page, ln, footnotes)
            if i in waiting and self.caption is not None:
                for held in waiting.pop(i):
                    held.caption = self.caption  # the caption the float's text stood above

    def _equation(self, page: Page, row: list[Line], number: str) -> None:
        """Add a row to the displayed equation numbered ``number``: a piece of its own (:mod:`.equations`).
        Its paragraph reads "(Equation 17)" where the display stands, with the display's closing
        full stop or comma, so the sentence that runs into it still ends ("… via the quantity
        (Equation 3). We …") and the next one starts clean."""
        self.caption, self.table = None, None
        last = self.pieces[-1] if self.pieces else None
        if last is None or last.kind != "equation" or last.label != number or last.page != page.number:
            first = row[0]
            self.equation_mark = Line(f"(Equation {number.strip('()')})", first.x0, first.x1, first.top,
                                      first.bottom, self.body, first.page)
            self._piece(self._running_kind(), page.number).lines.append(self.equation_mark)
            last = Piece("equation", list(self.section), page.number, label=number)
            self.pieces.append(last)
        last.lines += row
        if row[-1].text.strip() == number and self.equation_mark is not None:
            before = " ".join(ln.text.strip() for ln in row[:-1]).rstrip()
            if before.endswith((".", ",", ";")):
                self.equation_mark.text += before[-1]

    def _table(self, page: Page, row: list[Line]) -> None:
        """Add a row to the table being read, or start a table: after a caption, body text or a
        gap of three lines, the rows are another table's."""
        cap, self.caption = self.caption, None
        last = self.table.cells[-1] if self.table is not None and self.table.cells else None
        if last is None or self.table.page != page.number or self.table.section != self.section or \
                row[0].top - max(ln.bottom for ln in last) > 3 * row[0].size:
            self.table = Piece("table", list(self.section), page.number)
            self.pieces.append(self.table)
            if cap is not None and cap.label.startswith("Table") and cap.page == page.number:
                self.table.caption = cap
        self.table.rows.append([_cell(c) for c in row])
        self.table.cells.append(row)
        self.table.lines.append(row[0])  # where the rows sit (the nearest caption names them)

    def line(self, page: Page, ln: Line, footnotes: set[int]) -> None:
        if id(ln) in self.title:
            return
        if id(ln) in footnotes and not self.in_refs:
            self._piece("footnote", page.number).lines.append(ln)
            return
        ln = drop_note_marks(ln, self.marks)
        text = _text(ln)
        cap = _CAPTION.match(text.strip())
        if cap and text.strip()[cap.end(3):].lstrip()[:1] != ":" and self._continues_paragraph(ln):
            # "… step (3) in" / "Figure 5. The …": the paragraph wraps onto a line that names a figure
            # (a caption's label is set off by a colon; a full stop or a section number may be prose's)
            cap = None
        table = self.table
        if cap or (ln.size >= self.body * 0.85 and len(text.strip()) >= PROSE_CHARS):
            self.table = None  # a caption or a line of prose ends a table; a short line may sit inside it
        if cap and not self.in_refs:
            word = "Figure" if cap.group(1).lower().startswith("fig") else "Table"
            self.caption = self._piece("caption", page.number, f"{word} {cap.group(2)}")
            self.caption.lines.append(ln)
            self.caption.after_table = (table is not None and table.page == page.number
                                        and ln.top - max(c.bottom for c in table.cells[-1]) < 3 * ln.size)
            return
        if self.caption is not None and self._continues_caption(ln):
            self.caption.lines.append(ln)
            return
        if self.caption is not None and ln.page == self.caption.page and max(ln.size, self.row_size) < self.body * 0.85:
            # a figure's small label drawn over the caption comes between its lines in reading
            # order: it is figure text, and the caption's next line is still the caption's
            self._piece("figure", page.number).lines.append(ln)
            return
        self.caption = None
        if self._continues_heading(ln, text):
            self.section[-1] = f"{self.section[-1]} {text.strip()}"
            self.last_heading = ln
            return
        crumb = self.heading(ln, text)
        above, self.last_heading = self.last_heading, ln if crumb is not None else None
        if crumb is not None:
            self.front = False
            self.section, self.run_in = crumb, False
            self.in_refs = bool(_REFS.match(crumb[-1]))
            self.seen_refs = self.seen_refs or self.in_refs
            return
        if self._paragraph_heading(ln, text):
            self._run_in_section(normalize(text.strip()))
            self.last_heading = ln  # it may wrap onto a second line
            return
        split = None if self.front or self.in_refs else split_run_in(ln)
        if split is not None:
            if self.run_in and self._right_below(above, ln):  # a paragraph heading's last words wrapped onto this line
                self.section[-1] = f"{self.section[-1]} {normalize(split[0])}"
            else:
                self._run_in_section(normalize(split[0]))
            ln, text = split[1], _text(split[1])
        m = _ABSTRACT.match(text.strip())
        if m and self.front and (self._emphasised(ln) or m.end() < len(text.strip())):
            self.front = False
            self.section = ["Abstract"]
            rest = text.strip()[m.end():]
            if rest:
                ln = Line(rest, ln.x0, ln.x1, ln.top, ln.bottom, ln.size, ln.page, ln.bold)
                self._piece("abstract", page.number).lines.append(ln)
            return
        if self.in_refs:
            kind = "references"
        elif max(ln.size, self.row_size) < self.body * 0.85 and not self._abstract_line(ln):
            kind = "figure"
        elif self.front:
            kind = "front"
        else:
            kind = self._running_kind()
        mark, self.equation_mark = self.equation_mark, None
        if mark is not None and kind in ("body", "abstract") and mark.text.endswith(")") and text.strip()[:1].isupper():
            mark.text += "."  # a display the paragraph's next sentence follows ends the sentence it closes
        self._piece(kind, page.number).lines.append(ln)

    def _abstract_line(self, ln: Line) -> bool:
        """Whether a line set clearly smaller than the body is the abstract's running text (some styles
        set the abstract smaller than the body): the abstract is being read, and the line is its first,
        a line of prose (:data:`PROSE_CHARS` or more), or it is set as that first line is, at its size
        (by its largest letters: a line mostly in a smaller piece, a URL in code type, is still prose) and
        in a row starting where it starts (a paragraph's indent apart either way: the first line may be the
        indented one; a justified line may be read in pieces). A smaller label among it, or one set
        elsewhere (a teaser figure's), is figure text."""
        if self.section != ["Abstract"]:
            return False
        first = next((p.lines[0] for p in self.pieces if p.kind == "abstract" and p.lines), None)
        if first is None:
            return len(_text(ln).strip()) >= PROSE_CHARS
        return (abs(max(ln.size, self.row_size, *ln.sizes) - first.size) <= 0.5
                and abs(self.row_x0 - first.x0) <= 3 * first.size)

    def _running_kind(self) -> str:
        """The kind of the running text being read: the abstract's, or the body's."""
        return "abstract" if self.section == ["Abstract"] else "body"

    def _paragraph_heading(self, ln: Line, text: str) -> bool:
        """A paragraph heading on a line of its own ("Worker Failure" between "… gracefully." and "The
        master pings …"): the whole line set bold at the body's size and alone in its row, in a run-in
        heading's form (:func:`core.hub.pdf.runin.heading_form`), flush with the body line right before
        it, which is in regular type and ends a sentence (not a colon: a label over a formula follows
        "as follows:"), and followed on the page by a regular line that opens a sentence (a bold term
        whose definition goes on in lower case, "Precision" / "is the fraction …", is the sentence's
        subject). Like a run-in heading, it is the crumb of the paragraphs under it until the next."""
        if (self.front or self.in_refs or not self.row_alone or not ln.bold or abs(set_size(ln) - self.body) > 0.5
                or not heading_form(text.strip())):
            return False
        nxt = self.next_line
        if nxt is None or nxt.bold or not opens_sentence(_text(nxt)):
            return False
        k = self._running_end()
        last = self.pieces[k - 1] if k else None
        prev = last.lines[-1] if last is not None and last.kind == "body" and last.lines else None
        return (prev is not None and not prev.bold and abs(ln.x0 - prev.x0) <= 1.5 * self.body
                and _text(prev).rstrip().endswith((".", "?", "!")))

    def _run_in_section(self, head: str) -> None:
        """A run-in heading is its paragraph's crumb under the section, in place of the last run-in's."""
        self.section, self.run_in = (self.section[:-1] if self.run_in else self.section) + [head], True

    @staticmethod
    def _right_below(h: Line | None, ln: Line) -> bool:
        """Whether ``ln`` is the line right below the heading line ``h`` (same page, no gap between)."""
        return h is not None and ln.page == h.page and 0 <= ln.top - h.bottom < 0.8 * h.size

    def _continues_heading(self, ln: Line, text: str) -> bool:
        """The second line of a heading set on two lines: same style, right below, short."""
        h = self.last_heading
        return (h is not None and self.section and self._right_below(h, ln) and ln.bold == h.bold and self._emphasised(ln)
                and abs(ln.size - h.size) <= 0.3
                and len(text.split()) <= 6 and not _NUMBERED.match(text.strip()) and not _NAMED.match(text.strip()))

    def _continues_paragraph(self, ln: Line) -> bool:
        """Whether ``ln`` is the next line of the paragraph read last: that paragraph's last line is
        on this page at this size, right above (a line's leading, not a gap), overlapping it, and stops
        inside a sentence (no closing punctuation)."""
        last = self.pieces[-1] if self.pieces else None
        if last is None or last.kind not in ("body", "abstract") or not last.lines:
            return False
        prev = last.lines[-1]
        end = prev.text.rstrip()
        return (prev.page == ln.page and abs(prev.size - ln.size) <= 0.6 and 0 <= ln.top - prev.bottom < 0.8 * ln.size
                and min(prev.x1, ln.x1) > max(prev.x0, ln.x0) and bool(end) and not end.endswith((".", "!", "?", ":", ";")))

    def _continues_caption(self, ln: Line) -> bool:
        """Whether ``ln`` is the caption's next line: on its page, right below it, in its column, set at its
        size by its largest letters (a line of a name in small capitals, "WOEparse.", is smaller but for
        its full stop)."""
        last = self.caption.lines[-1]
        size = max([ln.size, *ln.sizes])
        return (ln.page == last.page and abs(size - last.size) <= 0.6 and 0 <= ln.top - last.bottom < 1.2 * ln.size
                and abs(ln.x0 - self.caption.lines[0].x0) < 0.5 * (last.x1 - last.x0 + 1) + 40)


def _opens_footnote(row: list[Line], footnotes: set[int]) -> bool:
    """A footnote's first line read in pieces (wide spaces before a URL): its mark and a word
    ("3Available", "6 We"), not a table's row."""
    return all(id(ln) in footnotes for ln in row) and bool(_OPENS.match(row[0].text.strip()))


def footnote_lines(page: Page, rows: list[list[Line]], body: float) -> set[int]:
    """Ids of the lines set smaller than the body below each column's last body-size line, from the
    first that starts with a footnote marker; on a paper's first page also from the first set a line
    apart from the body (a copyright or permission notice, the venue: no marker, and not prose); and
    footnotes set at the body's size (:mod:`.footnotes`)."""
    out: set[int] = set()
    mid = page.width / 2
    two = two_columns(page)
    for k, col in enumerate((lambda ln: ln.x1 <= mid + 10, lambda ln: ln.x0 >= mid - 10, lambda ln: True)):
        lines = [ln for row in rows for ln in row if col(ln)]
        if (k < 2) == two:  # each column's own lines, or the page's on a one-column page
            out.update(id(ln) for ln in body_size_notes(lines, page.height))
        body_lines = [ln for ln in lines if ln.size >= body * 0.95]
        if not body_lines:
            continue
        floor = max(ln.bottom for ln in body_lines)
        tail = sorted((ln for ln in lines if ln.top >= floor - 1 and ln.size < body * 0.95
                       and ln.top > page.height * 0.5), key=lambda ln: ln.top)
        started = False
        for ln in tail:
            opens = _MARKER.match(ln.text.strip()) or (page.number == 1 and ln.top - floor > body)  # a notice under page 1
            if not started and opens and not _CAPTION.match(ln.text.strip()):
                started = True
            if started:
                out.add(id(ln))
    return out
