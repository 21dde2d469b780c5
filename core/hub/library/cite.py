"""An answer's sources as BibTeX, and its ``[n]`` markers as pandoc citations (``[@key]``).

Works on the answer's :class:`core.types.Source` items (any object with ``index``, ``doc_id``,
``title``, ``source`` and ``meta``): each cited document becomes one entry, keyed by its citation
key where the library gave one, else ``authorYEARword`` (:func:`core.hub.library.bibtex.assign_keys`).
Two chunks of one paper share its key. Markers in code spans and fenced blocks are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from core.hub.library.bibtex import assign_keys, write_bib

_GROUP = re.compile(r"(?:\[\d+(?:\s*,\s*\d+)*\])+")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)


def source_docs(sources: Iterable[Any]) -> list[dict]:
    """One document row per cited document (first source wins), in citation order."""
    docs: dict[str, dict] = {}
    for s in sources:
        doc_id = s.doc_id or s.source or s.chunk_id
        if doc_id in docs:
            continue
        meta = getattr(s, "meta", None)
        docs[doc_id] = {"doc_id": doc_id, "title": s.title or s.source or doc_id,
                        "authors": list(meta.authors) if meta else [], "year": meta.year if meta else None,
                        "venue": meta.venue if meta else None, "doi": meta.doi if meta else None,
                        "arxiv_id": meta.arxiv_id if meta else None,
                        "citation_key": meta.citation_key if meta else None,
                        "url": getattr(s, "url", None), "path": s.source or ""}
    return list(docs.values())


def sources_bib(sources: list[Any]) -> tuple[str, dict[int, str]]:
    """(the ``.bib`` text of the cited documents, citation index -> key)."""
    bib, (keys,) = session_citations([sources])
    return bib, keys


def pandoc_citations(text: str, keys: dict[int, str]) -> str:
    """``text`` with each run of ``[n]`` markers turned into one ``[@key; @key2]`` (a marker with no
    source is kept as it is)."""
    def group(m: re.Match) -> str:
        nums = [int(n) for n in re.findall(r"\d+", m.group(0))]
        if not all(n in keys for n in nums):
            return m.group(0)
        return "[" + "; ".join(f"@{k}" for k in dict.fromkeys(keys[n] for n in nums)) + "]"

    out, last = [], 0
    for code in _CODE.finditer(text):
        out.append(_GROUP.sub(group, text[last:code.start()]))
        out.append(code.group(0))
        last = code.end()
    out.append(_GROUP.sub(group, text[last:]))
    return "".join(out)


def session_citations(groups: list[list[Any]]) -> tuple[str, list[dict[int, str]]]:
    """For several answers' sources (each numbered from 1): the ``.bib`` of every cited document,
    one key per document across all of them, and each answer's index -> key."""
    docs = source_docs(s for group in groups for s in group)
    keys = assign_keys(docs)
    return write_bib(docs, keys), [{s.index: keys[s.doc_id or s.source or s.chunk_id] for s in group}
                                   for group in groups]
