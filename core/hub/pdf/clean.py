"""Cleaning a paper's lines: page furniture out, columns in reading order, words made whole.

Page furniture is found by position, not by wording: a running header or footer is a line in the
top or bottom band of the page whose text (digits masked) recurs on several pages; a page number
is a number alone in those bands, or a number alone at one height on several pages, below (or above)
all their other text, whose value runs with the page (LaTeX's default A4 layout sets it 88% down the
page, above the band); line numbers are numbers alone outside the text block's left or
right edge. Reading order: full-width lines split a page into bands; inside a band a two-column
page is read left column, then right column. Words: NFKC (ligatures such as "ﬁ" become "fi"),
hyphenated line breaks joined, and small-capital words ("R E V ERB", letters of two sizes with
spaces between) rejoined.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from pathlib import Path

from core.hub.pdf.layout import SOFT_HYPHEN, Line, Page
from core.text import nfkc, snowball

BAND = 0.09  # top and bottom share of the page where running headers, footers and page numbers sit
FOLIO_SLACK = 2.0  # points: a page number outside the bands sits at one height on every page
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_NUMBER_ONLY = re.compile(r"^(?:\d{1,4}|[ivxlc]{1,6}|page \d+(?: of \d+)?|\d+ ?/ ?\d+)$", re.I)


def mask(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def _in_band(line: Line, page: Page) -> bool:
    return line.bottom < page.height * BAND or line.top > page.height * (1 - BAND)


def drop_furniture(pages: list[Page]) -> None:
    """Remove running headers/footers, page numbers and line numbers from every page, in place."""
    counts: Counter[str] = Counter()
    for page in pages:
        counts.update({mask(line.text) for line in page.lines if _in_band(line, page)})
    need = max(2, len(pages) // 3)
    running = {k for k, c in counts.items() if c >= need} if len(pages) >= 2 else set()
    folios = _folios(pages)
    for page in pages:
        texty = [ln for ln in page.lines if not _NUMBER_ONLY.match(ln.text.strip())]
        left = min((ln.x0 for ln in texty), default=0.0)
        right = max((ln.x1 for ln in texty), default=page.width)
        keep = []
        for ln in page.lines:
            t = ln.text.strip()
            numeric = bool(_NUMBER_ONLY.match(t))
            if _in_band(ln, page) and (numeric or mask(t) in running and not _in_table_row(ln, page)):
                continue
            if id(ln) in folios:
                continue
            if numeric and (ln.x1 <= left + 1 or ln.x0 >= right - 1) and len(page.lines) > 5:
                continue  # a line number in the margin
            keep.append(ln)
        page.lines = keep


def _folios(pages: list[Page]) -> set[int]:
    """The ids of page numbers set outside the bands: a number alone that is its page's lowest or
    highest line, at one height (within :data:`FOLIO_SLACK`) on two or more pages, its value minus
    the page's number the same on each of them."""
    outer: list[tuple[Line, int]] = []
    for page in pages:
        for ln in page.lines:
            t = ln.text.strip()
            if re.fullmatch(r"[0-9]{1,4}", t) and (all(o.top > ln.bottom for o in page.lines if o is not ln)
                                               or all(o.bottom < ln.top for o in page.lines if o is not ln)):
                outer.append((ln, int(t) - page.number))
    return {id(ln) for ln, run in outer
            if sum(o_run == run and o.page != ln.page and abs(o.top - ln.top) <= FOLIO_SLACK
                   for o, o_run in outer) >= 1}


def _in_table_row(ln: Line, page: Page) -> bool:
    """Whether a recurring line is a cell of a table's header row set at the top of the page
    ("1-best" over "oracle" "oracle"): it and two or more other short pieces that are not page
    numbers share its baseline (the other column's prose on that baseline aside). A running header
    has one or two parts (and a page number)."""
    base = ln.base or ln.bottom
    row = [o for o in page.lines if abs((o.base or o.bottom) - base) <= 0.35 * ln.size
           and not _NUMBER_ONLY.match(o.text.strip()) and len(o.text.strip()) < 30]
    return len(row) >= 3


