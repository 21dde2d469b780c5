"""Positioned text lines of a PDF page, read with pypdfium2 (PDFium).

PDFium gives each character its box and font size and marks the line breaks and the hyphens of
hyphenated line breaks it found (``\\ufffe``). A :class:`Line` here is a run of characters on one
baseline with no wide gap inside: a gap of more than :data:`GAP_EM` font sizes (a column gutter, a
table's cell boundary) starts a new line, so two columns or two table cells never share one.
Coordinates are top-down (``top`` grows down the page), in points.
"""

from __future__ import annotations

import ctypes
import re
import statistics
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from core.hub.pdf.forms import CAPTION

GAP_EM = 1.2  # a horizontal gap wider than this many font sizes splits a line
# A word space PDFium did not mark. Some PDFs place each word with its own move and no space
# character, and PDFium then guesses the spaces from the font; with some fonts it misses a few
# ("The MapReduce mastersimply re-executed", "bugsin user code"). The gaps are measured between the
# characters' advance boxes (PDFium's loose boxes: where the pen moved, not where the ink is), so
# the letters of a word touch whatever their shapes (a monospace "r" leaves wide ink margins, its
# advance box none). Between two letters of one size on one line, a gap is a word space when it is
# at least GLUE_MIN_EM font sizes and GLUE_SHARE of the line's usual word space (its median gap where
# PDFium did put a space; a line with fewer than GLUE_SPACES of them is not judged), in a run of
# letters set without tracking (its median letter gap under GLUE_TIGHT_EM: a letter-spaced
# "n u l l" is spacing, not missing spaces), with two letters or more on each side. On the 16 dev
# PDFs the six glued pairs leave 0.18 font sizes, the marked word spaces 0.2 to 0.35.
GLUE_MIN_EM, GLUE_SHARE, GLUE_TIGHT_EM, GLUE_SPACES = 0.1, 0.5, 0.05, 3
SOFT_HYPHEN = "\ufffe"  # PDFium's mark for a hyphen at a line break


@dataclass
class Line:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    size: float  # the font size most of its characters have
    page: int  # 1-based
    bold: bool = False
    sizes: list[float] = field(default_factory=list, repr=False)  # one per character of ``text``
    base: float = 0.0  # the baseline (top-down), which cells of one table row share whatever their letters
    xs: list[tuple[float, float]] = field(default_factory=list, repr=False)  # each character's left and right edge
    lead_bold: int = 0  # characters of ``text`` set bold at its start when the line as a whole is not (a run-in heading)

    @property
    def width(self) -> float:
        return self.x1 - self.x0


@dataclass
class Page:
    number: int
    width: float
    height: float
    lines: list[Line]

    @property
    def chars(self) -> int:
        return sum(len(line.text.strip()) for line in self.lines)


def row_text(row: list[Line]) -> str:
    """A row's pieces read as one line of text."""
    return " ".join(ln.text.strip() for ln in row).strip()


def row_span(row: list[Line]) -> float:
    """How wide a row runs: from its first piece's left edge to its last piece's right edge."""
    return max(ln.x1 for ln in row) - min(ln.x0 for ln in row)


