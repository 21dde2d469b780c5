"""The hub's SQLite store: collections, documents, chunks, embeddings and an FTS5 index.

One file in the data dir, WAL mode with a busy timeout so the server can read while
``paperpilot ingest`` writes. Writes go through :meth:`HubStore.write`, a ``BEGIN IMMEDIATE``
transaction (one writer at a time). Every write bumps the collection's ``revision`` so searchers
know to reload their in-memory embedding matrix. Connections are per thread.

Versions: re-ingesting a changed file keeps the old version's chunks (``current = 0``, chunk id
suffixed ``@vN``, out of the keyword index) and records each version in ``doc_versions``; the
last :data:`KEEP_VERSIONS` versions are kept. Search indexes hold only current chunks; a
:class:`Scope` selects an older version (``version=N``) or what was current at a time (``as_of``).
The schema is migrated in place, in one transaction, by ``PRAGMA user_version`` (see
:func:`core.hub.versions.migrate`).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import numpy as np

from core.hub.library.metadata import add_columns as library_columns
from core.hub.versions import KEEP_VERSIONS, Scope, migrate

EMBED_MODEL = "all-MiniLM-L6-v2"

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS collections(
  name TEXT PRIMARY KEY, created_at REAL NOT NULL, revision INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS documents(
  doc_id TEXT PRIMARY KEY, collection TEXT NOT NULL, path TEXT NOT NULL, doc_type TEXT NOT NULL,
  file_hash TEXT NOT NULL, file_size INTEGER, version INTEGER NOT NULL DEFAULT 1,
  title TEXT NOT NULL, authors TEXT, year INTEGER, pages INTEGER, summary TEXT,
  created_at REAL NOT NULL, updated_at REAL NOT NULL, UNIQUE(collection, path));
CREATE TABLE IF NOT EXISTS chunks(
  id INTEGER PRIMARY KEY, chunk_id TEXT NOT NULL UNIQUE, doc_id TEXT NOT NULL,
  collection TEXT NOT NULL, position INTEGER NOT NULL, section_path TEXT NOT NULL,
  breadcrumb TEXT NOT NULL, page INTEGER, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, position);
CREATE INDEX IF NOT EXISTS chunks_coll ON chunks(collection, id);
CREATE TABLE IF NOT EXISTS embeddings(
  chunk_rowid INTEGER PRIMARY KEY, model TEXT NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  collection UNINDEXED, title, breadcrumb, text, tokenize='porter unicode61');
"""


@dataclass
class ChunkRow:
    """One stored chunk joined with its document's title, path and type."""

    rowid: int
    chunk_id: str
    doc_id: str
    collection: str
    position: int
    section_path: list[str]
    breadcrumb: str
    page: int | None
    text: str
    title: str = ""
    path: str = ""
    doc_type: str = ""
    authors: list[str] = field(default_factory=list)
    year: int | None = None
    url: str | None = None  # where the document came from (an arXiv abs page), when it was fetched
    version: int = 1
    current: bool = True
    # the document's bibliographic metadata (core.hub.library.metadata), where known
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    citation_key: str | None = None


@dataclass
class NewChunk:
    """A chunk about to be written (embedding optional)."""

    section_path: list[str]
    text: str
    page: int | None = None
    vector: np.ndarray | None = field(default=None, repr=False)

    @property
    def breadcrumb(self) -> str:
        return " > ".join(self.section_path)


_CHUNK_SELECT = (
    "SELECT c.id, c.chunk_id, c.doc_id, c.collection, c.position, c.section_path, c.breadcrumb,"
    " c.page, c.text, d.title, d.path, d.doc_type, d.authors, d.year, d.url, c.version, c.current,"
    " d.venue, d.doi, d.arxiv_id, d.citation_key FROM chunks c JOIN documents d ON d.doc_id = c.doc_id"
)


