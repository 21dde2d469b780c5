"""Index a reference library's entries (from a ``.bib`` file or a Zotero database) into the hub.

An entry with an attached PDF is ingested as that file (the first PDF: a paper's supplements are
not the paper), with the entry's metadata stored over what the PDF reader guessed. An entry without
one becomes a document read from its title and abstract (``doc_type`` ``abstract``), its path the
pseudo path ``<kind>:<key>``. A re-import changes nothing: an unchanged file with unchanged
metadata is skipped, an abstract document whose text and metadata hash the same is skipped, and a
Zotero item whose ``dateModified`` is the one last imported is not looked at again. An entry whose
metadata changed while its file did not is read again, so its chunks carry the new title.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from core.hub.chunking import chunk_blocks, offline_summary
from core.hub.ingest import IngestReport, Ingestor, _slug
from core.hub.library.metadata import ABSTRACT_DOC_TYPE, LibraryEntry
from core.hub.readers import parse_markdown

# Fields only a library entry gives: one the entry no longer has was removed from it. The venue is not
# among them: a PDF's first page gives one too (core.hub.pdf.front.venue), kept like its title and year
# when the entry leaves it out.
_LIBRARY_ONLY = ("doi", "arxiv_id", "citation_key", "tags", "source_kind", "url")


def import_entries(ingestor: Ingestor, entries: list[LibraryEntry], collection: str, *, force: bool = False,
                   progress: Callable[[Path, str, int], None] | None = None) -> IngestReport:
    """Index ``entries`` into ``collection``; one report for files and abstracts together."""
    store = ingestor.store
    report = IngestReport()
    fresh: list[LibraryEntry] = []
    for e in entries:
        stamp_key = _stamp_key(collection, e)
        if (not force and e.modified and store.get_meta(stamp_key) == e.modified
                and (doc := _stored(store, collection, e)) is not None):
            report.skipped.append(doc["doc_id"])
            continue
        fresh.append(e)
    with_file = [e for e in fresh if e.files]
    meta = {str(e.files[0].resolve()): e.columns() for e in with_file}
    changed = [p for p, cols in meta.items() if _differs(store.document_by_path(collection, p), cols)]
    same = [p for p in meta if p not in changed]
    for paths, again in ((same, force), (changed, True)):
        if paths:
            merge_reports(report, ingestor.ingest(paths, collection, force=again, progress=progress, meta=meta))
    for e in fresh:
        if not e.files:
            _abstract(ingestor, e, collection, force, report)
    failed = {p for p, _ in report.failed}
    for e in fresh:
        if e.modified and not (e.files and str(e.files[0].resolve()) in failed):
            store.set_meta(_stamp_key(collection, e), e.modified)
    return ingestor._refresh_topics(report, collection) if any(not e.files for e in fresh) else report


def read_source(arg: str, max_bib_bytes: int | None = None) -> tuple[list[LibraryEntry], list[str]]:
    """The entries of ``zotero:[PATH][#collection]`` or a ``.bib`` file, and notes on what was
    left out; :class:`~core.hub.library.metadata.LibraryError` when the source cannot be read."""
    if arg.lower().startswith("zotero:"):
        from core.hub.library.zotero import parse_source, read_zotero

        return read_zotero(*parse_source(arg)), []
    from core.hub.library.bibtex import read_bib

    return read_bib(Path(arg).expanduser(), max_bib_bytes)


def abstract_path(e: LibraryEntry) -> str:
    """The pseudo path an abstract-only entry is stored under (its identity in the collection)."""
    return f"{e.source_kind}:{e.key}"


def _stamp_key(collection: str, e: LibraryEntry) -> str:
    return f"library:{e.source_kind}:{collection}:{e.key}"


def _stored(store, collection: str, e: LibraryEntry) -> dict | None:
    doc = store.document_by_path(collection, str(e.files[0].resolve()) if e.files else abstract_path(e))
    return doc if doc is not None and not doc.get("deleted_at") else None


def _differs(doc: dict | None, cols: dict) -> bool:
    """Whether a stored document's metadata differs from what the entry sets (False when not stored:
    a new file is read anyway). A field the entry leaves out keeps the PDF's guess (title, authors,
    year, venue), but a library field the entry no longer has (a DOI removed) counts as a change."""
    if doc is None:
        return False
    if any((doc.get(k) or None) != v for k, v in cols.items()):
        return True
    return any(doc.get(k) for k in _LIBRARY_ONLY if k not in cols)


def merge_reports(into: IngestReport, part: IngestReport) -> None:
    """Add ``part``'s counts and lists to ``into``."""
    into.added += part.added
    into.updated += part.updated
    into.skipped += part.skipped
    into.failed += part.failed
    into.pages += part.pages
    into.chunks += part.chunks
    into.topic_error = into.topic_error or part.topic_error


def _abstract(ingestor: Ingestor, e: LibraryEntry, collection: str, force: bool, report: IngestReport) -> None:
    """Write (or skip, unchanged) the abstract-only document of ``e``."""
    store = ingestor.store
    path = abstract_path(e)
    text = e.abstract_text()
    cols = e.columns()
    digest = hashlib.sha256((text + json.dumps(cols, sort_keys=True)).encode()).hexdigest()
    old = store.document_by_path(collection, path)
    if old is not None and old["file_hash"] == digest and not old.get("deleted_at") and not force:
        report.skipped.append(old["doc_id"])
        return
    parsed = parse_markdown(text, e.title)
    chunks = chunk_blocks(parsed.blocks)
    if ingestor.embed and chunks:
        from core.embeddings import embed

        for c, v in zip(chunks, embed([f"{c.breadcrumb}: {c.text}" for c in chunks])):
            c.vector = v
    doc_id = old["doc_id"] if old else _new_doc_id(store, collection, e)
    store.put_document({"doc_id": doc_id, "collection": collection, "path": path, "doc_type": ABSTRACT_DOC_TYPE,
                        "file_hash": digest, "file_size": len(text.encode()), "pages": None,
                        "summary": ingestor._redact.text(offline_summary(parsed.blocks)), **cols},
                       chunks, ingestor.keep_versions)
    (report.updated if old else report.added).append(doc_id)
    report.chunks += len(chunks)


def _new_doc_id(store, collection: str, e: LibraryEntry) -> str:
    base = _slug(e.citation_key or e.title)
    if not store.doc_id_taken(base):
        return base
    return f"{base}-{hashlib.sha1(f'{collection}:{abstract_path(e)}'.encode()).hexdigest()[:6]}"