class _Builder:
    """Collects characters into lines for one page."""

    def __init__(self, number: int, height: float, pen: Callable[[int], tuple[float, float] | None] | None = None):
        self.number, self.height = number, height
        self._pen = pen  # a character's advance box (left, right) by its index: PDFium's loose box
        self.lines: list[Line] = []
        self.ends: list[tuple[int, int]] = []  # each line's first and last character index
        self.spaced: list[list[int]] = []  # each line's word spaces put back (:func:`glued`), as text positions
        self._reset()

    def _reset(self) -> None:
        self.chars: list[str] = []
        self.sizes: list[float] = []
        self.boxes: list[tuple[float, float, float, float]] = []
        self.index: list[int | None] = []  # each character's index in the page (None: one PDFium generated)
        # Two touching letters stand GLUE_MIN_EM apart by their ink. A letter's advance box holds its ink
        # (an italic overhang aside), so a line without such a gap has no word space to put back and its
        # advance boxes are not read: reading every line's cost a sixth of the reader's time; on the dev
        # PDFs about one line in eleven is read.
        self._apart = False

    def end(self) -> None:
        ids = [(i, s) for i, s in zip(self.index, self.sizes) if i is not None]  # the page's characters, sized
        put = glued(self.chars, self._advances(), self.sizes) if self._pen and self._apart else []
        for i in reversed(put):
            self.chars.insert(i, " ")
            self.boxes.insert(i, self.boxes[i - 1])
            self.sizes.insert(i, self.sizes[i - 1])
        boxes = [b for c, b in zip(self.chars, self.boxes) if c.strip()]
        joined = "".join(self.chars)
        text = joined.strip(" ")
        if boxes and text.strip():
            sizes = [s for c, s in zip(self.chars, self.sizes) if c.strip()]
            size = statistics.mode(round(s, 1) for s in sizes)
            lead = len(joined) - len(joined.lstrip(" "))
            self.lines.append(Line(text, min(b[0] for b in boxes), max(b[1] for b in boxes),
                                   self.height - max(b[3] for b in boxes), self.height - min(b[2] for b in boxes),
                                   size, self.number, False, [round(s, 1) for s in self.sizes],
                                   xs=[(b[0], b[1]) for b in self.boxes[lead:lead + len(text)]]))
            main = next((i for i, s in ids if round(s, 1) == size), ids[0][0])
            self.ends.append((ids[0][0], ids[-1][0], main))
            self.spaced.append([i + k - lead for k, i in enumerate(put)])
        self._reset()

    def _advances(self) -> list[tuple[float, float]]:
        """Each character's advance box; a generated space takes its neighbour's, a character PDFium
        gives none its ink box."""
        out: list[tuple[float, float]] = []
        for i, box in zip(self.index, self.boxes):
            got = self._pen(i) if i is not None and self._pen else None
            out.append(got or (out[-1] if i is None and out else (box[0], box[1])))
        return out

    def add(self, ch: str, box: tuple[float, float, float, float], size: float, index: int) -> None:
        if ch.strip() and self.boxes:
            last = next((b for c, b in zip(reversed(self.chars), reversed(self.boxes)) if c.strip()), None)
            if last is not None:
                em = max(size, 1.0)
                base_moved = abs(box[2] - last[2]) > 0.6 * em and abs(box[3] - last[3]) > 0.6 * em
                if base_moved or box[0] - last[1] > GAP_EM * em or box[1] < last[0] - em:
                    self.end()
        if (self.chars and not self._apart and _letter(ch) and _letter(self.chars[-1])
                and abs(size - self.sizes[-1]) <= 0.05 * size and box[0] - self.boxes[-1][1] >= GLUE_MIN_EM * max(size, 1.0)):
            self._apart = True
        self.chars.append(ch)
        self.sizes.append(size)
        self.boxes.append(box)
        self.index.append(index)

    def space(self, ch: str = " ") -> None:
        """A character without a box (a space PDFium generated, a line-break hyphen) in the current line."""
        if self.chars:
            self.chars.append(ch)
            self.sizes.append(self.sizes[-1])
            self.boxes.append(self.boxes[-1])
            self.index.append(None)


def _letter(ch: str) -> bool:
    """A letter of an alphabetic script (a Chinese or Japanese character is a word of its own)."""
    return ch.isalpha() and ch < "\u2e80"