def _chunk(row: tuple) -> ChunkRow:
    return ChunkRow(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), row[6], row[7], row[8],
                    row[9], row[10], row[11], json.loads(row[12] or "[]"), row[13], row[14], row[15], bool(row[16]),
                    *row[17:21])


def _which(version: int | None) -> tuple[str, int]:
    """The condition on a document's chunks: of ``version``, else of its current version."""
    return ("c.version=?", version) if version is not None else ("c.current=?", 1)


class SharedReads:
    """The reads both backends share word for word (:class:`HubStore` here, ``PgStore`` in
    :mod:`core.hub.pg.store`): the SQL is written once with ``?`` and sent with the driver's
    placeholder (``MARK``: ``?`` for sqlite3, ``%s`` for psycopg)."""

    MARK = "?"
    _local: threading.local

    def conn(self) -> Any:
        raise NotImplementedError

    def _execute(self, sql: str, args: tuple | list = ()) -> Any:
        return self.conn().execute(sql if self.MARK == "?" else sql.replace("?", self.MARK), args)

    def close(self) -> None:
        db = getattr(self._local, "db", None)
        if db is not None:
            db.close()
            self._local.db = None

    def get_meta(self, key: str) -> str | None:
        row = self._execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return row[0] if row else None

    def collections(self) -> list[str]:
        return [r[0] for r in self._execute("SELECT name FROM collections ORDER BY name")]

    def has_collection(self, name: str) -> bool:
        return self._execute("SELECT 1 FROM collections WHERE name=?", (name,)).fetchone() is not None

    def revision(self, name: str) -> int | None:
        row = self._execute("SELECT revision FROM collections WHERE name=?", (name,)).fetchone()
        return row[0] if row else None

    def doc_id_taken(self, doc_id: str) -> bool:
        return self._execute("SELECT 1 FROM documents WHERE doc_id=?", (doc_id,)).fetchone() is not None

    def chunk(self, chunk_id: str) -> ChunkRow | None:
        row = self._execute(f"{_CHUNK_SELECT} WHERE c.chunk_id=?", (chunk_id,)).fetchone()
        return _chunk(row) if row else None

    def doc_chunks(self, doc_id: str, version: int | None = None) -> list[ChunkRow]:
        """The chunks of a document's current version (or of ``version``), in order."""
        which, arg = _which(version)
        return [_chunk(r) for r in self._execute(
            f"{_CHUNK_SELECT} WHERE c.doc_id=? AND {which} ORDER BY c.position", (doc_id, arg))]

    def neighbours(self, doc_id: str, position: int, version: int | None = None) -> list[ChunkRow]:
        which, arg = _which(version)
        return [_chunk(r) for r in self._execute(
            f"{_CHUNK_SELECT} WHERE c.doc_id=? AND {which} AND c.position IN (?, ?) ORDER BY c.position",
            (doc_id, arg, position - 1, position + 1))]

    def following(self, doc_id: str, position: int, version: int | None = None, n: int = 4) -> list[ChunkRow]:
        """The ``n`` chunks after ``position`` of the document's current version (or of ``version``), in order."""
        which, arg = _which(version)
        return [_chunk(r) for r in self._execute(
            f"{_CHUNK_SELECT} WHERE c.doc_id=? AND {which} AND c.position > ? AND c.position <= ? ORDER BY c.position",
            (doc_id, arg, position, position + n))]

    def preceding(self, doc_id: str, position: int, version: int | None = None, n: int = 4) -> list[ChunkRow]:
        """The ``n`` chunks before ``position`` of the document's current version (or of ``version``),
        nearest first."""
        which, arg = _which(version)
        return [_chunk(r) for r in self._execute(
            f"{_CHUNK_SELECT} WHERE c.doc_id=? AND {which} AND c.position < ? AND c.position >= ? ORDER BY c.position DESC",
            (doc_id, arg, position, position - n))]

    def missing_embeddings(self, collection: str) -> list[tuple[int, str, str]]:
        """(rowid, breadcrumb, text) of chunks without a vector."""
        return list(self._execute(
            "SELECT c.id, c.breadcrumb, c.text FROM chunks c LEFT JOIN embeddings e ON e.chunk_rowid = c.id"
            " WHERE c.collection=? AND e.chunk_rowid IS NULL ORDER BY c.id", (collection,)))


