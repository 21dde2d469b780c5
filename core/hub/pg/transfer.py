"""Copy a SQLite hub into a PostgreSQL one (``paperpilot hub migrate --to postgres``).

Per document, in one PostgreSQL transaction each: the document row (version and times kept), its
chunks (same chunk ids) and their vectors, read from the SQLite file as stored (nothing is
re-embedded). A document already copied with the same file hash, version, update time and as many
chunks and vectors is skipped (vectors embedded later in SQLite are copied on the next run), so the copy can be interrupted and re-run; the meta table (the bundled notes'
digests among it) is copied last with the topics' given names (the topics themselves are recomputed
there, the same ones), and every collection is created even when empty. Documents that
exist only in PostgreSQL are left alone and counted.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from core.hub.store import HubStore, NewChunk


@dataclass
class CopyReport:
    copied: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    only_in_target: list[str] = field(default_factory=list)
    chunks: int = 0
    vectors: int = 0
    meta: int = 0
    seconds: float = 0.0


Progress = Callable[[int, int, CopyReport], None]


def copy_hub(src: HubStore, dst, progress: Progress | None = None) -> CopyReport:
    """Copy every collection, document, chunk, vector and meta key of ``src`` into ``dst`` (a PgStore)."""
    t0 = time.perf_counter()
    report = CopyReport()
    docs = src.documents()
    with dst.write() as db:
        for name in src.collections():
            dst.ensure_collection(db, name)
    for i, doc in enumerate(docs, start=1):
        chunks = src.doc_chunks(doc["doc_id"])
        have = dst.document(doc["doc_id"])
        vectors = _vectors(src, doc["doc_id"])
        if have is not None and _same(have, doc) and _counts(dst, doc["doc_id"]) == (len(chunks), len(vectors)):
            report.skipped.append(doc["doc_id"])
        else:
            new = [NewChunk(section_path=c.section_path, text=c.text, page=c.page, vector=vectors.get(c.rowid))
                   for c in chunks]
            dst.put_document(doc, new)
            report.copied.append(doc["doc_id"])
            report.chunks += len(new)
            report.vectors += sum(v is not None for v in vectors.values())
        if progress is not None:
            progress(i, len(docs), report)
    items = list(src.conn().execute("SELECT key, value FROM meta ORDER BY key"))
    with dst.write() as db:
        for key, value in items:
            db.execute("INSERT INTO meta(key, value) VALUES(%s, %s)"
                       " ON CONFLICT(key) DO UPDATE SET value = excluded.value", (key, value))
    report.meta = len(items)
    names = list(src.conn().execute("SELECT collection, topic_id, name, members, named_at FROM topic_names"))
    with dst.write() as db:  # topics are recomputed there (the same ones); a name finds its topic by its documents
        for row in names:
            db.execute("INSERT INTO topic_names(collection, topic_id, name, members, named_at)"
                       " VALUES(%s, %s, %s, %s, %s) ON CONFLICT(collection, topic_id) DO UPDATE SET"
                       " name = excluded.name, members = excluded.members, named_at = excluded.named_at", row)
    mine = {d["doc_id"] for d in docs}
    report.only_in_target = [d["doc_id"] for d in dst.documents() if d["doc_id"] not in mine]
    report.seconds = time.perf_counter() - t0
    return report


def _same(have: dict, doc: dict) -> bool:
    return (have["file_hash"], have["version"], float(have["updated_at"])) == (
        doc["file_hash"], doc["version"], float(doc["updated_at"]))


def _counts(dst, doc_id: str) -> tuple[int, int]:
    """(chunks, vectors) stored for ``doc_id`` in PostgreSQL."""
    return tuple(dst.conn().execute("SELECT count(*), count(e.chunk_rowid) FROM chunks c LEFT JOIN embeddings e"
                                    " ON e.chunk_rowid = c.id WHERE c.doc_id=%s", (doc_id,)).fetchone())


def _vectors(src: HubStore, doc_id: str) -> dict[int, np.ndarray]:
    rows = src.conn().execute("SELECT e.chunk_rowid, e.vector FROM embeddings e JOIN chunks c ON c.id = e.chunk_rowid"
                              " WHERE c.doc_id=?", (doc_id,))
    return {rid: np.frombuffer(blob, dtype=np.float32) for rid, blob in rows}