def glued(chars: list[str], pen: list[tuple[float, float]], sizes: list[float]) -> list[int]:
    """The indexes in one line's ``chars`` before which a word space is missing (see
    :data:`GLUE_MIN_EM`). ``pen``: each character's advance box, (left, right); a space character
    carries the box of the character before it."""
    vis = [i for i, c in enumerate(chars) if c.strip()]
    spaces: list[float] = []
    gaps: dict[int, float] = {}  # a letter pair's gap (font sizes), keyed by the right letter's index
    for a, b in zip(vis, vis[1:]):
        em = max(sizes[b], 1.0)
        if abs(sizes[a] - sizes[b]) > 0.05 * em:  # a script beside its host: not a word gap
            continue
        gap = (pen[b][0] - pen[a][1]) / em
        if b > a + 1 and not "".join(chars[a + 1:b]).strip():
            spaces.append(gap)
        elif b == a + 1 and _letter(chars[a]) and _letter(chars[b]):
            gaps[b] = gap
    if len(spaces) < GLUE_SPACES:
        return []
    wide = max(GLUE_MIN_EM, GLUE_SHARE * statistics.median(spaces))
    out = []
    for b, gap in gaps.items():
        if gap < wide:
            continue
        lo, hi = b - 1, b  # the run of letters around the gap
        while lo in gaps:
            lo -= 1
        while hi + 1 in gaps:
            hi += 1
        inner = [gaps[i] for i in range(lo + 1, hi + 1)]
        if b - lo >= 2 and hi - b + 1 >= 2 and statistics.median(inner) < GLUE_TIGHT_EM:
            out.append(b)
    return out


def _font_name(raw, textpage, i: int) -> str:
    """The name of the font the character at ``i`` is set in ("" when PDFium has none)."""
    buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int(0)
    n = raw.FPDFText_GetFontInfo(textpage, i, buf, 128, ctypes.byref(flags))
    return buf.raw[: max(0, min(n, 128) - 1)].decode("latin-1")


# PDFium reads a glyph whose name it does not know by its slot, as ASCII. TeX's math fonts (Computer
# Modern, with or without a subset prefix "ABCDEF+") put symbols there: the math italic CMMI its "ℓ"
# where ASCII has "`" ("`1/`2" for ℓ1/ℓ2), the symbol font CMSY (which has no lower-case letters or
# digits at all) its angle brackets, double bar and prime where ASCII has "h", "i", "k" and "0"
# ("emits a hkey, recordi pair" for ⟨key, record⟩; "x0" for x′).
_TEX_FONT = re.compile(r"^(?:[A-Z]{6}\+)?(CMMI|CMSY)\d+$")
_SLOTS = {"CMMI": {"`": "\u2113"}, "CMSY": {"h": "\u27e8", "i": "\u27e9", "j": "|", "k": "\u2016", "0": "\u2032"}}
_FONT_SLOTS = frozenset(ch for table in _SLOTS.values() for ch in table)


def _off_baseline(chars: list[str], boxes: list[Box | None], sizes: list[float]) -> list[int]:
    """The characters of :data:`_FONT_SLOTS` whose font is worth asking for (asking costs, and "h" and
    "i" are common letters): each "`", "j", "k" and "0"; an "h" that opens a word or an "i" that ends one
    (an angle bracket around "hkey, recordi"); and an "h" or "i" whose box does not sit on the line
    as its neighbours' do (a bracket hangs below the baseline)."""
    out = []
    for i, ch in enumerate(chars):
        if ch not in _FONT_SLOTS or boxes[i] is None:
            continue
        edge = (ch == "h" and (i == 0 or not chars[i - 1].isalpha())) or \
            (ch == "i" and (i + 1 == len(chars) or not chars[i + 1].isalpha()))
        if ch in "`jk0" or edge:
            out.append(i)
            continue
        em = max(sizes[i], 1.0)
        near = [b for b in (_visible(boxes, i, -1), _visible(boxes, i, 1)) if b is not None]
        if not near or any(abs(boxes[i][2] - b[2]) > 0.15 * em for b in near):
            out.append(i)
    return out


def _visible(boxes: list[Box | None], i: int, step: int, reach: int = 3) -> Box | None:
    """The box of the nearest character with one, before (``step`` -1) or after (1) ``i``."""
    for j in range(i + step, i + step * (reach + 1), step):
        if 0 <= j < len(boxes) and boxes[j] is not None:
            return boxes[j]
    return None


def in_font(ch: str, font: str) -> str:
    """The character PDFium read as ``ch`` in the font named ``font``, as that font draws it."""
    m = _TEX_FONT.match(font)
    return _SLOTS[m.group(1)].get(ch, ch) if m else ch