class HubStore(SharedReads):
    """Thread-safe access to one hub database file."""

    def __init__(self, path: str | Path):
        from core.paths import private_file

        self.path = private_file(path)  # 0600: the index holds the user's documents
        self._local = threading.local()
        try:
            self.conn().executescript(SCHEMA)  # idempotent DDL, runs in its own transaction
            if "url" not in {r[1] for r in self.conn().execute("PRAGMA table_info(documents)")}:
                self.conn().execute("ALTER TABLE documents ADD COLUMN url TEXT")  # a store from before `ingest arxiv:`
            library_columns(self.conn())  # venue, DOI, arXiv id, citation key, tags, source kind
            migrate(self)
            from core.hub.topics import SCHEMA as TOPICS_SCHEMA  # here: core.hub.topics imports this module

            self.conn().executescript(TOPICS_SCHEMA)  # topic tables, added to a store from before topics
            from core.hub.citegraph import SCHEMA as CITATIONS_SCHEMA

            self.conn().executescript(CITATIONS_SCHEMA)  # citation-graph tables, added to an older store
        except sqlite3.DatabaseError as exc:  # not a database, or a damaged one: name it and what to do
            from core.errors import StoreUnreadable

            self.close()
            raise StoreUnreadable.of(self.path, exc) from None

    # -- connections -------------------------------------------------------------------------
    def conn(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA busy_timeout=30000")
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        return db

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction (``BEGIN IMMEDIATE``: the single writer)."""
        db = self.conn()
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    # -- meta ----------------------------------------------------------------------------------
    def set_meta(self, key: str, value: str) -> None:
        with self.write() as db:
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", (key, value))

    # -- collections ---------------------------------------------------------------------------
    def ensure_collection(self, db: sqlite3.Connection, name: str) -> None:
        db.execute("INSERT OR IGNORE INTO collections(name, created_at) VALUES(?, ?)", (name, time.time()))

    def bump(self, db: sqlite3.Connection, name: str) -> None:
        db.execute("UPDATE collections SET revision = revision + 1 WHERE name=?", (name,))

    def stats(self, name: str) -> dict:
        db = self.conn()
        docs = db.execute("SELECT count(*) FROM documents WHERE collection=? AND deleted_at IS NULL",
                          (name,)).fetchone()[0]
        chunks = db.execute("SELECT count(*) FROM chunks WHERE collection=? AND current=1", (name,)).fetchone()[0]
        emb = db.execute("SELECT count(*) FROM embeddings e JOIN chunks c ON c.id = e.chunk_rowid"
                         " WHERE c.collection=? AND c.current=1", (name,)).fetchone()[0]
        return {"document_count": docs, "chunk_count": chunks, "embedded_chunks": emb}

    # -- documents -----------------------------------------------------------------------------
    def documents(self, collection: str | None = None) -> list[dict]:
        """Live documents (a watched file that was deleted is not one), by title."""
        sql = ("SELECT * FROM documents WHERE deleted_at IS NULL" + (" AND collection=?" if collection else "")
               + " ORDER BY title")
        cur = self.conn().execute(sql, (collection,) if collection else ())
        cols = [c[0] for c in cur.description]
        return [_doc(dict(zip(cols, r))) for r in cur]

    def document(self, doc_id: str) -> dict | None:
        cur = self.conn().execute("SELECT * FROM documents WHERE doc_id=?", (doc_id,))
        row = cur.fetchone()
        return _doc(dict(zip([c[0] for c in cur.description], row))) if row else None

    def document_by_path(self, collection: str, path: str) -> dict | None:
        cur = self.conn().execute("SELECT * FROM documents WHERE collection=? AND path=?", (collection, path))
        row = cur.fetchone()
        return _doc(dict(zip([c[0] for c in cur.description], row))) if row else None

    def delete_document(self, doc_id: str) -> bool:
        with self.write() as db:
            row = db.execute("SELECT collection FROM documents WHERE doc_id=?", (doc_id,)).fetchone()
            if row is None:
                return False
            self._delete_chunks(db, doc_id)
            db.execute("DELETE FROM documents WHERE doc_id=?", (doc_id,))
            db.execute("DELETE FROM doc_versions WHERE doc_id=?", (doc_id,))
            self.bump(db, row[0])
        return True

    def _delete_chunks(self, db: sqlite3.Connection, doc_id: str) -> None:
        ids = [r[0] for r in db.execute("SELECT id FROM chunks WHERE doc_id=?", (doc_id,))]
        db.executemany("DELETE FROM chunks_fts WHERE rowid=?", [(i,) for i in ids])
        db.executemany("DELETE FROM embeddings WHERE chunk_rowid=?", [(i,) for i in ids])
        db.execute("DELETE FROM chunks WHERE doc_id=?", (doc_id,))

    def put_document(self, doc: dict, chunks: list[NewChunk], keep_versions: int = KEEP_VERSIONS) -> None:
        """Write one document as its new current version, in a single transaction: the previous
        version's chunks are kept as an old version (see :meth:`_supersede`), and versions beyond
        the last ``keep_versions`` are dropped."""
        now = time.time()
        with self.write() as db:
            self.ensure_collection(db, doc["collection"])
            old = db.execute("SELECT version, created_at FROM documents WHERE doc_id=?",
                             (doc["doc_id"],)).fetchone()
            version, created = (old[0] + 1, old[1]) if old else (1, now)
            self._supersede(db, doc["doc_id"])
            db.execute(
                "INSERT OR REPLACE INTO documents(doc_id, collection, path, doc_type, file_hash, file_size,"
                " version, title, authors, year, pages, summary, created_at, updated_at, url, venue, doi, arxiv_id,"
                " citation_key, tags, source_kind) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (doc["doc_id"], doc["collection"], doc["path"], doc["doc_type"], doc["file_hash"],
                 doc.get("file_size"), version, doc["title"], json.dumps(doc.get("authors") or []),
                 doc.get("year"), doc.get("pages"), doc.get("summary"), created, now, doc.get("url"),
                 *library_values(doc)))
            width = max(4, len(str(len(chunks))))
            for pos, ch in enumerate(chunks):
                chunk_id = f"{doc['doc_id']}_{pos:0{width}d}"
                cur = db.execute(
                    "INSERT INTO chunks(chunk_id, doc_id, collection, position, section_path, breadcrumb,"
                    " page, text, version, current) VALUES(?,?,?,?,?,?,?,?,?,1)",
                    (chunk_id, doc["doc_id"], doc["collection"], pos, json.dumps(ch.section_path),
                     ch.breadcrumb, ch.page, ch.text, version))
                rowid = cur.lastrowid
                db.execute("INSERT INTO chunks_fts(rowid, collection, title, breadcrumb, text)"
                           " VALUES(?,?,?,?,?)", (rowid, doc["collection"], doc["title"], ch.breadcrumb, ch.text))
                if ch.vector is not None:
                    vec = np.asarray(ch.vector, dtype=np.float32)
                    db.execute("INSERT INTO embeddings(chunk_rowid, model, dim, vector) VALUES(?,?,?,?)",
                               (rowid, EMBED_MODEL, vec.shape[0], vec.tobytes()))
            db.execute("INSERT OR REPLACE INTO doc_versions(doc_id, version, file_hash, file_size, created_at,"
                       " chunk_count) VALUES(?,?,?,?,?,?)",
                       (doc["doc_id"], version, doc["file_hash"], doc.get("file_size"), now, len(chunks)))
            self._prune(db, doc["doc_id"], version - max(1, keep_versions))
            self.bump(db, doc["collection"])

    # -- chunks --------------------------------------------------------------------------------
    def chunks_by_rowid(self, rowids: list[int]) -> dict[int, ChunkRow]:
        if not rowids:
            return {}
        marks = ",".join("?" * len(rowids))
        rows = self.conn().execute(f"{_CHUNK_SELECT} WHERE c.id IN ({marks})", rowids)
        return {r[0]: _chunk(r) for r in rows}

    def put_embeddings(self, collection: str, rows: list[tuple[int, np.ndarray]]) -> None:
        with self.write() as db:
            db.executemany("INSERT OR REPLACE INTO embeddings(chunk_rowid, model, dim, vector) VALUES(?,?,?,?)",
                           [(i, EMBED_MODEL, v.shape[0], np.asarray(v, np.float32).tobytes()) for i, v in rows])
            self.bump(db, collection)

    def lexical_rows(self, collection: str, scope: Scope | None = None) -> list[tuple[int, str, str, str]]:
        """(rowid, title, breadcrumb, text) of every current chunk of a collection (or of those in
        ``scope``), for the BM25 index.

        The title carries the file's name and the authors' surnames too (:func:`document_words`).
        """
        where, args = (scope or Scope()).sql()
        rows = self.conn().execute(
            "SELECT c.id, d.title, d.path, d.authors, c.breadcrumb, c.text FROM chunks c JOIN documents d"
            f" ON d.doc_id = c.doc_id WHERE c.collection=? AND {where} ORDER BY c.id", (collection, *args)).fetchall()
        return [(rid, document_words(title, path, authors), crumb, text)
                for rid, title, path, authors, crumb, text in rows]

    def embedding_matrix(self, collection: str, scope: Scope | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rowids, float32 matrix) of the embedded current chunks of a collection (or those in ``scope``)."""
        where, args = (scope or Scope()).sql()
        rows = self.conn().execute(
            "SELECT e.chunk_rowid, e.vector FROM embeddings e JOIN chunks c ON c.id = e.chunk_rowid"
            f" WHERE c.collection=? AND {where} ORDER BY e.chunk_rowid", (collection, *args)).fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        mat = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
        return ids, mat

    def embedding_snapshot(self, collection: str) -> tuple[int | None, np.ndarray, np.ndarray]:
        """(revision, rowids, matrix) as :meth:`embedding_matrix` gives them for the current chunks, read
        in one transaction (the revision is the rows') into one preallocated array, a block at a time."""
        where, args = Scope().sql()
        sql = (" FROM embeddings e JOIN chunks c ON c.id = e.chunk_rowid"
               f" WHERE c.collection=? AND {where}")
        db = self.conn()
        db.execute("BEGIN")
        try:
            rev = self.revision(collection)
            n = db.execute("SELECT count(*)" + sql, (collection, *args)).fetchone()[0]
            dim = db.execute("SELECT e.dim" + sql + " LIMIT 1", (collection, *args)).fetchone()
            ids, mat = np.zeros(n, dtype=np.int64), np.zeros((n, dim[0] if dim else 0), dtype=np.float32)
            cur, i = db.execute("SELECT e.chunk_rowid, e.vector" + sql + " ORDER BY e.chunk_rowid", (collection, *args)), 0
            while rows := cur.fetchmany(4096):
                ids[i:i + len(rows)] = [r[0] for r in rows]
                mat[i:i + len(rows)] = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float32).reshape(len(rows), -1)
                i += len(rows)
        finally:
            db.execute("COMMIT")
        return rev, ids, mat

    # -- versions (see core.hub.versions for the parsing of version/as_of arguments) -----------------
    def _supersede(self, db: sqlite3.Connection, doc_id: str) -> None:
        """Turn a document's current chunks into an old version: renamed ``<chunk_id>@v<N>`` (so the
        new version takes the plain ids), out of the keyword index, vectors kept."""
        ids = [r[0] for r in db.execute("SELECT id FROM chunks WHERE doc_id=? AND current=1", (doc_id,))]
        db.executemany("DELETE FROM chunks_fts WHERE rowid=?", [(i,) for i in ids])
        db.execute("UPDATE chunks SET current=0, chunk_id = chunk_id || '@v' || version"
                   " WHERE doc_id=? AND current=1", (doc_id,))

    def _prune(self, db: sqlite3.Connection, doc_id: str, below_or_at: int) -> None:
        """Drop a document's versions numbered ``below_or_at`` and lower (chunks, vectors, records)."""
        if below_or_at < 1:
            return
        ids = [r[0] for r in db.execute("SELECT id FROM chunks WHERE doc_id=? AND version<=? AND current=0",
                                        (doc_id, below_or_at))]
        db.executemany("DELETE FROM embeddings WHERE chunk_rowid=?", [(i,) for i in ids])
        db.executemany("DELETE FROM chunks WHERE id=?", [(i,) for i in ids])
        db.execute("DELETE FROM doc_versions WHERE doc_id=? AND version<=?", (doc_id, below_or_at))

    def retire_document(self, doc_id: str) -> bool:
        """A watched file was deleted: its current version leaves search (kept as an old version,
        queryable with ``version=N``) and the document is marked deleted. False if none was live."""
        with self.write() as db:
            row = db.execute("SELECT collection FROM documents WHERE doc_id=? AND deleted_at IS NULL",
                             (doc_id,)).fetchone()
            if row is None:
                return False
            self._supersede(db, doc_id)
            db.execute("UPDATE documents SET deleted_at=? WHERE doc_id=?", (time.time(), doc_id))
            self.bump(db, row[0])
        return True

    def versions(self, doc_id: str) -> list[dict]:
        """A document's kept versions, oldest first: version, created_at, chunk_count, file_hash, file_size."""
        cur = self.conn().execute("SELECT version, created_at, chunk_count, file_hash, file_size FROM doc_versions"
                                  " WHERE doc_id=? ORDER BY version", (doc_id,))
        cols = [c[0] for c in cur.description]
        return [dict(zip(cols, r)) for r in cur]

    def has_chunks(self, collection: str, scope: Scope) -> bool:
        where, args = scope.sql()
        return self.conn().execute(f"SELECT 1 FROM chunks c WHERE c.collection=? AND {where} LIMIT 1",
                                   (collection, *args)).fetchone() is not None


    # -- topics (core.hub.topics computes them; these are the only storage operations they need) --------
    def chunk_doc_ids(self, collection: str) -> dict[int, str]:
        """rowid -> doc_id of every chunk of ``collection``."""
        return dict(self.conn().execute("SELECT id, doc_id FROM chunks WHERE collection=?", (collection,)).fetchall())

    def chunk_rowids(self, doc_ids: list[str]) -> set[int]:
        """The rowids of every chunk of these documents (a topic's: the searcher's ``only``)."""
        marks = ",".join("?" * len(doc_ids))
        return {r[0] for r in self.conn().execute(f"SELECT id FROM chunks WHERE doc_id IN ({marks})", list(doc_ids))}

    def save_topics(self, ts) -> None:
        """Store ``ts`` (a :class:`core.hub.topics.TopicSet`) in place of the collection's topics. A
        stored name follows the topic with the same member documents (its id may have changed); a
        name whose documents no longer cluster together is dropped."""
        with self.write() as db:
            by_members = {t.members: t for t in ts.topics}
            named = [(by_members[m], n, m, at) for _, n, m, at in db.execute(
                "SELECT topic_id, name, members, named_at FROM topic_names WHERE collection=?", (ts.collection,))
                if m in by_members]
            db.execute("DELETE FROM topic_names WHERE collection=?", (ts.collection,))
            for t, name, members, at in named:
                t.name = name
                db.execute("INSERT OR REPLACE INTO topic_names(collection, topic_id, name, members, named_at)"
                           " VALUES(?,?,?,?,?)", (ts.collection, t.topic_id, name, members, at))
            db.execute("DELETE FROM document_topics WHERE collection=?", (ts.collection,))
            db.execute("DELETE FROM topics WHERE collection=?", (ts.collection,))
            db.execute("INSERT OR REPLACE INTO topic_sets(collection, revision, silhouette, computed_at)"
                       " VALUES(?,?,?,?)",
                       (ts.collection, ts.revision if ts.revision is not None else -1, ts.silhouette, time.time()))
            for pos, t in enumerate(ts.topics):
                db.execute("INSERT INTO topics(collection, topic_id, position, label, keyphrases) VALUES(?,?,?,?,?)",
                           (ts.collection, t.topic_id, pos, t.label, json.dumps(t.keyphrases)))
                db.executemany("INSERT INTO document_topics(collection, topic_id, doc_id, score) VALUES(?,?,?,?)",
                               [(ts.collection, t.topic_id, d, s) for d, s in t.documents])

    def load_topics(self, collection: str) -> tuple[tuple, list[tuple], list[tuple]] | None:
        """The stored topics of ``collection`` as rows, or None when none are stored: ((revision,
        silhouette), [(topic_id, label, keyphrases JSON, name, members)] in order, [(topic_id, doc_id,
        score)] best first)."""
        db = self.conn()
        row = db.execute("SELECT revision, silhouette FROM topic_sets WHERE collection=?", (collection,)).fetchone()
        if row is None:
            return None
        rows = db.execute("SELECT t.topic_id, t.label, t.keyphrases, n.name, n.members FROM topics t LEFT JOIN"
                          " topic_names n ON n.collection=t.collection AND n.topic_id=t.topic_id"
                          " WHERE t.collection=? ORDER BY t.position", (collection,)).fetchall()
        docs = db.execute("SELECT topic_id, doc_id, score FROM document_topics WHERE collection=?"
                          " ORDER BY score DESC, doc_id", (collection,)).fetchall()
        return tuple(row), [tuple(r) for r in rows], [tuple(r) for r in docs]

    def set_topic_names(self, collection: str, names: list[tuple[str, str, str]]) -> None:
        """(topic_id, name, members) each: store the name bound to those members ("" clears it)."""
        with self.write() as db:
            for tid, name, members in names:
                db.execute("DELETE FROM topic_names WHERE collection=? AND topic_id=?", (collection, tid))
                if name:
                    db.execute("INSERT INTO topic_names(collection, topic_id, name, members, named_at)"
                               " VALUES(?,?,?,?,?)", (collection, tid, name, members, time.time()))


