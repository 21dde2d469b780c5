"""A paper's reference list: split into entries, each parsed into authors, title, year, venue and
identifiers; and the paper's own citation markers rewritten so they never read as PaperPilot's.

An entry starts at a label ("[12]", "12.") or, in an unlabelled list, at a line that begins at the
column's left edge when continuation lines are indented (a hanging indent), else after a line that
ends a sentence and a line that starts with a surname. PaperPilot's answers cite their sources as
``[n]`` (:data:`core.citations.MARKER_GROUP`); a paper's "[3]" or "[14, 16]" becomes "[ref 3]" /
"[ref 14, 16]", which that pattern never matches.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.hub.pdf.layout import Line

_LABEL = re.compile(r"^\s*(?:\[(\d{1,3})\]|(\d{1,3})\.)\s+")
_YEAR = re.compile(r"\b(19[5-9]\d|20[0-4]\d)[a-z]?\b")
_DOI = re.compile(r"\b(10\.\d{4,9}/[^\s,;]+[^\s,;.])", re.I)
_ARXIV = re.compile(r"\barXiv[:\s]*(?:abs/)?(\d{4}\.\d{4,5})(?:v\d+)?", re.I)
_SURNAME_START = re.compile(r"^[A-Z][\w'’\-]+(?:,| [A-Z]\.| and\b| et al)")
_MARKER = re.compile(r"\[(\d{1,3}(?:\s*[,–-]\s*\d{1,3})*)\]")


@dataclass
class Reference:
    text: str
    label: str | None = None
    authors: str = ""
    title: str = ""
    year: int | None = None
    venue: str = ""
    doi: str | None = None
    arxiv: str | None = None


def split_entries(lines: list[Line], join) -> list[str]:
    """The reference list's lines (reading order) as one string per entry; ``join`` joins lines."""
    if not lines:
        return []
    labelled = sum(1 for ln in lines if _LABEL.match(ln.text)) >= max(2, len(lines) // 6)
    entries: list[list[str]] = []
    indent = _hanging_indent(lines)
    prev: Line | None = None
    for ln in lines:
        text = ln.text.strip()
        if labelled:
            starts = bool(_LABEL.match(text))
        elif indent:
            starts = ln.x0 < _left(ln, lines) + 2
        else:
            starts = prev is None or (prev.text.rstrip().endswith(".") and bool(_SURNAME_START.match(text)))
        if starts or not entries:
            entries.append([text])
        else:
            entries[-1].append(text)
        prev = ln
    return [join(e) for e in entries if "".join(e).strip()]


def _left(ln: Line, lines: list[Line]) -> float:
    """The left edge of ``ln``'s column on its page."""
    same = [o.x0 for o in lines if o.page == ln.page and abs(o.x0 - ln.x0) < 60]
    return min(same) if same else ln.x0


def _hanging_indent(lines: list[Line]) -> bool:
    """Whether entries are set with a hanging indent (many lines sit a little right of the edge)."""
    indented = sum(1 for ln in lines if 4 < ln.x0 - _left(ln, lines) < 40)
    return indented >= len(lines) // 4


def parse_entry(text: str) -> Reference:
    """Fields of one entry, as far as its punctuation shows them."""
    label = None
    m = _LABEL.match(text)
    if m:
        label = m.group(1) or m.group(2)
        text = text[m.end():]
    ref = Reference(text=text.strip(), label=label)
    if d := _DOI.search(text):
        ref.doi = d.group(1)
    if a := _ARXIV.search(text):
        ref.arxiv = a.group(1)
    y = _YEAR.search(text)
    if y:
        ref.year = int(y.group(1))
        head, tail = text[: y.start()], text[y.end():]
        ref.authors = head.strip(" .,(")
        parts = [p.strip() for p in re.split(r"(?<=[.?!])\s+(?=[A-Z“\"]|ar[Xx]iv|doi|https?:)", tail.strip(" .,)")) if p.strip()]
        if parts:
            ref.title = parts[0].strip(" .“”\"")
            ref.venue = " ".join(parts[1:2]).strip(" .,")
    else:
        parts = [p.strip() for p in re.split(r"(?<=[a-z\]]\.)\s+", text) if p.strip()]
        ref.authors = parts[0].strip(" .") if parts else ""
        ref.title = parts[1].strip(" .") if len(parts) > 1 else ""
        ref.venue = parts[2].strip(" .") if len(parts) > 2 else ""
    return ref


def mark_citations(text: str) -> str:
    """A paper's numeric citation markers as ``[ref n]`` (never PaperPilot's own ``[n]``)."""
    return _MARKER.sub(lambda m: f"[ref {m.group(1)}]" if not m.group(1).startswith("0") else m.group(0), text)