# A bold face's name: "Demi" is semi-bold ("Bookman-Demi", "LMRomanDemi10-Regular"), "DemiLight" is light.
_BOLD_NAME = re.compile(r"bold|-bd|black|heavy|semibold|cmbx|medi|demi(?!light)", re.I)
# A font name that states a style other than bold: a regular, italic or light face, a base-14 family
# named alone ("Times-Roman", "Courier", "Helvetica"), TeX's Computer Modern roman, math italic,
# symbols, extension, text italic or typewriter. PDFium's weight is no evidence for these: from a font
# descriptor it reports 792 for one PDF's Times-Roman beside 800 for its Times-Bold, so the whole text
# read bold.
_STYLED_NAME = re.compile(r"roman|regu|book|italic|oblique|light|(?:^|\+)(?:times|courier|helvetica|arial|symbol)"
                          r"(?:mt)?(?:$|[-,~])|(?:^|\+)cm(?:r|mi|sy|ex|ti|tt|ss)\d", re.I)


def bold_by_name(name: str) -> bool | None:
    """Whether a font is bold by what its name says (``name`` as PDFium gives it, "ABCDEF+" prefix and
    "~1e" suffix included): True for a bold face, False for a name that states another style
    (:data:`_STYLED_NAME`), None when the name does not say."""
    if _BOLD_NAME.search(name):
        return True
    return False if _STYLED_NAME.search(name) else None


def _is_bold(raw, textpage, i: int) -> bool:
    """Whether the character at ``i`` is set bold: by its font's name where the name says
    (:func:`bold_by_name`), else by PDFium's weight (600 or more)."""
    by_name = bold_by_name(_font_name(raw, textpage, i))
    return by_name if by_name is not None else raw.FPDFText_GetFontWeight(textpage, i) >= 600


def _bold_run(raw, textpage, text: str, first: int, last: int) -> int:
    """How many characters from ``first`` are set bold (spaces between bold words count; the run
    ends at its last bold letter)."""
    end = first
    for i in range(first, last + 1):
        if not text[i].strip() or text[i] in (SOFT_HYPHEN, "\x02"):
            continue
        if not _is_bold(raw, textpage, i):
            break
        end = i + 1
    return end - first


# Spacing accents that older TeX fonts draw as a glyph of their own over (or under) a letter, and the
# combining mark each stands for: PDFium gives "Zoltan Gy ´ ongyi … ¨" for "Zoltán Gyöngyi".
ACCENTS = {"\u00b4": "\u0301", "\u02ca": "\u0301", "`": "\u0300", "\u02cb": "\u0300", "\u00a8": "\u0308",
           "\u02c6": "\u0302", "\u02dc": "\u0303", "\u02c7": "\u030c", "\u02d8": "\u0306", "\u02d9": "\u0307",
           "\u02da": "\u030a", "\u02dd": "\u030b", "\u00af": "\u0304", "\u00b8": "\u0327", "\u02db": "\u0328"}
ACCENT_REACH = 400  # how far in PDFium's text order an accent is looked for its letter (a line or two)
_BELOW = frozenset("\u00b8\u02db")  # the cedilla and the ogonek hang under their letter
_DOTLESS = {"\u0131": "i", "\u0237": "j"}  # TeX accents i and j on their dotless forms
Box = tuple[float, float, float, float]  # left, right, bottom, top (PDF coordinates, bottom-up)


OVERPRINT_PT = 1.0  # a character drawn again within this distance (points) of itself is an overprint ...
OVERPRINT_EM = 0.1  # ... and within this share of its size