def _doc(d: dict) -> dict:
    d["authors"] = json.loads(d.get("authors") or "[]")
    d["tags"] = json.loads(d.get("tags") or "[]")
    return d


def library_values(doc: dict) -> tuple:
    """(venue, doi, arxiv_id, citation_key, tags JSON, source_kind) of a document to write."""
    return (doc.get("venue"), doc.get("doi"), doc.get("arxiv_id"), doc.get("citation_key"),
            json.dumps(doc["tags"]) if doc.get("tags") else None, doc.get("source_kind"))


def document_words(title: str, path: str, authors: str | list[str] | None) -> str:
    """The words of a document that every chunk of it is indexed with: its title, its file name and its
    authors' surnames. A paper's short name ("t5.pdf", "align.md") is often what users ask by, and a
    full-text paper is as often named by its authors ("Smith et al.", "Lee and Park");
    neither may appear in the body chunk that answers."""
    names = json.loads(authors or "[]") if isinstance(authors, str) else authors
    surnames = " ".join(n.split()[-1] for n in (names if isinstance(names, list) else [])
                        if isinstance(n, str) and n.split())
    return f"{title} {file_name(path)} {surnames}".rstrip()


def file_name(path: str) -> str:
    """A document's file name as words: ``/papers/vit_mae.pdf`` → ``vit mae``."""
    stem = path.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0] if path else ""
    return stem.replace("_", " ").replace("-", " ")