def body_size(pages: list[Page]) -> float:
    """The font size of most of the text (by characters)."""
    sizes: Counter[float] = Counter()
    for page in pages:
        for ln in page.lines:
            sizes[round(ln.size)] += len(ln.text)
    return float(sizes.most_common(1)[0][0]) if sizes else 10.0


def two_columns(page: Page) -> bool:
    """Whether the page is set in two columns: a fifth or more of its text on each side of the
    middle, in lines that stay on their side."""
    total = sum(len(ln.text) for ln in page.lines)
    return all(sum(len(ln.text) for ln in page.lines if side(ln)) > 0.2 * total
               for side in column_sides(page.width / 2, page.width))


def column_sides(mid: float, width: float) -> tuple:
    """Whether a line stays on the left, and on the right, of a page's middle (a small overlap allowed)."""
    return (lambda ln: ln.x1 <= mid + 0.02 * width, lambda ln: ln.x0 >= mid - 0.02 * width)


def reading_order(page: Page) -> list[list[Line]]:
    """The page's rows in reading order (one or two columns, bands split by full-width lines); a
    row is the lines that share a baseline inside one column, left to right (a table's cells)."""
    mid = page.width / 2
    lines = page.lines
    if not two_columns(page):
        return _rows(lines)

    rows = _rows(lines)
    across = [row for row in rows if _table_row_across(row, mid, page.width)]
    labels = _row_labels(rows, mid, page.width) if across else set()
    prose = _prose(rows, labels, mid, page.width) if across else []
    wide = {id(ln) for row in across if not _amid_columns(row, prose, mid, page.width) for ln in row}

    def column(ln: Line) -> int:
        if id(ln) in wide:
            return -1
        if ln.x1 <= mid + 0.02 * page.width:
            return 0
        if ln.x0 >= mid - 0.02 * page.width:
            return 1
        return -1  # spans both columns

    def key(ln: Line) -> float:
        return ln.base or ln.bottom

    spans = sorted(key(ln) for ln in lines if column(ln) == -1)
    out: list[list[Line]] = []
    bands: dict[int, list[Line]] = {}
    for ln in lines:
        if column(ln) == -1:  # cells of one full-width row share a band
            band = sum(1 for k in spans if k < key(ln) - 1.0) * 2 + 1
        else:
            band = sum(1 for k in spans if k <= key(ln)) * 2
        bands.setdefault(band, []).append(ln)
    for band in sorted(bands):
        group = bands[band]
        if band % 2:
            out += _rows(group)
        else:
            left, right = _rows([ln for ln in group if column(ln) == 0]), _rows([ln for ln in group if column(ln) == 1])
            k = _bylines(left, right) if page.number == 1 else 0  # bylines sit on a paper's first page
            out += left[:k] + right[:k] + left[k:] + right[k:]
    return out


def _bylines(left: list[list[Line]], right: list[list[Line]]) -> int:
    """How many rows at the top of both columns are blocks set side by side (two authors' names,
    departments and addresses): short lines of one size on the same baselines, two or more in a
    row. These are read one block after the other before either column's text; 0 when none."""
    def width(rows: list[list[Line]]) -> float:
        return max(ln.x1 for r in rows for ln in r) - min(ln.x0 for r in rows for ln in r) if rows else 0.0

    wl, wr = width(left), width(right)

    def paired(a: list[Line], b: list[Line]) -> bool:
        return (len(a) == len(b) == 1 and abs((a[0].base or a[0].bottom) - (b[0].base or b[0].bottom)) <= 1.0
                and abs(a[0].size - b[0].size) <= 0.3
                and a[0].x1 - a[0].x0 < 0.8 * wl and b[0].x1 - b[0].x0 < 0.8 * wr)

    k = 0
    while k < min(len(left), len(right)) and paired(left[k], right[k]):
        k += 1
    return k if k >= 2 else 0


