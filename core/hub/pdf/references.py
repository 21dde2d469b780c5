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
from core.text import REFERENCE_PART_END, split_sentences

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
    # a labelled list starts with a label, and labels recur (a one-entry list is labelled too)
    labelled = bool(_LABEL.match(lines[0].text)) and sum(1 for ln in lines if _LABEL.match(ln.text)) >= max(1, len(lines) // 6)
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
    """Fields of one entry, as far as its punctuation shows them.

    Two layouts are common: "Authors. Year. Title. Venue." (ACL) and "Authors. Title. Venue, Year."
    (numbered styles). The author block ends at the first period that closes a word (a surname, not
    an initial) or an initial followed by a title's first word; the title runs to the next sentence end.
    """
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
    end = _authors_end(text)
    if y and (end is None or y.start() <= end + 2):  # "Authors. 2019. Title. Venue." / "Authors (2019). Title."
        head, tail = text[: y.start()], text[y.end():]
        ref.authors = head.strip(" .,(")
        parts = _parts(tail.strip(" .,)"))
        if parts:
            ref.title = parts[0].strip(" .“”\"")
            ref.venue = " ".join(parts[1:2]).strip(" .,")
    elif end is not None:  # "Authors. Title. Venue, 2019."
        ref.authors = text[:end].strip(" .,")
        parts = _parts(text[end + 1:].strip())
        ref.title = parts[0].strip(" .“”\"") if parts else ""
        venue = " ".join(parts[1:2]).strip(" .,")
        ref.venue = _YEAR_TAIL.sub("", venue).strip(" .,") if venue else ""
    else:
        ref.authors = text.strip(" .")
    return ref


_YEAR_TAIL = re.compile(r"[,\s(]*(?:19[5-9]\d|20[0-4]\d)[a-z]?\)?\.?$")
_WORD_END = re.compile(r"(?<=[a-z\u00c0-\u024f'’\-]{2})\.\s+|\.\s+(?=[A-Z“\"][a-z]+ (?!and\b)[a-z])|(?<=\.)[”\"]?\s+(?=[“\"])")


def _authors_end(text: str) -> int | None:
    """Index of the period that closes the author block (None when there is none)."""
    for m in _WORD_END.finditer(text):
        before = text[: m.start()].rstrip()
        if before.endswith(("et al", " al")):
            continue
        return m.start()
    return None


def _parts(text: str) -> list[str]:
    """An entry's parts after its authors: title, venue, identifiers (:data:`core.text.REFERENCE_PART_END`)."""
    return split_sentences(text, end=REFERENCE_PART_END, abbreviation=None)


def short_cite(ref: Reference) -> str:
    """"Lovelace, 2019", "Turing and Hopper, 2021", "Portilla et al., 2003" (authors' surnames, year)."""
    names = _surnames(ref.authors)
    if not names:
        return ""
    who = names[0] if len(names) == 1 else f"{names[0]} and {names[1]}" if len(names) == 2 else f"{names[0]} et al."
    return f"{who}, {ref.year}" if ref.year else who


_INITIALS = re.compile(r"^(?:[A-Z]\.?\s*-?)+$")


def _surnames(authors: str) -> list[str]:
    """Surnames from "J. Portilla, V. Strela and E.P. Simoncelli" or "Abbeel, P. and Ng, A. Y."."""
    text = re.sub(r"\bet al\.?", "", authors).strip(" ,.")
    if not text:
        return []
    pieces = [p.strip() for p in re.split(r",\s*(?:and\s+)?|\s+and\s+|\s*&\s*", text) if p.strip()]
    out: list[str] = []
    i = 0
    while i < len(pieces):
        piece = pieces[i]
        nxt = pieces[i + 1] if i + 1 < len(pieces) else ""
        if nxt and _INITIALS.match(nxt) and not _INITIALS.match(piece):  # "Abbeel, P." — surname first
            out.append(piece)
            i += 2
            continue
        words = [w for w in piece.split() if not _INITIALS.match(w)]
        if words:
            out.append(words[-1])
        i += 1
    return out


def mark_citations(text: str, refs: dict[str, Reference] | None = None) -> str:
    """A paper's numeric citation markers as ``[ref n]`` (never PaperPilot's own ``[n]``); where the
    reference list resolves a marker of one or two labels, the cited work is named:
    ``[ref 3: Portilla et al., 2003]``."""
    def sub(m: re.Match) -> str:
        group = m.group(1)
        if group.startswith("0"):
            return m.group(0)
        labels = [x.strip() for x in re.split(r"\s*,\s*", group)]
        named = [f"{x}: {c}" for x in labels if refs and x in refs and (c := short_cite(refs[x]))]
        if named and len(named) == len(labels) <= 2:
            return f"[ref {'; '.join(named)}]"
        return f"[ref {group}]"
    return _MARKER.sub(sub, text)
