"""Which document of the library a parsed reference entry names, and how sure that is.

A reference names a library document by an identifier both carry (a DOI or an arXiv id: certain),
else by its title: the entry's parsed title equal to the document's, or the document's whole title
found inside the entry's text (the parse may have cut the title at a colon or glued the venue on),
or the same words in another order. Titles are compared normalized (:func:`norm_title`: Unicode
folded, lower case, letters and digits only). Years agree when they are within one of each other (a
preprint and its venue version); a title match whose years disagree by more is not a match. A
document's short title (under :data:`MIN_CONTAINED_WORDS` words) must equal the entry's title: a
two-word title is found inside too many unrelated entries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text import fold_ascii

MIN_CONTAINED_WORDS = 4  # a library title this long may be found inside an entry's text
MIN_WORD_OVERLAP = 0.85  # Jaccard of the title words for a reordered/reworded title

# confidence by kind of evidence: (years agree, a year unknown)
CONFIDENCE = {"doi": (1.0, 1.0), "arxiv": (1.0, 1.0), "title": (0.95, 0.85),
              "title_in_entry": (0.85, 0.7), "title_words": (0.75, 0.6)}

_ARXIV_URL = re.compile(r"arxiv\.org/(?:abs|pdf)/(\d{4}\.\d{4,5})", re.I)
_ARXIV_ID = re.compile(r"^(\d{4}\.\d{4,5})(?:v\d+)?$")


def norm_title(text: str) -> str:
    """``"BERT: Pre-training of Deep…"`` → ``"bert pre training of deep"``."""
    folded = fold_ascii(text or "").lower()
    return " ".join(re.sub(r"[^a-z0-9]+", " ", folded).split())


def norm_doi(doi: str | None) -> str:
    return (doi or "").strip().lower().removeprefix("https://doi.org/").removeprefix("doi:").rstrip(".")


def document_ids(doc: dict) -> tuple[str, str]:
    """(DOI, arXiv id) a library document is known by: its metadata columns where the store has
    them, else the arXiv id of the page it was fetched from."""
    doi = norm_doi(doc.get("doi"))
    arxiv = str(doc.get("arxiv_id") or doc.get("arxiv") or "").strip()
    if m := _ARXIV_ID.match(arxiv):
        arxiv = m.group(1)
    if not arxiv and (m := _ARXIV_URL.search(doc.get("url") or "")):
        arxiv = m.group(1)
    return doi, arxiv


@dataclass(frozen=True)
class Match:
    doc_id: str
    confidence: float
    how: str  # doi, arxiv, title, title_in_entry or title_words


@dataclass(frozen=True)
class _Doc:
    doc_id: str
    title: str  # normalized
    words: frozenset[str]
    year: int | None


class LibraryIndex:
    """The documents of one collection, indexed for :meth:`match`."""

    def __init__(self, docs: list[dict]):
        self.by_doi: dict[str, str] = {}
        self.by_arxiv: dict[str, str] = {}
        self.docs: list[_Doc] = []
        for d in docs:
            doi, arxiv = document_ids(d)
            if doi:
                self.by_doi.setdefault(doi, d["doc_id"])
            if arxiv:
                self.by_arxiv.setdefault(arxiv, d["doc_id"])
            title = norm_title(d.get("title") or "")
            if len(title.split()) >= 2:
                self.docs.append(_Doc(d["doc_id"], title, frozenset(title.split()), _year(d.get("year"))))

    def match(self, ref: dict, citing: str) -> Match | None:
        """The library document ``ref`` (a parsed entry: title, authors, venue, year, doi, arxiv)
        names, if any; never ``citing`` itself."""
        for key, table, how in ((norm_doi(ref.get("doi")), self.by_doi, "doi"),
                                (str(ref.get("arxiv") or ""), self.by_arxiv, "arxiv")):
            if key and (hit := table.get(key)) and hit != citing:
                return Match(hit, CONFIDENCE[how][0], how)
        title = norm_title(ref.get("title") or "")
        entry = f" {norm_title(' '.join(str(ref.get(k) or '') for k in ('authors', 'title', 'venue')))} "
        words = frozenset(title.split())
        year = _year(ref.get("year"))
        best: Match | None = None
        for d in self.docs:
            if d.doc_id == citing:
                continue
            if title and title == d.title:
                how = "title"
            elif len(d.words) >= MIN_CONTAINED_WORDS and f" {d.title} " in entry:
                how = "title_in_entry"
            elif len(words) >= MIN_CONTAINED_WORDS and len(d.words) >= MIN_CONTAINED_WORDS \
                    and len(words & d.words) / len(words | d.words) >= MIN_WORD_OVERLAP:
                how = "title_words"
            else:
                continue
            if year and d.year and abs(year - d.year) > 1:
                continue
            conf = CONFIDENCE[how][0 if year and d.year else 1]
            if best is None or conf > best.confidence:
                best = Match(d.doc_id, conf, how)
        return best


def _year(value) -> int | None:
    try:
        year = int(value)
    except (TypeError, ValueError):
        return None
    return year if 1900 < year < 2100 else None