def _table_row_across(row: list[Line], mid: float, width: float) -> bool:
    """A row of short cells on both sides of the page's middle: a full-width table's row, not two
    columns' lines that happen to share a baseline (those are long, and none crosses the gutter).
    A labelled row's run of values set close together counts as short however long it is."""
    if not (min(ln.x0 for ln in row) < mid - 0.1 * width and max(ln.x1 for ln in row) > mid + 0.1 * width):
        return False
    crosses = any(ln.x0 < mid - 0.02 * width and ln.x1 > mid + 0.02 * width for ln in row)
    labelled = not all(_values_only(ln) for ln in row)  # a table row has a label; a plot's ticks do not
    return ((len(row) >= 3 and all(len(ln.text.strip()) < 30 or labelled and _values_only(ln) for ln in row))
            or (len(row) >= 2 and crosses and all(len(ln.text.strip()) < 60 for ln in row)))


def _row_labels(rows: list[list[Line]], mid: float, width: float) -> set[int]:
    """A full-width table's row labels, however long ("Dense baseline with full attention"): lines on
    one side of the middle with a run of values beside them on the other, whose neighbours above and
    below on their side have values beside them too. A running column's prose line may share a baseline
    with a value of a table set beside it, but the lines around it do not. ``rows``: :func:`_rows`."""
    out: set[int] = set()
    for here, there in (column_sides(mid, width), column_sides(mid, width)[::-1]):
        seq = [(own, any(there(ln) and _values_only(ln) for ln in row))
               for row in rows if (own := [ln for ln in row if here(ln)])]
        for k, (own, valued) in enumerate(seq):
            if valued and all(v for _, v in seq[max(0, k - 1):k] + seq[k + 1:k + 2]):
                out |= {id(ln) for ln in own if not _values_only(ln)}
    return out


def _prose(rows: list[list[Line]], labels: set[int], mid: float, width: float) -> list[Line]:
    """The lines of running prose, not a table's row ``labels``: on one side of the middle, a line of
    30 characters or more that is not a run of values (with the row's other pieces on that side), or
    the pieces of one such line set touching (gaps under half their size): justified prose around
    inline math is read as pieces of a few characters each ("For a pair x(1)j" | ", x(2)j" | ") where
    x(1)j" | "is pre-"); a table sets its cells a column gap apart."""
    out: list[Line] = []
    for row in rows:
        for side in column_sides(mid, width):
            own = [ln for ln in row if side(ln) and id(ln) not in labels and not _values_only(ln)]
            if any(len(ln.text.strip()) >= 30 for ln in own) or (
                    len(own) > 1 and sum(len(ln.text.strip()) for ln in own) >= 30
                    and all(b.x0 - a.x1 < PIECE_GAP * max(a.size, b.size) for a, b in zip(own, own[1:]))):
                out += own
    return out


PIECE_GAP = 0.5  # pieces of one prose line read apart (around inline math) touch: gaps under half their size


def _amid_columns(row: list[Line], prose: list[Line], mid: float, width: float) -> bool:
    """Whether a row that looks like a full-width table's row sits inside running columns: ``prose``
    lines (:func:`_prose`: lines of 30 characters or more that are not a run of values, or the
    touching pieces of one) that stay on
    their side of the middle come right above it and right below it in one column or both. Then it
    is two columns' lines that share a baseline (a paragraph's short last line beside a line set in
    pieces, or beside a column of short lines such as pseudo-code or a list of symbols), which are
    read with their columns; a full-width table's rows are set between other rows, a caption or
    white space, never inside a column that runs on across them."""
    base, size = row[0].base or row[0].bottom, max(ln.size for ln in row)
    inside = set(map(id, row))
    sides = column_sides(mid, width)
    near = [ln for ln in prose if id(ln) not in inside and abs((ln.base or ln.bottom) - base) <= 2 * size]
    return any(all(any(side(ln) and 0 < sign * ((ln.base or ln.bottom) - base) for ln in near) for sign in (1, -1))
               for side in sides)