def drop_overprints(chars: list[str], boxes: list[Box | None], sizes: list[float]) -> None:
    """In place: text drawn twice over itself (a figure's labels drawn again as a shadow or fake bold)
    is read once. A character is dropped ("") when the same character of the same size was drawn
    earlier within :data:`OVERPRINT_PT` and :data:`OVERPRINT_EM` of where it is, and a neighbouring
    character repeats an earlier one at the same distance in the text order too: the second copy of a
    run ("AreaArea", "REVERBREVERB"), not one letter that happens to sit on another, nor a ligature's
    letters ("f", "f", "i" of "ﬃ" share one box, but their neighbours are no copies). Copies are found
    by sorting the page's characters by letter, band of height and position (numpy: a page has
    thousands), so a copy sits next to what it copies."""
    import numpy as np

    drawn = [i for i, (ch, box) in enumerate(zip(chars, boxes)) if box is not None and len(ch) == 1 and ch.strip()]
    if len(drawn) < 4:
        return
    code = np.fromiter((ord(chars[i]) for i in drawn), dtype=np.int64, count=len(drawn))
    x = np.fromiter((boxes[i][0] for i in drawn), dtype=float, count=len(drawn))  # type: ignore[index]
    y = np.fromiter((boxes[i][2] for i in drawn), dtype=float, count=len(drawn))  # type: ignore[index]
    z = np.fromiter((sizes[i] for i in drawn), dtype=float, count=len(drawn))
    tol = np.minimum(OVERPRINT_PT, OVERPRINT_EM * np.maximum(z, 1.0))
    at = np.asarray(drawn)
    lags: dict[int, set[int]] = {}  # i → how far back (in characters) its earlier copies are
    for shift in (0.0, 0.5):  # bands two tolerances high, twice: a copy across one band's edge is inside the other's
        band = np.floor(y / (2 * OVERPRINT_PT) + shift)
        order = np.lexsort((x, band, code))
        a, b = order[:-1], order[1:]
        close = ((code[a] == code[b]) & (band[a] == band[b]) & (np.abs(x[a] - x[b]) <= tol[b])
                 & (np.abs(y[a] - y[b]) <= tol[b]) & (np.abs(z[a] - z[b]) <= tol[b]))
        for p, q in zip(at[a[close]], at[b[close]]):
            lo, hi = (int(p), int(q)) if p < q else (int(q), int(p))
            lags.setdefault(hi, set()).add(hi - lo)
    if not lags:
        return
    for k, i in enumerate(drawn):
        if i in lags and any(lags[i] & lags.get(n, set()) for n in (drawn[k - 1] if k else -1,
                                                                     drawn[k + 1] if k + 1 < len(drawn) else -1)):
            chars[i] = ""


def attach_accents(chars: list[str], boxes: list[Box | None], sizes: list[float],
                   generated: Callable[[int], bool]) -> None:
    """In place: a spacing accent drawn over a letter (under it, for a cedilla) joins that letter
    ("a" and "´" become "á", found by position, wherever PDFium put the accent in its text order) and
    becomes "" (dropped), as do the spaces PDFium generated around it (``generated(i)``) where the
    letters on either side touch. An accent over no letter, or one whose letter has no precomposed
    form (a math "˜σ"), is left as it is."""
    taken: set[int] = set()
    for k, ch in enumerate(chars):
        mark, box = ACCENTS.get(ch), boxes[k]
        if mark is None or box is None:
            continue
        j = _accented_letter(k, box, chars, boxes, sizes, below=ch in _BELOW, taken=taken)
        if j is None:
            continue
        composed = unicodedata.normalize("NFC", _DOTLESS.get(chars[j], chars[j]) + mark)
        if len(composed) != 1:
            continue
        chars[j], chars[k] = composed, ""
        taken.add(j)
        _drop_generated_spaces(k, chars, boxes, sizes, generated)


def _accented_letter(k: int, box: Box, chars: list[str], boxes: list[Box | None], sizes: list[float], *,
                     below: bool, taken: set[int]) -> int | None:
    """The letter the accent at ``k`` sits on: its middle over the letter's width, just above the
    letter's top (just under its bottom for a cedilla); the nearest such letter."""
    mid = (box[0] + box[1]) / 2
    em = max(sizes[k], 1.0)
    best, best_gap = None, None
    lo = max(0, k - ACCENT_REACH)
    for j in range(lo, min(len(chars), k + ACCENT_REACH)):
        c, b = chars[j], boxes[j]
        if b is None or j in taken or not c.isalpha() or not b[0] <= mid <= b[1]:
            continue
        gap = b[2] - box[3] if below else box[2] - b[3]  # from the letter's edge out to the accent
        inside = (box[3] - b[2]) if below else (b[3] - box[2])  # how far the accent reaches into it
        if gap > 0.5 * em or inside > 0.5 * (b[3] - b[2]):
            continue
        if best_gap is None or abs(gap) < best_gap:
            best, best_gap = j, abs(gap)
    return best


