"""Small papers drawn with fpdf2 for the PDF reader's tests: text placed line by line at known
positions and sizes, so each test builds exactly the layout it is about (two columns, a running
header, a footnote, a reference list...)."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

W, H = 612, 792  # US letter, points
LEFT, MID, RIGHT = 72, 318, 540
BODY = 10


class Paper:
    """Pages of positioned lines; ``line(text, x, y, size, bold)`` with ``y`` the baseline from the top."""

    def __init__(self, title_meta: str | None = None, font: str | None = None):
        self.pdf = FPDF(unit="pt", format="letter")
        self.pdf.set_auto_page_break(False)
        self.family = "Helvetica"
        if font:
            self.pdf.add_font("Uni", "", font)
            self.family = "Uni"
        if title_meta:
            self.pdf.set_title(title_meta)

    def page(self) -> Paper:
        self.pdf.add_page()
        return self

    def line(self, text: str, x: float = LEFT, y: float = 100, size: float = BODY, bold: bool = False) -> Paper:
        self.pdf.set_font(self.family, "B" if bold and self.family == "Helvetica" else "", size)
        self.pdf.text(x, y, text)
        return self

    def lines(self, texts: list[str], x: float = LEFT, y: float = 100, size: float = BODY, lead: float = 12) -> float:
        """Draw lines top to bottom; returns the baseline after the last one."""
        for t in texts:
            self.line(t, x, y, size)
            y += lead
        return y

    def save(self, path: Path) -> Path:
        self.pdf.output(str(path))
        return path


FILLER = ("The method is trained on a large corpus of sentences. Each model is evaluated on held out data. "
          "We report the mean of five runs with different seeds. The results are stable across runs.")


def filler_lines(n: int, width: int = 80, text: str = FILLER) -> list[str]:
    """``n`` lines of ordinary sentences cut at word boundaries to about ``width`` characters."""
    words = (text + " ") * (n * width // len(text) + 2)
    out, cur = [], ""
    for w in words.split():
        if len(cur) + len(w) + 1 > width:
            out.append(cur)
            cur = w
            if len(out) == n:
                break
        else:
            cur = f"{cur} {w}".strip()
    return out


def table(paper: Paper, rows: list[tuple[float, list[tuple[float, str]]]], size: float = 9) -> Paper:
    """Draw table rows: each ``(baseline y, [(x, cell text), ...])``, cells at known positions."""
    for y, cells in rows:
        for x, text in cells:
            paper.line(text, x, y, size)
    return paper


def heavy_weights(path: Path, weight: int = 800) -> Path:
    """Give every font of the PDF at ``path`` a font descriptor whose /FontWeight is ``weight`` (PDFium then
    reports that weight for every character), as heavy as some PDFs describe their regular Times-Roman
    (one dev PDF's reads 792 beside its Times-Bold's 800). Rewrites the file in place."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import DictionaryObject, NameObject, NumberObject

    writer = PdfWriter(clone_from=PdfReader(path))
    for page in writer.pages:
        fonts = page["/Resources"]["/Font"]
        for key in fonts:
            font = fonts[key].get_object()
            font[NameObject("/FontDescriptor")] = writer._add_object(DictionaryObject({
                NameObject("/Type"): NameObject("/FontDescriptor"), NameObject("/FontName"): font["/BaseFont"],
                NameObject("/Flags"): NumberObject(32), NameObject("/FontWeight"): NumberObject(weight),
                NameObject("/StemV"): NumberObject(120)}))
    writer.write(path)
    return path