def _values_only(ln: Line) -> bool:
    """A line of numbers only ("0.810 (35%) 0.908 (38%) 0.851 (39%)"): values of a table row set
    close together, however long the run, never a column's prose."""
    from core.hub.pdf.cells import is_value  # cells builds on this module

    words = ln.text.split()
    return any(is_value(w) for w in words) and all(is_value(w) or w.startswith("(") and is_value(w.strip("()")) for w in words)


def _rows(lines: list[Line]) -> list[list[Line]]:
    """Lines top to bottom; lines sharing a baseline (within a third of their size) left to right."""
    ordered = sorted(lines, key=lambda ln: ln.base or ln.bottom)
    rows: list[list[Line]] = []
    for ln in ordered:
        if rows and abs((rows[-1][0].base or rows[-1][0].bottom) - (ln.base or ln.bottom)) <= max(1.5, ln.size / 3):
            rows[-1].append(ln)
        else:
            rows.append([ln])
    return [sorted(row, key=lambda x: x.x0) for row in rows]


# A typeset dash inside a name ("SSK–T1", "Kolmogorov–Smirnov"): the hyphen a reader types. A
# dash between two digits stays (a range, "3–5").
_NAME_DASH = re.compile(r"(?<=[^\W\d_])[\u2010-\u2013](?=\w)|(?<=\w)[\u2010-\u2013](?=[^\W\d_])")


def normalize(text: str) -> str:
    """NFKC (ligatures, full-width forms, compatibility characters), soft hyphens out, a dash
    between letters made a hyphen (so "SSK–T1" matches the "SSK-T1" a question types)."""
    text = nfkc(text)
    return _NAME_DASH.sub("-", _CONTROL.sub("", text))


def rejoin_small_caps(line: Line) -> str:
    """A line's text with small-capital words made whole: a space between an upper-case letter and
    an upper-case letter of another font size is dropped ("R E V ERB" → "REVERB")."""
    t, sizes = line.text, line.sizes
    if len(sizes) != len(t) or " " not in t:
        return t
    out = []
    for i, ch in enumerate(t):
        if ch == " " and 0 < i < len(t) - 1:
            a, b = t[i - 1], t[i + 1]
            if a.isupper() and b.isupper() and sizes[i - 1] != sizes[i + 1] and _caps_run(t, i):
                continue
        out.append(ch)
    return "".join(out)


def set_size(line: Line) -> float:
    """The size a line is set in. A line in small capitals ("4 R E V ERB": upper-case letters of
    two sizes) is set in its larger capitals' size: most of its letters are capitals drawn smaller,
    so its most common size understates it (a heading would read smaller than the body)."""
    t, sizes = line.text, line.sizes
    if len(sizes) != len(t):
        return line.size
    caps = {s for ch, s in zip(t, sizes) if ch.isupper()}
    return max(line.size, *caps) if len(caps) >= 2 else line.size


def _caps_run(t: str, i: int) -> bool:
    """The space at ``i`` sits inside a run of upper-case pieces (not between two real words)."""
    before = t[:i].rsplit(" ", 1)[-1]
    after = t[i + 1:].split(" ", 1)[0]
    return (len(before) <= 2 or len(after) <= 2) and before.isupper() and after.strip(".,;:’'s").isupper()


# a word part: letters and digits with at least one letter ("printed", "3D", "word2vec")
# (from a run's start only, and possessive: a long run of digits or letters is read once, not once per
# position inside it)
_PART = r"(?<![^\W_])\d*+[^\W\d_][^\W_]*+"
_COMPOUND = re.compile(rf"(?<![\w-]){_PART}(?:-{_PART})+(?![\w-])")
_LETTERS = re.compile(_PART)
_LAST_LETTERS = re.compile(rf"{_PART}$")


