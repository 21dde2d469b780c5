"""The citation graph of a collection: which of its documents cites which, with a confidence.

Built from what ingest stored: each PDF's parsed reference list (``references:<doc_id>`` in meta,
see :mod:`core.hub.pdf.references`) is matched against the collection's documents
(:mod:`core.hub.refmatch`). Each edge keeps the reference entry and, where the citing paper's body
shows it, the sentence that cites it: the sentence holding the entry's numeric marker (the reader
rewrote "[3]" to "[ref 3: …]") or, for an author-year entry, its first author's surname followed
by its year ("Vaswani et al. (2017)", "(Vaswani et al., 2017)").

Edges are stored with the collection's revision and rebuilt when it moves: after ``ingest`` and,
lazily, on the first read after any other change (a document added, updated or removed). Both
backends keep the same two tables (:data:`SCHEMA`, created in an existing hub.sqlite3 by
:class:`core.hub.store.HubStore`; PostgreSQL migration 5 in :mod:`core.hub.pg.migrations`), and
the SQL here is written once with ``?`` and sent with the store's placeholder (``store.MARK``).
"""

from __future__ import annotations

import functools
import json
import re
import threading
import time

SCHEMA = """
CREATE TABLE IF NOT EXISTS citation_sets(
  collection TEXT PRIMARY KEY, revision INTEGER NOT NULL, references_parsed INTEGER NOT NULL,
  computed_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS citation_edges(
  collection TEXT NOT NULL, citing TEXT NOT NULL, cited TEXT NOT NULL, confidence REAL NOT NULL,
  how TEXT NOT NULL, reference TEXT NOT NULL, sentence TEXT, chunk_id TEXT, PRIMARY KEY(citing, cited));
CREATE INDEX IF NOT EXISTS citation_edges_cited ON citation_edges(cited);
CREATE INDEX IF NOT EXISTS citation_edges_coll ON citation_edges(collection);
"""
MAX_SENTENCE_CHARS = 400
_lock = threading.Lock()
_REF_MARK = re.compile(r"\[ref ([^\]]+)\]")
_LABEL = re.compile(r"^\s*(\d{1,3})(?:\s*[-–]\s*(\d{1,3}))?")


@functools.lru_cache(maxsize=1)
def _edge_class() -> type:
    """:class:`Edge`, defined on first use: every :class:`core.hub.store.HubStore` imports this module
    for :data:`SCHEMA`, and a hub's query path should not pay for pydantic's dataclasses."""
    from pydantic.dataclasses import dataclass

    @dataclass
    class Edge:
        """One cite edge: the citing and cited document, how it was matched, and the sentence that cites."""

        citing: str
        cited: str
        confidence: float
        how: str
        reference: str
        sentence: str = ""
        chunk_id: str = ""

    Edge.__qualname__ = Edge.__name__
    Edge.__module__ = __name__
    return Edge


def __getattr__(name: str):
    """``citegraph.Edge`` (PEP 562): built by :func:`_edge_class` when first asked for."""
    if name == "Edge":
        return _edge_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def current(store, collection: str) -> int:
    """Bring the collection's edges up to its revision (rebuilt when it moved); returns how many
    reference entries its documents have."""
    with _lock:
        row = store._execute("SELECT revision, references_parsed FROM citation_sets WHERE collection=?",
                             (collection,)).fetchone()
        rev = store.revision(collection)  # read before the build: a write meanwhile leaves the set stale
        if row is not None and row[0] == rev:
            return row[1]
        edges, parsed = build(store, collection)
        with store.write() as db:
            db.execute(_sql(store, "DELETE FROM citation_edges WHERE collection=?"), (collection,))
            db.cursor().executemany(_sql(store, _PUT_EDGE), [
                (collection, e.citing, e.cited, e.confidence, e.how, e.reference, e.sentence or None,
                 e.chunk_id or None) for e in edges])
            db.execute(_sql(store, _PUT_SET), (collection, rev if rev is not None else -1, parsed, time.time()))
        return parsed


_PUT_EDGE = ("INSERT INTO citation_edges(collection, citing, cited, confidence, how, reference, sentence, chunk_id)"
             " VALUES(?,?,?,?,?,?,?,?) ON CONFLICT(citing, cited) DO UPDATE SET collection = excluded.collection,"
             " confidence = excluded.confidence, how = excluded.how, reference = excluded.reference,"
             " sentence = excluded.sentence, chunk_id = excluded.chunk_id")
_PUT_SET = ("INSERT INTO citation_sets(collection, revision, references_parsed, computed_at) VALUES(?,?,?,?)"
            " ON CONFLICT(collection) DO UPDATE SET revision = excluded.revision,"
            " references_parsed = excluded.references_parsed, computed_at = excluded.computed_at")