def _drop_generated_spaces(k: int, chars: list[str], boxes: list[Box | None], sizes: list[float],
                           generated: Callable[[int], bool]) -> None:
    """Drop the generated spaces next to the dropped accent at ``k`` when the visible characters on
    either side touch on one line (the accent cut a word: "Gy ´ ongyi")."""
    lo, hi = k - 1, k + 1
    while lo >= 0 and chars[lo] == " " and generated(lo):
        lo -= 1
    while hi < len(chars) and chars[hi] == " " and generated(hi):
        hi += 1
    if lo < 0 or hi >= len(chars) or boxes[lo] is None or boxes[hi] is None:
        return
    a, b = boxes[lo], boxes[hi]
    em = max(sizes[lo], 1.0)
    same_line = min(a[3], b[3]) - max(a[2], b[2]) > 0.3 * em
    if same_line and -0.1 * em <= b[0] - a[1] <= 0.15 * em:
        for i in range(lo + 1, hi):
            chars[i] = ""


def page_lines(page, number: int) -> Page:
    """The lines of one pypdfium2 page, in PDFium's order."""
    import pypdfium2.raw as raw

    width, height = page.get_size()
    textpage = page.get_textpage()
    try:
        count = textpage.count_chars()
        text = textpage.get_text_range() if count else ""
        if len(text) != count:  # characters outside the BMP: read one by one
            text = "".join(chr(raw.FPDFText_GetUnicode(textpage, i) or 32) for i in range(count))
        chars = [SOFT_HYPHEN if ch == "\x02" else ch for ch in text]  # PDFium's other mark for a line-break hyphen
        boxes: list[Box | None] = [None] * len(chars)
        sizes = [0.0] * len(chars)
        left, right, bottom, top = (ctypes.c_double() for _ in range(4))
        matrix = raw.FS_MATRIX()
        for i, ch in enumerate(chars):
            if ch in "\r\n" or not ch.strip() or ch == SOFT_HYPHEN:
                continue
            raw.FPDFText_GetCharBox(textpage, i, left, right, bottom, top)
            size = raw.FPDFText_GetFontSize(textpage, i)
            if raw.FPDFText_GetMatrix(textpage, i, matrix):  # the size as drawn (a scaled text matrix)
                size *= abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5 or 1.0
            boxes[i], sizes[i] = (left.value, right.value, bottom.value, top.value), size
        drop_overprints(chars, boxes, sizes)
        for i in _off_baseline(chars, boxes, sizes):
            chars[i] = in_font(chars[i], _font_name(raw, textpage, i))
        attach_accents(chars, boxes, sizes, lambda i: bool(raw.FPDFText_IsGenerated(textpage, i)))
        loose = raw.FS_RECTF()

        def advance(i: int) -> tuple[float, float] | None:  # the advance box: see GLUE_MIN_EM
            return (loose.left, loose.right) if raw.FPDFText_GetLooseCharBox(textpage, i, loose) else None

        b = _Builder(number, height, advance)
        for i, ch in enumerate(chars):
            if not ch:  # an accent joined to its letter
                continue
            if ch in "\r\n":
                if ch == "\n":
                    b.end()
                continue
            box = boxes[i]
            if box is None:
                b.space(ch if ch == SOFT_HYPHEN else " ")
                continue
            b.add(ch, box, sizes[i], i)
        b.end()
        ox, oy = ctypes.c_double(), ctypes.c_double()
        for line, (first, last, main), spaced in zip(b.lines, b.ends, b.spaced):  # bold: from its first to its last letter
            opens_bold = _is_bold(raw, textpage, first)
            line.bold = opens_bold and _is_bold(raw, textpage, last)
            if opens_bold and not line.bold:
                n = _bold_run(raw, textpage, text, first, last)  # in PDFium's characters: and the spaces put back
                for at in spaced:
                    n += at < n
                line.lead_bold = n
            # the baseline of the line's own letters, not of a raised mark it opens with ("⁶ We")
            line.base = height - oy.value if raw.FPDFText_GetCharOrigin(textpage, main, ox, oy) else line.bottom
    finally:
        textpage.close()
    return Page(number, width, height, join_numbered_headings(join_scripts(b.lines)))


