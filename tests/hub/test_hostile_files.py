"""Hostile files in a folder to ingest: an image is refused from its header past
:data:`core.hub.ocr.MAX_IMAGE_PIXELS` (never decoded), and a folder holding a DOCX with such an
image, or a Markdown file whose front matter makes the YAML parser recurse 50,000 deep, still
ingests its good files, with one skipped-file line for each bad one (the real CLI in a subprocess,
a real SQLite hub). Images are built here, byte by byte, as valid PNGs."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from core.hub import ocr
from core.hub.readers import ReadError, read_document
from core.hub.store import HubStore


def bomb_png(width: int, height: int) -> bytes:
    """A valid 1-bit grey PNG of ``width``×``height`` all-black pixels: tiny compressed, huge decoded."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\0" * (1 + (width + 7) // 8)  # filter byte "none", then the packed pixels
    z = zlib.compressobj(9)
    idat = b"".join(z.compress(row) for _ in range(height)) + z.flush()
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0))
            + chunk(b"IDAT", idat) + chunk(b"IEND", b""))


def docx_with_image(path: Path, png: bytes, paragraph: str | None = None) -> Path:
    """A real DOCX (python-docx) with one picture whose media part is ``png``."""
    import docx
    from PIL import Image

    small = path.with_suffix(".png")
    Image.new("1", (300, 300)).save(small)
    d = docx.Document()
    if paragraph:
        d.add_paragraph(paragraph)
    d.add_picture(str(small))
    d.save(path)
    import zipfile

    with zipfile.ZipFile(path) as src:
        items = [(i, src.read(i)) for i in src.infolist()]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for item, data in items:
            out.writestr(item, png if item.filename.startswith("word/media/") else data)
    small.unlink()
    return path


def test_an_image_past_the_pixel_limit_is_refused_from_its_header():
    """9,000×9,000 = 81 M pixels: under Pillow's default warning (89 M), over this project's limit
    (64 M); it used to be decoded whole (and then OCRed, for minutes)."""
    for width in (9000, 30000):  # Pillow's warning zone (limit to 2× limit), and past its error
        with pytest.raises(ocr.OcrFailed) as err:
            ocr.decode(bomb_png(width, width))
        assert str(err.value) in (f"image of {width}×{width} pixels, over the limit of 64,000,000 pixels; not decoded",
                                  "image over the limit of 64,000,000 pixels; not decoded "
                                  f"(image size ({width * width} pixels))")
    assert ocr.decode(bomb_png(2000, 1500)).size == (2000, 1500)  # a large but honest scan still decodes


def test_a_docx_whose_only_image_is_a_bomb_is_one_read_error(tmp_path, monkeypatch):
    monkeypatch.setenv(ocr.ENV, '{"mode": "auto", "min_page_chars": 50, "min_image_px": 200}')
    monkeypatch.setattr(ocr, "_options", None)
    path = docx_with_image(tmp_path / "bomb.docx", bomb_png(30000, 30000))
    assert path.stat().st_size < 200_000
    with pytest.raises(ReadError, match=r"^no extractable text \(image 1: image over the limit of 64,000,000 pixels"):
        read_document(path)
    text = read_document(docx_with_image(tmp_path / "mixed.docx", bomb_png(30000, 30000), "The text still counts."))
    assert [b.text for b in text.blocks] == ["The text still counts."]


def test_a_folder_with_hostile_files_ingests_its_good_files_and_says_one_line_each(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "a-lora.md").write_text("# LoRA\n\nLow-rank adapters freeze the pretrained weights.\n")
    docx_with_image(folder / "b-bomb.docx", bomb_png(30000, 30000))
    (folder / "c-qlora.md").write_text("# QLoRA\n\nFour-bit NormalFloat quantizes the frozen model.\n")
    (folder / "d-deep.md").write_text("---\ntags: " + "[" * 50_000 + "]" * 50_000 + "\n---\n# Deep\n\nBody.\n")
    home = tmp_path / "home"
    env = {**os.environ, "PAPERPILOT_HOME": str(home), "PAPERPILOT_NO_WARM": "1"}
    env.pop(ocr.ENV, None)
    out = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "ingest", str(folder), "--no-embed",
                          "--collection", "bombs"], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 1, out.stderr  # the CLI's "some file failed"
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 2, out.stderr[-3000:]
    assert lines[0].startswith(f"paperpilot: skipped {folder / 'b-bomb.docx'}: no extractable text "
                               "(image 1: image over the limit of 64,000,000 pixels")
    assert lines[1] == (f"paperpilot: skipped {folder / 'd-deep.md'}: unreadable markdown (RecursionError: nested "
                               "too deeply to parse)")
    assert "2 added" in out.stdout and "2 failed" in out.stdout
    store = HubStore(home / "hub.sqlite3")
    assert sorted(d["title"] for d in store.documents("bombs")) == ["LoRA", "QLoRA"]
    store.close()
