"""Document readers: a file becomes a title, metadata and a list of sectioned text blocks.

Markdown and text are split by headings into a section tree; a block's ``path`` is its breadcrumb
(``["QLoRA", "Method", "4-bit NormalFloat"]``). PDFs are read by :mod:`core.hub.pdf`; DOCX headings and PPTX slides give sections; spreadsheet sheets are sections of Markdown
tables (:mod:`core.hub.tables`); scanned pages and embedded images are OCRed (:mod:`core.hub.ocr`).
A file that cannot be read raises :class:`ReadError` with a one-line reason; so does one that
makes a parser library fail in a way it does not document (a recursion, a bug on a damaged file):
the file is untrusted input, and one bad file must never stop a folder's ingest.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from core.hub import ocr
from core.hub.library.metadata import front_matter_metadata

SUFFIXES = {".md": "markdown", ".markdown": "markdown", ".txt": "text", ".pdf": "pdf",
            ".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx", ".xlsm": "xlsx", ".csv": "csv", ".tsv": "csv"}


class ReadError(Exception):
    """The file is corrupt, empty, encrypted or of an unsupported type."""


@dataclass
class Block:
    path: list[str]
    text: str
    page: int | None = None
    verbatim: bool = False  # one chunk as it is (a Markdown table of whole rows, header first)
    kind: str = "body"  # a PDF's abstract, front, caption, footnote, figure, table, equation or references


@dataclass
class ParsedDoc:
    title: str
    doc_type: str
    blocks: list[Block] = field(default_factory=list)
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    pages: int | None = None
    ocr_errors: list[str] = field(default_factory=list)  # images that could not be read
    references: list = field(default_factory=list)  # a paper's parsed reference list (core.hub.pdf.references.Reference)
    library: dict = field(default_factory=dict)  # venue, doi, arxiv_id, tags a Markdown front matter gives


def reader_version(path: Path) -> str:
    """The version of the reader for ``path``'s type when it is versioned (PDF), else ``""``: a
    document indexed by another version is read again on the next ingest."""
    if SUFFIXES.get(path.suffix.lower()) == "pdf":
        from core.hub.pdf import READER_VERSION

        return READER_VERSION
    return ""


def references_json(references: list) -> str:
    """A parsed reference list as the hub stores it (one JSON object per entry, without the raw text)."""
    import dataclasses
    import json

    rows = [{k: v for k, v in dataclasses.asdict(r).items() if k != "text" and v not in (None, "")} for r in references]
    return json.dumps(rows, ensure_ascii=False)


def read_document(path: Path) -> ParsedDoc:
    kind = SUFFIXES.get(path.suffix.lower())
    if kind is None:
        raise ReadError(f"unsupported file type {path.suffix or '(none)'}")
    if kind in ("xlsx", "csv"):
        from core.hub import tables

        reader = tables.read_xlsx if kind == "xlsx" else tables.read_csv
    else:
        reader = {"markdown": _read_markdown, "text": _read_markdown, "pdf": _read_pdf,
                  "docx": _read_docx, "pptx": _read_pptx}[kind]
    try:
        doc = reader(path)
    except (ReadError, OSError):
        raise
    except Exception as exc:  # noqa: BLE001 - third-party parsers on untrusted files
        reason = ("nested too deeply to parse" if isinstance(exc, RecursionError)
                  else str(exc).splitlines()[0][:200] if str(exc) else "")
        raise ReadError(f"unreadable {kind} ({type(exc).__name__}{': ' + reason if reason else ''})") from None
    doc.doc_type = kind
    doc.blocks = [b for b in doc.blocks if b.text.strip()]
    if not doc.blocks:
        raise ReadError("no extractable text" + (f" ({doc.ocr_errors[0]})" if doc.ocr_errors else ""))
    return doc


# -- Markdown / text -------------------------------------------------------------------------------
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.S)


def _clean_md(text: str) -> str:
    text = re.sub(r"\*\*(.+?)\*\*|__(.+?)__", lambda m: m.group(1) or m.group(2), text)
    text = re.sub(r"`([^`]+)`", r"\1", text)
    return re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)


def _front_matter(text: str) -> tuple[dict, str]:
    m = _FRONT.match(text)
    if not m:
        return {}, text
    try:
        data = yaml.safe_load(m.group(1))
    except yaml.YAMLError:
        return {}, text
    return (data if isinstance(data, dict) else {}), text[m.end():]


def _authors(value: object) -> list[str]:
    if isinstance(value, list):
        return [str(a).strip() for a in value if str(a).strip()]
    if isinstance(value, str):
        return [a.strip() for a in re.split(r";|,| and ", value) if a.strip()]
    return []


def _year(value: object) -> int | None:
    m = re.search(r"\b(19|20)\d{2}\b", str(value or ""))
    return int(m.group(0)) if m else None


def short_title(title: str) -> str:
    """Breadcrumb root: ``"QLoRA: Efficient Finetuning..."`` → ``"QLoRA"`` (short name before a colon)."""
    head, sep, _ = title.partition(":")
    return head.strip() if sep and 1 < len(head.strip()) <= 24 else title


def parse_markdown(text: str, fallback_title: str) -> ParsedDoc:
    """Section tree of a Markdown (or plain text) document, as blocks with breadcrumb paths."""
    meta, body = _front_matter(text.replace("\r\n", "\n"))
    lines = body.split("\n")
    headings = [(i, len(m.group(1)), _clean_md(m.group(2))) for i, m in
                ((i, _HEADING.match(line)) for i, line in enumerate(_unfenced(lines))) if m]
    h1 = [h for h in headings if h[1] == 1]
    title = str(meta.get("title") or "").strip()
    root_is_h1 = len(h1) == 1 and headings and headings[0][1] == 1
    if not title:
        title = h1[0][2] if root_is_h1 else fallback_title
    doc = ParsedDoc(title=title, doc_type="markdown", authors=_authors(meta.get("authors")),
                    year=_year(meta.get("year") or meta.get("date")), library=front_matter_metadata(meta))
    root = short_title(h1[0][2] if root_is_h1 else title)
    stack: list[tuple[int, str]] = []
    buf: list[str] = []
    head_at = {i: (lvl, t) for i, lvl, t in headings}

    def flush() -> None:
        body_text = "\n".join(buf).strip()
        buf.clear()
        if body_text:
            doc.blocks.append(Block([root] + [t for _, t in stack], _clean_md(body_text)))

    for i, line in enumerate(lines):
        if i in head_at:
            flush()
            lvl, text_ = head_at[i]
            if root_is_h1 and lvl == 1:
                stack = []
                continue
            while stack and stack[-1][0] >= lvl:
                stack.pop()
            stack.append((lvl, text_))
        else:
            buf.append(line)
    flush()
    return doc


def _unfenced(lines: list[str]) -> list[str]:
    """Lines with fenced code blanked, so ``#`` comments in code are not headings."""
    out, fenced = [], False
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
            out.append("")
        else:
            out.append("" if fenced else line)
    return out


