"""OCR with the real PP-OCRv4 models of rapidocr-onnxruntime on images drawn here: an image-only PDF
page, pictures inside DOCX and PPTX files, the settings that turn it off, and unreadable images.
Skips only when the OCR package is not installed."""

from __future__ import annotations

import io
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("rapidocr_onnxruntime")

from PIL import Image, ImageDraw, ImageFont

from core.hub import ocr
from core.hub.chunking import chunk_blocks
from core.hub.readers import ReadError, read_document

pytestmark = pytest.mark.slow


def text_image(lines: list[str], size=(1100, 360)) -> Image.Image:
    """Black text on white at about 10 pt in a 300 dpi scan (40 px)."""
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=40)
    for i, line in enumerate(lines):
        draw.text((60, 60 + i * 90), line, fill="black", font=font)
    return img


def png(img: Image.Image) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def scanned_pdf(path: Path) -> Path:
    """An image-only page (no text layer at all), as a scanner writes it."""
    text_image(["Appendix C: Training Details", "The tokenizer was trained on the Pelican corpus.",
                "We used a cosine learning rate schedule."], size=(1240, 1754)).save(path)
    return path


@pytest.fixture(autouse=True)
def _ocr_defaults(monkeypatch):
    monkeypatch.setattr(ocr, "_options", ocr.OcrOptions())
    monkeypatch.delenv(ocr.ENV, raising=False)


def test_models_ship_inside_the_package():
    import rapidocr_onnxruntime

    models = sorted(p.name for p in (Path(rapidocr_onnxruntime.__file__).parent / "models").glob("*.onnx"))
    assert len(models) == 3 and any("det" in m for m in models) and any("rec" in m for m in models)


def test_image_only_pdf_page_is_ocred_and_says_so(tmp_path):
    doc = read_document(scanned_pdf(tmp_path / "scan.pdf"))
    chunks = chunk_blocks(doc.blocks)
    assert doc.pages == 1 and [(c.breadcrumb, c.page) for c in chunks] == [("scan > p. 1 > OCR", 1)]
    text = chunks[0].text
    assert "tokenizer was trained on the Pelican corpus" in text and "cosine learning rate" in text


def test_images_inside_docx_and_pptx_are_ocred_in_their_section(tmp_path):
    import docx
    from docx.shared import Inches
    from pptx import Presentation
    from pptx.util import Inches as PInches

    picture = tmp_path / "figure.png"
    text_image(["Figure 2: the router picks a strategy"]).save(picture)
    tiny = tmp_path / "icon.png"
    text_image(["x"], size=(64, 64)).save(tiny)  # under hub.ocr_min_image_px: never OCRed
    d = docx.Document()
    d.add_heading("Method", level=1)
    d.add_paragraph("The agent routes each question.")
    d.add_picture(str(picture), width=Inches(4))
    d.add_picture(str(tiny), width=Inches(0.3))
    d.save(tmp_path / "report.docx")
    blocks = read_document(tmp_path / "report.docx").blocks
    assert [" > ".join(b.path) for b in blocks] == ["report > Method", "report > Method > image 1 (OCR)"]
    assert "router picks a strategy" in blocks[1].text

    prs = Presentation()
    slide = prs.slides.add_slide(prs.slide_layouts[5])
    slide.shapes.title.text = "Architecture"
    slide.shapes.add_picture(str(picture), PInches(1), PInches(2), width=PInches(6))
    prs.save(tmp_path / "deck.pptx")
    blocks = read_document(tmp_path / "deck.pptx").blocks
    ocr_blocks = [b for b in blocks if b.path[-1] == "image 1 (OCR)"]
    assert [(b.path, b.page) for b in ocr_blocks] == [(["deck", "Architecture", "image 1 (OCR)"], 1)]
    assert "router picks a strategy" in ocr_blocks[0].text


