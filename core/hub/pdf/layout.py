"""Positioned text lines of a PDF page, read with pypdfium2 (PDFium).

PDFium gives each character its box and font size and marks the line breaks and the hyphens of
hyphenated line breaks it found (``\\ufffe``). A :class:`Line` here is a run of characters on one
baseline with no wide gap inside: a gap of more than :data:`GAP_EM` font sizes (a column gutter, a
table's cell boundary) starts a new line, so two columns or two table cells never share one.
Coordinates are top-down (``top`` grows down the page), in points.
"""

from __future__ import annotations

import ctypes
import statistics
from dataclasses import dataclass, field

GAP_EM = 1.2  # a horizontal gap wider than this many font sizes splits a line
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


class _Builder:
    """Collects characters into lines for one page."""

    def __init__(self, number: int, height: float):
        self.number, self.height = number, height
        self.lines: list[Line] = []
        self.ends: list[tuple[int, int]] = []  # each line's first and last character index
        self._reset()

    def _reset(self) -> None:
        self.chars: list[str] = []
        self.sizes: list[float] = []
        self.boxes: list[tuple[float, float, float, float]] = []
        self.ids: list[int] = []
        self.id_sizes: list[float] = []  # the size of each character in ``ids``

    def end(self) -> None:
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
            main = next((i for i, s in zip(self.ids, self.id_sizes) if round(s, 1) == size), self.ids[0])
            self.ends.append((self.ids[0], self.ids[-1], main))
        self._reset()

    def add(self, ch: str, box: tuple[float, float, float, float], size: float, index: int) -> None:
        if ch.strip() and self.boxes:
            last = next((b for c, b in zip(reversed(self.chars), reversed(self.boxes)) if c.strip()), None)
            if last is not None:
                em = max(size, 1.0)
                base_moved = abs(box[2] - last[2]) > 0.6 * em and abs(box[3] - last[3]) > 0.6 * em
                if base_moved or box[0] - last[1] > GAP_EM * em or box[1] < last[0] - em:
                    self.end()
        self.ids.append(index)
        self.id_sizes.append(size)
        self.chars.append(ch)
        self.sizes.append(size)
        self.boxes.append(box)


def _is_bold(raw, textpage, i: int) -> bool:
    weight = raw.FPDFText_GetFontWeight(textpage, i)
    if weight >= 600:
        return True
    buf = ctypes.create_string_buffer(128)
    flags = ctypes.c_int(0)
    n = raw.FPDFText_GetFontInfo(textpage, i, buf, 128, ctypes.byref(flags))
    name = buf.raw[: max(0, min(n, 128) - 1)].decode("latin-1").lower()
    return any(k in name for k in ("bold", "-bd", "black", "heavy", "semibold", "cmbx", "medi"))


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
        b = _Builder(number, height)
        left, right, bottom, top = (ctypes.c_double() for _ in range(4))
        matrix = raw.FS_MATRIX()
        for i, ch in enumerate(text):
            if ch == "\x02":  # PDFium's other mark for a line-break hyphen
                ch = SOFT_HYPHEN
            if ch in "\r\n":
                if ch == "\n":
                    b.end()
                continue
            if not ch.strip() or ch == SOFT_HYPHEN:
                if b.chars:
                    b.chars.append(ch if ch == SOFT_HYPHEN else " ")
                    b.sizes.append(b.sizes[-1])
                    b.boxes.append(b.boxes[-1])
                continue
            raw.FPDFText_GetCharBox(textpage, i, left, right, bottom, top)
            size = raw.FPDFText_GetFontSize(textpage, i)
            if raw.FPDFText_GetMatrix(textpage, i, matrix):  # the size as drawn (a scaled text matrix)
                size *= abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5 or 1.0
            b.add(ch, (left.value, right.value, bottom.value, top.value), size, i)
        b.end()
        ox, oy = ctypes.c_double(), ctypes.c_double()
        for line, (first, last, main) in zip(b.lines, b.ends):  # bold: set bold from its first to its last letter
            opens_bold = _is_bold(raw, textpage, first)
            line.bold = opens_bold and _is_bold(raw, textpage, last)
            if opens_bold and not line.bold:
                line.lead_bold = _bold_run(raw, textpage, text, first, last)
            # the baseline of the line's own letters, not of a raised mark it opens with ("⁶ We")
            line.base = height - oy.value if raw.FPDFText_GetCharOrigin(textpage, main, ox, oy) else line.bottom
    finally:
        textpage.close()
    return Page(number, width, height, b.lines)


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