def _read_markdown(path: Path) -> ParsedDoc:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        text = path.read_text(encoding="latin-1")
    return parse_markdown(text, path.stem.replace("_", " ").replace("-", " "))


# -- PDF ---------------------------------------------------------------------------------------------
def _read_pdf(path: Path) -> ParsedDoc:
    """A paper's layout read by :mod:`core.hub.pdf` (title, sections, references kept apart)."""
    from core.hub.pdf import read_pdf

    return read_pdf(path)


# -- DOCX / PPTX ---------------------------------------------------------------------------------------
def _read_docx(path: Path) -> ParsedDoc:
    try:
        import docx

        d = docx.Document(str(path))
    except Exception as exc:  # noqa: BLE001 - python-docx raises many types for bad files
        raise ReadError(f"unreadable DOCX ({type(exc).__name__})") from None
    title = (d.core_properties.title or "").strip() or path.stem
    doc = ParsedDoc(title=title, doc_type="docx", authors=_authors(d.core_properties.author))
    stack: list[tuple[int, str]] = []
    buf: list[str] = []
    images: list[tuple[int, bytes]] = []
    for para in d.paragraphs:
        style = (para.style.name if para.style is not None else "") or ""
        text = para.text.strip()
        m = re.match(r"Heading (\d)", style)
        if m and text:
            if buf:
                doc.blocks.append(Block([title] + [t for _, t in stack], "\n".join(buf)))
                buf = []
            doc.blocks += ocr.image_blocks(images, [title] + [t for _, t in stack], None, path.name, doc.ocr_errors)
            images = []
            lvl = int(m.group(1))
            while stack and stack[-1][0] >= lvl:
                stack.pop()
            stack.append((lvl, text))
        elif text and style != "Title":
            buf.append(text)
        if ocr.enabled():
            images += [(len(images) + 1, blob) for blob in ocr.docx_paragraph_images(d, para)]
    if buf:
        doc.blocks.append(Block([title] + [t for _, t in stack], "\n".join(buf)))
    doc.blocks += ocr.image_blocks(images, [title] + [t for _, t in stack], None, path.name, doc.ocr_errors)
    return doc


def _read_pptx(path: Path) -> ParsedDoc:
    try:
        from pptx import Presentation

        prs = Presentation(str(path))
    except Exception as exc:  # noqa: BLE001
        raise ReadError(f"unreadable PPTX ({type(exc).__name__})") from None
    title = (prs.core_properties.title or "").strip() or path.stem
    doc = ParsedDoc(title=title, doc_type="pptx", pages=len(prs.slides))
    for n, slide in enumerate(prs.slides, start=1):
        head = slide.shapes.title.text.strip() if slide.shapes.title is not None else ""
        texts = [s.text_frame.text.strip() for s in slide.shapes
                 if s.has_text_frame and s != slide.shapes.title and s.text_frame.text.strip()]
        doc.blocks.append(Block([title, head or f"Slide {n}"], "\n".join(texts), n))
        if ocr.enabled():
            pictures = list(enumerate(ocr.pptx_slide_images(slide), start=1))
            doc.blocks += ocr.image_blocks(pictures, [title, head or f"Slide {n}"], n, path.name, doc.ocr_errors)
    return doc