def test_ocr_off_reads_no_image(tmp_path, monkeypatch):
    class Settings:
        ocr, ocr_min_page_chars, ocr_min_image_px = "off", 50, 200

    assert ocr.configure(Settings()) == ocr.OcrOptions("off", 50, 200)
    monkeypatch.setattr(ocr, "engine", lambda: pytest.fail("OCR ran with hub.ocr: off"))
    with pytest.raises(ReadError, match=r"^no extractable text$"):
        read_document(scanned_pdf(tmp_path / "scan.pdf"))
    # spawned parse workers and child processes get the setting through the environment
    monkeypatch.setattr(ocr, "_options", None)
    assert ocr.options() == ocr.OcrOptions("off", 50, 200)


def test_unreadable_image_fails_only_when_nothing_else_is_readable(tmp_path):
    import docx

    def with_broken_image(path: Path, paragraph: str | None) -> Path:
        d = docx.Document()
        if paragraph:
            d.add_paragraph(paragraph)
        picture = tmp_path / "figure.png"
        text_image(["A figure"]).save(picture)
        d.add_picture(str(picture))
        d.save(path)
        src = zipfile.ZipFile(path)
        out = path.with_suffix(".tmp")
        with zipfile.ZipFile(out, "w") as z:
            for item in src.infolist():
                data = src.read(item)
                z.writestr(item, b"not an image at all" if item.filename.startswith("word/media/") else data)
        src.close()
        out.replace(path)
        return path

    doc = read_document(with_broken_image(tmp_path / "mixed.docx", "Text that still counts."))
    assert [b.text for b in doc.blocks] == ["Text that still counts."]
    assert doc.ocr_errors == ["image 1: unreadable image (UnidentifiedImageError)"]
    with pytest.raises(ReadError, match=r"^no extractable text \(image 1: unreadable image \(UnidentifiedImageError\)\)$"):
        read_document(with_broken_image(tmp_path / "only.docx", None))


def test_reading_documents_does_not_import_the_ocr_stack():
    code = ("import sys; from pathlib import Path; import core.hub.ingest, core.hub.readers; "
            "from core.hub.readers import read_document; read_document(Path(sys.argv[1])); "
            "bad = [m for m in ('cv2', 'rapidocr_onnxruntime', 'onnxruntime') if m in sys.modules]; "
            "print(bad); sys.exit(1 if bad else 0)")
    note = Path(__file__).resolve().parents[2] / "core" / "hub" / "corpus"
    first = sorted(note.glob("*.md"))[0]
    proc = subprocess.run([sys.executable, "-c", code, str(first)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_figure_on_a_text_page_is_ocred_only_with_ocr_all(tmp_path, monkeypatch):
    from fpdf import FPDF

    figure = tmp_path / "figure.png"
    text_image(["Figure 3: retrieval recall rises with top-k"]).save(figure)
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "The hub fuses BM25 and dense retrieval by reciprocal-rank fusion. " * 4)
    pdf.image(str(figure), x=20, y=80, w=160)
    pdf.output(str(tmp_path / "paper.pdf"))
    real_engine = ocr.engine
    monkeypatch.setattr(ocr, "engine", lambda: pytest.fail("a figure on a text page was OCRed with hub.ocr: auto"))
    assert not [b for b in read_document(tmp_path / "paper.pdf").blocks if b.path[-1].endswith("(OCR)")]
    monkeypatch.setattr(ocr, "engine", real_engine)
    monkeypatch.setattr(ocr, "_options", ocr.OcrOptions("all"))
    blocks = read_document(tmp_path / "paper.pdf").blocks
    assert [(b.path[1:], b.page) for b in blocks][0] == ([], 1)
    ocr_blocks = [b for b in blocks if b.path[-1].endswith("(OCR)")]
    assert [(b.path[1:], b.page) for b in ocr_blocks] == [(["p. 1", "image 1 (OCR)"], 1)]
    assert "retrieval recall rises" in ocr_blocks[0].text
