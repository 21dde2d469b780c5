"""OCR for scanned PDF pages and for images inside PDF, DOCX and PPTX files.

The models are the PP-OCRv4 detector/recognizer ONNX files shipped inside the
``rapidocr-onnxruntime`` wheel, run on ONNX Runtime: nothing is downloaded, and nothing here is
imported until a document has an image worth reading (OpenCV and the sessions cost about a
second). What is OCRed is set by ``hub.ocr`` (``auto``: scanned PDF pages and images in DOCX/PPTX; ``all``:
also figures on PDF pages that have text; ``off``) / ``hub.ocr_min_page_chars`` / ``hub.ocr_min_image_px``
(:class:`core.config.HubSettings`): the process that loads the settings calls :func:`configure`,
which also puts them in the environment so spawned parse workers and child processes inherit them;
a process that did neither reads the user's settings file on first use.

A reader asks :func:`read_image` for the text of one image; ``None`` means "not worth reading"
(OCR off, image too small, nothing recognised). :class:`OcrFailed` carries a one-line reason.

Images are untrusted: a 41 kB PNG can declare 30000×30000 pixels and decode to gigabytes. Every
image is refused past :data:`MAX_IMAGE_PIXELS` from its header, before its pixels are decoded, and
the same number is Pillow's own ``Image.MAX_IMAGE_PIXELS`` in this process (with its bomb warning an
error), so images that other libraries decode through Pillow (pypdf's) are bounded too.
"""

from __future__ import annotations

import io
import json
import os
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass

ENV = "PAPERPILOT_HUB_OCR"
MIN_SCORE = 0.5  # recognised lines below this confidence are dropped
# A US-letter page scanned at 600 dpi is 5100×6600 = 34 M pixels; 64 M leaves room for larger
# scans and posters, and bounds one decoded RGB image at ~200 MB.
MAX_IMAGE_PIXELS = 64_000_000


@dataclass(frozen=True)
class OcrOptions:
    mode: str = "auto"  # auto: pages without a text layer, and images outside PDFs | all: also figures on PDF text pages | off
    min_page_chars: int = 50
    min_image_px: int = 200


class OcrFailed(Exception):
    """An image could not be decoded, or the OCR package is missing; ``str()`` is one line."""


_options: OcrOptions | None = None
_engine = None
_lock = threading.Lock()
_progress: Callable[[str], None] | None = None


def configure(hub_settings) -> OcrOptions:
    """Use ``hub.ocr*`` from the settings in this process and in processes started from it."""
    global _options
    _options = OcrOptions(hub_settings.ocr, hub_settings.ocr_min_page_chars, hub_settings.ocr_min_image_px)
    os.environ[ENV] = json.dumps(asdict(_options))
    return _options


def options() -> OcrOptions:
    """The options configured in this process, else those a parent process configured, else the
    user's settings file (the hub daemon, a test), else the defaults."""
    global _options
    if _options is not None:
        return _options
    if os.environ.get(ENV):
        try:
            return OcrOptions(**json.loads(os.environ[ENV]))
        except (ValueError, TypeError):
            return OcrOptions()
    from core.config import ConfigError, load_settings

    try:
        hub = load_settings().hub
    except ConfigError:
        return OcrOptions()
    _options = OcrOptions(hub.ocr, hub.ocr_min_page_chars, hub.ocr_min_image_px)
    return _options


def enabled() -> bool:
    return options().mode != "off"


def available() -> bool:
    """Whether the OCR package is installed (without importing it)."""
    from importlib.util import find_spec

    return find_spec("rapidocr_onnxruntime") is not None


def on_progress(callback: Callable[[str], None] | None) -> None:
    """``callback(note)`` before each image is OCRed in this process (``"scan.pdf: OCR p. 3/12"``)."""
    global _progress
    _progress = callback


def note(text: str) -> None:
    if _progress is not None:
        _progress(text)


def engine():
    """The shared RapidOCR engine, built on first use (thread-safe)."""
    global _engine
    with _lock:
        if _engine is None:
            try:
                import logging

                from rapidocr_onnxruntime import RapidOCR
            except ImportError as exc:
                raise OcrFailed(f"OCR needs the ocr extra: pip install 'paperpilot-agent[ocr]' ({exc.name or exc} missing)") from None
            # its module loggers get their own stderr handlers; the hub's stdout/stderr must stay quiet
            for name in list(logging.root.manager.loggerDict):
                if name.startswith(("rapidocr", "RapidOCR", "onnxruntime")):
                    logging.getLogger(name).handlers.clear()
            _engine = RapidOCR(print_verbose=False)
            for name in list(logging.root.manager.loggerDict):
                if name.startswith(("rapidocr", "RapidOCR")):
                    lg = logging.getLogger(name)
                    lg.handlers.clear()
                    lg.propagate = True
                    lg.setLevel(logging.WARNING)
        return _engine


def pillow():
    """``PIL.Image``, with its decompression-bomb limit set to :data:`MAX_IMAGE_PIXELS` and its
    bomb warning (past the limit, below twice it) raised as an error, for this whole process."""
    import warnings

    from PIL import Image

    Image.MAX_IMAGE_PIXELS = MAX_IMAGE_PIXELS
    warnings.simplefilter("error", Image.DecompressionBombWarning)  # an existing identical filter is replaced
    return Image


def too_large(width: int, height: int) -> OcrFailed:
    return OcrFailed(f"image of {width}×{height} pixels, over the limit of {MAX_IMAGE_PIXELS:,} pixels; not decoded")