SECTION_NUMBER = re.compile(r"[1-9]\d?(?:\.\d{1,2}){0,3}\.?")
TAB_EM = 4.0  # the widest gap (font sizes) a tab leaves between a heading's number and its title


SCRIPT_CHARS = 6  # a sub- or superscript set on a baseline of its own is this short ("(1)", "j", "t,i")
SCRIPT_SIZE = 0.8  # ... and set at most this share of its line's size


def _script_host(s: Line, lines: list[Line]) -> Line | None:
    """The line a short, smaller piece is a sub- or superscript of: one it overlaps in height and
    whose end it starts at (within two points before, three after)."""
    if not 0 < len(s.text.strip()) <= SCRIPT_CHARS:
        return None
    return next((m for m in lines if m is not s and s.size <= SCRIPT_SIZE * m.size and s.top < m.bottom
                 and s.bottom > m.top and m.x1 - 2 <= s.x0 <= m.x1 + 3), None)


def join_scripts(lines: list[Line]) -> list[Line]:
    """Sub- and superscripts set on baselines of their own joined to the line they belong to, as
    touching ones already are: TeX's x_j^{(1)} after "… pair x" arrives as three lines on three
    baselines ("… pair x", "(1)", "j"). Left apart, the scripts make rows of their own between a
    paragraph's lines, which beside another column's short lines (pseudo-code) read as a full-width
    table's row: the page was cut into bands there and the column's next lines were lost among the
    code. The joined line keeps its own size and baseline."""
    host_of = {id(s): h for s in lines if (h := _script_host(s, lines)) is not None}
    if not host_of:
        return _join_after_scripts(lines, set())

    def root(ln: Line) -> Line:  # a script's script belongs to the line its script belongs to
        while id(ln) in host_of:  # a host is larger than its script, so the chain ends
            ln = host_of[id(ln)]
        return ln

    scripts: dict[int, list[Line]] = {}
    for s in lines:
        if id(s) in host_of:
            scripts.setdefault(id(root(s)), []).append(s)
    out: list[Line] = []
    hosts: set[int] = set()  # the lines that took a script at their end
    for ln in lines:
        if id(ln) in host_of:
            continue
        took = bool(scripts.get(id(ln)))
        for s in sorted(scripts.get(id(ln), []), key=lambda s: (s.x0, s.top)):
            t = s.text.strip()
            lead = len(s.text) - len(s.text.lstrip())
            own = s.sizes[lead:lead + len(t)]  # each letter's own size ("parse" and a stop after it)
            ln = replace(ln, text=f"{ln.text}{t}", x1=max(ln.x1, s.x1), top=min(ln.top, s.top), bottom=max(ln.bottom, s.bottom),
                         sizes=[*ln.sizes, *(own if len(own) == len(t) else [s.size] * len(t))],
                         xs=[*ln.xs, *s.xs[:len(t)]])
        if took:
            hosts.add(id(ln))
        out.append(ln)
    return _join_after_scripts(out, hosts)


TAIL_EM = 0.5  # the text after a script starts within this many font sizes of the script's end
_CLOSING = re.compile(r"[.,;:]")  # a stop, comma, colon or semicolon closes what it follows: no line starts with one


