"""Bibliographic metadata per document, and the library entry both importers produce.

A document row carries, beside its title, authors, year and URL: ``venue``, ``doi``, ``arxiv_id``,
``citation_key``, ``tags`` (a JSON list) and ``source_kind`` (where it came from: ``zotero``,
``bib``, ``arxiv``, or NULL for a file ingested by path). A document indexed from an entry's
abstract alone has ``doc_type`` ``abstract``. :func:`add_columns` adds the columns to a store
made before them (SQLite; PostgreSQL has its own migration step).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

# name -> SQLite type, in the order they were added
COLUMNS: dict[str, str] = {"venue": "TEXT", "doi": "TEXT", "arxiv_id": "TEXT", "citation_key": "TEXT",
                           "tags": "TEXT", "source_kind": "TEXT"}
ABSTRACT_DOC_TYPE = "abstract"  # a document indexed from a library entry's abstract (no file)

_DOI = re.compile(r"10\.\d{4,9}/[^\s\"<>{}]+", re.I)
# new-style (2101.00001, optional version) and old-style (cs/0101001) arXiv identifiers
_ARXIV = re.compile(r"(?:arxiv(?:\.org/(?:abs|pdf)/|:\s*|\s+))?"
                    r"(\d{4}\.\d{4,5}(?:v\d+)?|[a-z-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)", re.I)
_ARXIV_CONTEXT = re.compile(r"arxiv", re.I)


class LibraryError(Exception):
    """A library source (a ``.bib`` file, a Zotero database) that cannot be read: the one-line reason."""


def is_library_source(arg: str) -> bool:
    """Whether an ``ingest`` argument names a library: ``zotero:...`` or a ``.bib`` file."""
    return arg.lower().startswith("zotero:") or arg.lower().endswith(".bib")


def add_columns(db) -> None:
    """Add the metadata columns a SQLite ``documents`` table lacks (a store from before them)."""
    have = {r[1] for r in db.execute("PRAGMA table_info(documents)")}
    for name, kind in COLUMNS.items():
        if name not in have:
            db.execute(f"ALTER TABLE documents ADD COLUMN {name} {kind}")


def normalize_doi(value: str | None) -> str | None:
    """The bare DOI in ``value`` (a DOI, ``doi:...`` or a doi.org URL), lower-cased; None if none."""
    m = _DOI.search(value or "")
    return m.group(0).rstrip(".,;").lower() if m else None


def find_arxiv(*texts: str | None) -> str | None:
    """The arXiv id named in any of ``texts`` (an arxiv.org URL, ``arXiv:2106.09685``, a Zotero
    ``extra`` line), without its version suffix; None if none. A bare number counts only in a text
    that mentions arXiv (a page range or a DOI suffix must not pass for one)."""
    for text in texts:
        if not text or not _ARXIV_CONTEXT.search(text):
            continue
        m = _ARXIV.search(text[_ARXIV_CONTEXT.search(text).start():])
        if m:
            return re.sub(r"v\d+$", "", m.group(1))
    return None


def front_matter_metadata(meta: dict) -> dict:
    """The venue, DOI, arXiv id and tags a Markdown note's YAML front matter gives (keys ``venue``,
    ``doi``, ``arxiv``/``arxiv_id``, ``tags``/``keywords``), for its document row."""
    tags = meta.get("tags") or meta.get("keywords") or []
    tags = [t.strip() for t in re.split(r"[,;]", tags)] if isinstance(tags, str) else tags
    arxiv = meta.get("arxiv_id") or meta.get("arxiv")
    out = {"venue": str(meta["venue"]).strip() if meta.get("venue") else None,
           "doi": normalize_doi(str(meta.get("doi") or "")),
           "arxiv_id": find_arxiv(f"arXiv:{arxiv}") if arxiv else None,
           "tags": [str(t).strip() for t in tags if str(t).strip()] if isinstance(tags, list) else []}
    return {k: v for k, v in out.items() if v}


@dataclass
class LibraryEntry:
    """One item of a reference library (a ``.bib`` entry or a Zotero item), as the hub indexes it."""

    key: str  # the entry's identity in its library: a .bib citation key, a Zotero item key
    title: str
    authors: list[str] = field(default_factory=list)  # "First Last"
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    url: str | None = None
    abstract: str = ""
    tags: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)  # attached PDFs that exist
    entry_type: str = "article"
    citation_key: str | None = None  # the user's own key (BibTeX, Better BibTeX); None for a plain Zotero item
    source_kind: str = "bib"
    modified: str = ""  # the library's last-modified stamp (Zotero's dateModified), for incremental imports

    def columns(self) -> dict:
        """The document fields this entry sets, over whatever parsing its file found."""
        out = {"title": self.title, "authors": self.authors, "year": self.year, "venue": self.venue,
               "doi": self.doi, "arxiv_id": self.arxiv_id, "citation_key": self.citation_key,
               "tags": self.tags, "source_kind": self.source_kind}
        if self.url:
            out["url"] = self.url
        return {k: v for k, v in out.items() if v not in (None, "", [])}

    def abstract_text(self) -> str:
        """The Markdown an abstract-only document is read from: title, metadata line, abstract."""
        head = " · ".join(x for x in (", ".join(self.authors), self.venue or "", str(self.year or "")) if x)
        body = self.abstract.strip() or "(This entry has no abstract.)"
        return f"# {self.title}\n\n{head}\n\n## Abstract\n\n{body}\n"


def doc_metadata(doc: dict) -> dict:
    """The bibliographic part of a stored document row, None and empty fields left out."""
    tags = doc.get("tags")
    if isinstance(tags, str):
        tags = json.loads(tags or "[]")
    out = {"title": doc.get("title"), "authors": doc.get("authors") or None, "year": doc.get("year"),
           "venue": doc.get("venue"), "doi": doc.get("doi"), "arxiv_id": doc.get("arxiv_id"),
           "citation_key": doc.get("citation_key"), "tags": tags or None, "url": doc.get("url"),
           "source_kind": doc.get("source_kind"),
           "abstract_only": True if doc.get("doc_type") == ABSTRACT_DOC_TYPE else None}
    return {k: v for k, v in out.items() if v not in (None, "", [])}