def decode(data: bytes):
    """A PIL image from encoded bytes, or :class:`OcrFailed` (undecodable, or over the pixel limit:
    the size is checked from the header, before any pixel is decoded)."""
    Image = pillow()
    try:
        img = Image.open(io.BytesIO(data))
        if img.width * img.height > MAX_IMAGE_PIXELS:
            raise too_large(img.width, img.height)
        img.load()
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise OcrFailed(f"image over the limit of {MAX_IMAGE_PIXELS:,} pixels; not decoded "
                        f"({str(exc).split(' exceeds')[0].lower()})") from None
    except (Image.UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise OcrFailed(f"unreadable image ({type(exc).__name__})") from None
    return img


def big_enough(img, opts: OcrOptions | None = None) -> bool:
    opts = opts or options()
    return min(img.size) >= opts.min_image_px


def recognize(img) -> str:
    """The text of a PIL image, lines in reading order (top to bottom, then left to right)."""
    import numpy as np

    if img.mode not in ("RGB", "L"):
        img = img.convert("RGB")
    arr = np.asarray(img.convert("RGB"))
    result, _ = engine()(arr)
    lines = [(box, text) for box, text, score in (result or []) if float(score) >= MIN_SCORE and text.strip()]
    lines.sort(key=lambda bt: (round(min(p[1] for p in bt[0]) / 12), min(p[0] for p in bt[0])))
    return "\n".join(text.strip() for _, text in lines)


def read_image(data: bytes | object, label: str = "") -> str | None:
    """OCR text of an image (encoded bytes or a PIL image) that is big enough, when OCR is on.

    Returns ``None`` when OCR is off, the image is below ``hub.ocr_min_image_px`` or holds no text;
    raises :class:`OcrFailed` for undecodable bytes or a missing OCR package.
    """
    opts = options()
    if opts.mode == "off":
        return None
    img = decode(data) if isinstance(data, (bytes, bytearray)) else data
    if img.width * img.height > MAX_IMAGE_PIXELS:  # decoded elsewhere (pypdf): not OCRed either
        raise too_large(img.width, img.height)
    if not big_enough(img, opts):
        return None
    if label:
        note(label)
    return recognize(img) or None


def image_blocks(images, path: list[str], page: int | None, what: str, errors: list[str]) -> list:
    """Blocks for a container's images (``(index, bytes)`` pairs), each breadcrumbed
    ``path + ["image N (OCR)"]``; failures are appended to ``errors`` and skipped."""
    from core.hub.readers import Block

    out = []
    for k, data in images:
        try:
            text = read_image(data, f"{what}: OCR image {k}")
        except OcrFailed as exc:
            errors.append(f"image {k}: {exc}")
            continue
        if text:
            out.append(Block([*path, f"image {k} (OCR)"], text, page))
    return out


def pdf_page_blocks(page, n: int, path: list[str], text_chars: int, what: str, errors: list[str],
                    total: int | None = None) -> list:
    """OCR blocks of PDF page ``n``: the whole page (``path + ["p. n", "OCR"]``) when its text layer
    has fewer than ``hub.ocr_min_page_chars`` characters; on a page with text, one block per large
    embedded image only with ``hub.ocr: all`` (a figure's text is mostly labels and screenshots, and
    reading it was most of the CPU of ingesting papers)."""
    from core.hub.readers import Block

    opts = options()
    if opts.mode == "off" or (text_chars >= opts.min_page_chars and opts.mode != "all"):
        return []
    pillow()  # pypdf decodes the page's images through Pillow: bound them before it does
    images = []
    try:
        count = len(page.images)
    except Exception as exc:  # noqa: BLE001 - pypdf raises many types for damaged resources
        errors.append(f"p. {n}: images unreadable ({type(exc).__name__})")
        return []
    for i in range(count):
        try:
            images.append((i + 1, page.images[i].image))
        except Exception as exc:  # noqa: BLE001 - an image filter pypdf or Pillow cannot decode
            errors.append(f"p. {n}, image {i + 1}: unreadable image ({type(exc).__name__})")
    if text_chars >= opts.min_page_chars:
        return image_blocks(images, [*path, f"p. {n}"], n, what, errors)
    texts = []
    for _, img in images:
        try:
            text = read_image(img, f"{what}: OCR p. {n}" + (f"/{total}" if total else ""))
        except OcrFailed as exc:
            errors.append(f"p. {n}: {exc}")
            continue
        if text:
            texts.append(text)
    return [Block([*path, f"p. {n}", "OCR"], "\n".join(texts), n)] if texts else []


def docx_paragraph_images(document, paragraph) -> list[bytes]:
    """The encoded images drawn inline in a python-docx paragraph."""
    out = []
    for rid in paragraph._p.xpath(".//a:blip/@r:embed"):
        part = document.part.related_parts.get(rid)
        if part is not None and hasattr(part, "blob"):
            out.append(part.blob)
    return out


def pptx_slide_images(slide) -> list[bytes]:
    """The encoded pictures on a python-pptx slide (group shapes searched too)."""
    out, shapes = [], list(slide.shapes)
    while shapes:
        shape = shapes.pop(0)
        if getattr(shape, "shapes", None) is not None:  # a group
            shapes[:0] = list(shape.shapes)
            continue
        try:
            out.append(shape.image.blob)
        except (AttributeError, KeyError, ValueError):
            continue
    return out