def _sql(store, sql: str) -> str:
    """``sql`` written with ``?`` in the store's own placeholder (``%s`` on PostgreSQL)."""
    return sql if store.MARK == "?" else sql.replace("?", store.MARK)


def build(store, collection: str) -> tuple[list, int]:
    """Every in-library edge of ``collection`` (:class:`Edge`, the best match per citing/cited pair)
    and the number of reference entries read."""
    from core.hub.refmatch import LibraryIndex

    Edge = _edge_class()
    docs = store.documents(collection)
    index = LibraryIndex(docs)
    edges: dict[tuple[str, str], Edge] = {}
    parsed = 0
    for doc in docs:
        refs = json.loads(store.get_meta(f"references:{doc['doc_id']}") or "[]")
        parsed += len(refs)
        found = [(r, m) for r in refs if (m := index.match(r, doc["doc_id"])) is not None]
        if not found:
            continue
        cues = _Cues(store, doc["doc_id"])
        for ref, m in found:
            key = (doc["doc_id"], m.doc_id)
            if key in edges and edges[key].confidence >= m.confidence:
                continue
            sentence, chunk_id = cues.find(ref)
            edges[key] = Edge(doc["doc_id"], m.doc_id, m.confidence, m.how, reference_text(ref), sentence, chunk_id)
    return list(edges.values()), parsed


def reference_text(ref: dict) -> str:
    """A parsed entry as one line: "[3] Authors. Title. Venue, 2019."."""
    label = f"[{ref['label']}] " if ref.get("label") else ""
    parts = [str(ref.get(k) or "").strip(" .") for k in ("authors", "title", "venue")]
    body = ". ".join(p for p in parts if p)
    year = f", {ref['year']}" if ref.get("year") else ""
    return f"{label}{body}{year}."


class _Cues:
    """The sentences of one citing document that cite its references, by label and by name."""

    def __init__(self, store, doc_id: str):
        from core.hub.chunking import block_sentences

        self.sents: list[tuple[str, str]] = []  # (sentence, chunk_id) in reading order
        self.by_label: dict[str, tuple[str, str]] = {}
        for c in store.doc_chunks(doc_id):
            for s in block_sentences(c.text):
                self.sents.append((s, c.chunk_id))
                for mark in _REF_MARK.finditer(s):
                    for label in _labels(mark.group(1)):
                        self.by_label.setdefault(label, (s, c.chunk_id))

    def find(self, ref: dict) -> tuple[str, str]:
        from core.hub.pdf.references import Reference, short_cite

        if ref.get("label") and (hit := self.by_label.get(str(ref["label"]))):
            return _clip(hit[0]), hit[1]
        cite = short_cite(Reference("", None, str(ref.get("authors") or ""), year=ref.get("year")))
        surname = re.split(r" and | et al\.|,", cite)[0].strip()
        if not surname or not ref.get("year"):
            return "", ""
        pattern = re.compile(rf"\b{re.escape(surname)}\b[^;()]{{0,40}}?[(,]?\s*{ref['year']}[a-z]?\b")
        for s, chunk_id in self.sents:
            if pattern.search(s):
                return _clip(s), chunk_id
        return "", ""


def _labels(group: str) -> list[str]:
    """The labels of one marker's inside: "3", "14, 16", "1-3", "1: Zhang, 2003; 2: Okafor, 2011"."""
    out: list[str] = []
    for part in re.split(r"[;,]", group):
        m = _LABEL.match(part)
        if not m:
            continue
        lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
        out += [str(n) for n in range(lo, min(hi, lo + 30) + 1)]
    return out


def _clip(sentence: str) -> str:
    return sentence if len(sentence) <= MAX_SENTENCE_CHARS else sentence[: MAX_SENTENCE_CHARS - 1].rstrip() + "…"


def edges_of(store, collection: str, doc_ids: list[str] | None = None) -> list:
    """The stored edges (:class:`Edge`) of ``collection`` (current first, see :func:`current`), or those touching
    ``doc_ids``."""
    sql = "SELECT citing, cited, confidence, how, reference, sentence, chunk_id FROM citation_edges WHERE collection=?"
    args: list = [collection]
    if doc_ids is not None:
        marks = ",".join("?" * len(doc_ids))
        sql += f" AND (citing IN ({marks}) OR cited IN ({marks}))"
        args += list(doc_ids) * 2
    rows = sorted(store._execute(sql, args).fetchall(), key=lambda r: (r[0], r[1]))  # bytewise on both backends
    edge = _edge_class()
    return [edge(r[0], r[1], r[2], r[3], r[4], r[5] or "", r[6] or "") for r in rows]