def _join_after_scripts(lines: list[Line], hosts: set[int]) -> list[Line]:
    """The text that follows a script on its host's baseline joined to the host (``hosts``: the lines that
    took a script of their own; any line that ends in one). A script starts a new line (its baseline
    moved), and PDFium may end the line after it, so the baseline's next character starts another:
    "… over REVERB¬lex." came as "… over REVERB¬lex" and a line of its own, ".", which ended the
    caption it was part of."""
    out: list[Line] = []
    for ln in lines:
        host = out[-1] if out else None
        if (host is not None and (id(host) in hosts or (host.sizes and host.sizes[-1] < 0.9 * host.size))
                and abs(ln.base - host.base) <= 0.3 * host.size
                and abs(ln.size - host.size) <= 0.2 and -1 <= ln.x0 - host.x1 <= TAIL_EM * host.size
                or host is not None and _CLOSING.fullmatch(ln.text.strip()) and host.text[-1:].isalpha() and ln.top < host.bottom
                and ln.bottom > host.top and -1 <= ln.x0 - host.x1 <= TAIL_EM * ln.size):
            # (or a mark that closes what it follows, at whatever size: "WOE" in small capitals with a
            # lowered "parse", then the full stop at the text's size, came as "WOEparse" and ".")
            t = ln.text.strip()
            space = "" if t[:1] in ".,;:)]}!?" or ln.x0 - host.x1 < 0.15 * host.size else " "
            joined = replace(host, text=f"{host.text}{space}{t}", x1=max(host.x1, ln.x1), top=min(host.top, ln.top),
                             bottom=max(host.bottom, ln.bottom), sizes=[*host.sizes, *[ln.size] * len(space + t)],
                             xs=[*host.xs, *[(host.x1, ln.x0)] * len(space), *ln.xs[:len(t)]])
            hosts.add(id(joined))
            out[-1] = joined
            continue
        out.append(ln)
    return out


def join_numbered_headings(lines: list[Line]) -> list[Line]:
    """Lines with a label set apart by a wide gap made one again, where side by side on one baseline
    they would read as a table row of two cells:

    - a numbered heading set with a tab: a word processor puts a tab between "3.4" and "Generating
      paraphrases", a gap wider than :data:`GAP_EM`. A bold bare section number followed on its
      baseline, within :data:`TAB_EM`, by bold text of its size that opens with a capital is that heading;
    - a caption's label in a justified first line: "Figure 3:" then, two font sizes on, "The lexical
      constraint gives …". A bare label followed on its baseline, within :data:`TAB_EM`, by text of its
      size is that caption's first line (left apart, the label was an empty caption and its text a
      paragraph of the body, between a paragraph's lines).

    Neither joins when a third piece follows as close on the same baseline (a table row whose cells are
    a score and a label)."""
    def beside(a: Line, b: Line) -> bool:
        return abs(a.base - b.base) <= 0.3 * b.size and 0 <= b.x0 - a.x1 <= TAB_EM * b.size

    def label(prev: Line, ln: Line) -> bool:
        if abs(prev.size - ln.size) > 0.2:
            return False
        if prev.bold and ln.bold and SECTION_NUMBER.fullmatch(prev.text.strip()) and ln.text[:1].isupper():
            return True
        m = CAPTION.match(prev.text.strip())
        return m is not None and not m.group(4) and bool(ln.text.strip())

    out: list[Line] = []
    for i, ln in enumerate(lines):
        prev = out[-1] if out else None
        after = lines[i + 1] if i + 1 < len(lines) else None
        if (prev is not None and label(prev, ln) and beside(prev, ln)
                and not (after is not None and beside(ln, after))):
            out[-1] = Line(f"{prev.text.strip()} {ln.text}", prev.x0, ln.x1, min(prev.top, ln.top),
                           max(prev.bottom, ln.bottom), ln.size, ln.page, prev.bold and ln.bold,
                           [*prev.sizes, ln.size, *ln.sizes], ln.base, [*prev.xs, (prev.x1, ln.x0), *ln.xs],
                           len(prev.text.strip()) if prev.bold and not ln.bold else prev.lead_bold)  # a bold label
            continue
        out.append(ln)
    return out


def read_pages(path: str, password: str | None = None) -> tuple[list[Page], dict[str, str]]:
    """Every page's lines and the document's metadata (``Title``, ``Author``, ``CreationDate``…)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(path, password=password)
    try:
        meta = {k: str(v) for k, v in doc.get_metadata_dict(skip_empty=True).items()}
        pages = []
        for n in range(len(doc)):
            page = doc[n]
            try:
                pages.append(page_lines(page, n + 1))
            finally:
                page.close()
    finally:
        doc.close()
    return pages, meta