@lru_cache(maxsize=1)
def known_words() -> frozenset[str]:
    """The whole words of the encoder's WordPiece vocabulary (MiniLM's ``vocab.txt``, installed with its
    weights): about 21,000 English words, none of them a compound's two parts glued ("meaningrepresentation").
    Empty when the file cannot be read (the join then never keeps such a hyphen)."""
    try:
        from core.embeddings import model_dir

        text = (Path(model_dir()) / "vocab.txt").read_text(encoding="utf-8")
    except (ImportError, OSError, ValueError):  # not installed, unreadable, not UTF-8
        return frozenset()
    return frozenset(w for w in text.split("\n") if w.isalpha() and w.islower())


class Spellings:
    """How one paper spells its compounds inside its lines, where no line break decides: how often
    each pair of adjacent parts of a hyphenated word is written ("multi-instance-learning" counts
    multi-instance and instance-learning) and how often each whole word is. The two parts of a word broken
    at a line end are not counted (a break's "ative" is no word of the paper)."""

    def __init__(self, texts) -> None:
        kept, broken = [], False
        for t in texts:
            t = t.strip()
            if broken:  # the rest of a word broken at the line before
                t = t.partition(" ")[2]
            broken = t.endswith(("-", SOFT_HYPHEN))
            kept.append(t[:-1].rpartition(" ")[0] if broken else t)
        whole = "\n".join(kept).lower()
        self.hyphenated: Counter[str] = Counter()
        for m in _COMPOUND.finditer(whole):
            parts = m.group().split("-")
            self.hyphenated.update(f"{a}-{b}" for a, b in zip(parts, parts[1:]))
        self.closed: Counter[str] = Counter(_LETTERS.findall(whole))
        self._stems: set[str] | None = None

    def keeps_hyphen(self, left: str, right: str) -> bool:
        """Whether a hyphen at a line break between ``left`` and ``right`` is the compound's own: the
        paper writes the pair hyphenated more often than as one word ("low-" / "rank" where the paper
        says "low-rank"; not "rank-" / "ing")."""
        a, b = left.lower(), right.lower()
        hyphenated, closed = self.hyphenated[f"{a}-{b}"], self.closed[a + b]
        if hyphenated or closed:
            return hyphenated > closed
        # neither written elsewhere: a compound of two words the paper uses ("meaning-" / "representation"),
        # unless the two make a word of the language ("success-" / "fully", "further-" / "more") or a word
        # the paper writes in another form ("allow-" / "able" where it writes "allow", "data-" / "sets"
        # where it writes "dataset")
        return (len(a) >= 3 and len(b) >= 3 and self.closed[a] > 0 and self.closed[b] > 0
                and bool(known_words()) and a + b not in known_words() and snowball([a + b])[0] not in self.stems())

    def stems(self) -> set[str]:
        """The Snowball stems of the paper's whole words (made once, when a break first asks)."""
        if self._stems is None:
            self._stems = set(snowball(list(self.closed)))
        return self._stems


def join_lines(texts: list[str], spellings: Spellings | None = None) -> str:
    """Lines of one paragraph as one string: a hyphenated break is joined ("pa- pers" → "papers"),
    a compound's own hyphen kept ("state-of- the-art" → "state-of-the-art"; with the paper's
    ``spellings``, also "low- rank" where the paper writes "low-rank")."""
    out = ""
    for t in texts:
        t = t.strip()
        if not t:
            continue
        if out.endswith(SOFT_HYPHEN) or (out.endswith("-") and len(out) > 1 and out[-2].isalpha()):
            stem = out[:-1]
            word = stem.rsplit(" ", 1)[-1]
            keep = "-" in word or t[:1].isdigit() or (word[-1:].islower() and t[:1].isupper())
            if not keep and spellings is not None:
                left, right = _LAST_LETTERS.search(word), _LETTERS.match(t)
                keep = bool(left and right and spellings.keeps_hyphen(left.group(), right.group()))
            out = stem + ("-" if keep else "") + t
        else:
            out = f"{out} {t}" if out else t
    return out.replace(SOFT_HYPHEN, "-")
