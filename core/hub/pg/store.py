"""The hub store on PostgreSQL + pgvector, with the methods of :class:`core.hub.store.HubStore`.

Same rows, same ids, same revision rule (every write bumps its collection's revision), the same
document versions (old versions' chunks kept with ``current = 0``), so the ingest pipeline, the
watcher, the service and the MCP tools run on it unchanged. Writes go through
:meth:`PgStore.write`, a transaction that first takes an advisory lock: one writer at a time across
processes, as SQLite's ``BEGIN IMMEDIATE`` gives. Connections are per thread, autocommit outside
:meth:`write`. PostgreSQL text cannot hold NUL characters; they are dropped on the way in.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from core.hub.pg.migrations import migrate
from core.hub.store import (_CHUNK_SELECT, EMBED_MODEL, ChunkRow, NewChunk, SharedReads, _chunk, document_words,
                            library_values)
from core.hub.versions import KEEP_VERSIONS, Scope

WRITE_LOCK = 0x68756277  # pg_advisory_xact_lock key of the single writer ("hubw")
TS_CONFIG = "english"

_DOC_COLS = ("doc_id, collection, path, doc_type, file_hash, file_size, version, title, authors, year, pages,"
             " summary, created_at, updated_at, url, venue, doi, arxiv_id, citation_key, tags, source_kind, deleted_at")
_PUT_COLS = _DOC_COLS.removesuffix(", deleted_at")


def scope_sql(scope: Scope | None) -> tuple[str, tuple]:
    """:meth:`Scope.sql` (a WHERE fragment over ``chunks c``) with PostgreSQL placeholders."""
    where, args = (scope or Scope()).sql()
    return where.replace("?", "%s"), args


def _doc(cur) -> dict | None:
    row = cur.fetchone()
    if row is None:
        return None
    d = dict(zip([c.name for c in cur.description], row))
    d["authors"] = json.loads(d.get("authors") or "[]")
    d["tags"] = json.loads(d.get("tags") or "[]")
    return d


def _text(value: str | None) -> str | None:
    return value.replace("\x00", "") if isinstance(value, str) else value


def lexical_text(title: str, path: str, breadcrumb: str, text: str, authors: list[str] | None = None) -> str:
    """What the full-text leg indexes for a chunk: the same fields as the SQLite store's BM25 index."""
    return _text(f"{document_words(title, path, authors)} {breadcrumb} {text}") or ""


def as_array(value) -> np.ndarray:
    """A stored vector as float32 (pgvector's adapter gives a ``Vector`` or, in older versions, an array)."""
    return np.asarray(value.to_numpy() if hasattr(value, "to_numpy") else value, dtype=np.float32)


def redact(dsn: str) -> str:
    """The DSN with its password replaced by ``***`` (for status lines and logs)."""
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", re.sub(r"(password\s*=\s*)('[^']*'|\S+)", r"\1***", dsn))


class PgStore(SharedReads):
    """Thread-safe access to one hub database on a PostgreSQL server."""

    backend = "postgres"
    MARK = "%s"  # psycopg's placeholder, for the reads shared with the SQLite store

    def __init__(self, dsn: str):
        self.dsn = dsn
        self.path = redact(dsn)  # what `hub status` prints as the database
        self._local = threading.local()
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as db:  # before the vector type is looked up
            migrate(db)

    # -- connections -------------------------------------------------------------------------
    def conn(self):
        db = getattr(self._local, "db", None)
        if db is None or db.closed:
            import psycopg
            from pgvector.psycopg import register_vector

            # prepare_threshold=None: plans are made per query, with the collection's real value
            db = psycopg.connect(self.dsn, autocommit=True, prepare_threshold=None)
            register_vector(db)
            db.execute("SET work_mem = '32MB'")  # exact (not lossy) bitmaps for a common word's matches
            self._local.db = db
        return db

    @contextmanager
    def write(self) -> Iterator:
        """One write transaction; writers queue on an advisory lock (the single writer)."""
        db = self.conn()
        with db.transaction():
            db.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK,))
            yield db

    # -- meta ----------------------------------------------------------------------------------
    def set_meta(self, key: str, value: str) -> None:
        with self.write() as db:
            db.execute("INSERT INTO meta(key, value) VALUES(%s, %s) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                       (key, value))

    def meta_items(self) -> list[tuple[str, str]]:
        return list(self.conn().execute("SELECT key, value FROM meta ORDER BY key"))

    # -- collections ---------------------------------------------------------------------------
    def ensure_collection(self, db, name: str) -> None:
        db.execute("INSERT INTO collections(name, created_at) VALUES(%s, %s) ON CONFLICT DO NOTHING",
                   (name, time.time()))

    def bump(self, db, name: str) -> None:
        db.execute("UPDATE collections SET revision = revision + 1 WHERE name=%s", (name,))

    def stats(self, name: str) -> dict:
        db = self.conn()
        docs = db.execute("SELECT count(*) FROM documents WHERE collection=%s AND deleted_at IS NULL",
                          (name,)).fetchone()[0]
        chunks = db.execute("SELECT count(*) FROM chunks WHERE collection=%s AND current=1", (name,)).fetchone()[0]
        emb = db.execute("SELECT count(*) FROM embeddings WHERE collection=%s AND current=1", (name,)).fetchone()[0]
        return {"document_count": docs, "chunk_count": chunks, "embedded_chunks": emb}

    # -- documents -----------------------------------------------------------------------------
    def documents(self, collection: str | None = None) -> list[dict]:
        """Live documents (a watched file that was deleted is not one), by title."""
        where = " WHERE deleted_at IS NULL" + (" AND collection=%s" if collection else "")
        cur = self.conn().execute(f"SELECT {_DOC_COLS} FROM documents{where} ORDER BY title",
                                  (collection,) if collection else ())
        cols = [c.name for c in cur.description]
        out = []
        for row in cur:
            d = dict(zip(cols, row))
            d["authors"] = json.loads(d.get("authors") or "[]")
            d["tags"] = json.loads(d.get("tags") or "[]")
            out.append(d)
        return out

    def document(self, doc_id: str) -> dict | None:
        return _doc(self.conn().execute(f"SELECT {_DOC_COLS} FROM documents WHERE doc_id=%s", (doc_id,)))

    def document_by_path(self, collection: str, path: str) -> dict | None:
        return _doc(self.conn().execute(f"SELECT {_DOC_COLS} FROM documents WHERE collection=%s AND path=%s",
                                        (collection, path)))

    def delete_document(self, doc_id: str) -> bool:
        with self.write() as db:
            row = db.execute("DELETE FROM documents WHERE doc_id=%s RETURNING collection", (doc_id,)).fetchone()
            if row is None:
                return False
            db.execute("DELETE FROM doc_versions WHERE doc_id=%s", (doc_id,))
            self.bump(db, row[0])  # chunks and vectors go with the document (ON DELETE CASCADE)
        return True

    def put_document(self, doc: dict, chunks: list[NewChunk], keep_versions: int = KEEP_VERSIONS) -> None:
        """Write one document as its new current version, in a single transaction: the previous
        version's chunks stay as an old version (ids suffixed ``@vN``), versions beyond the last
        ``keep_versions`` are dropped (as :meth:`core.hub.store.HubStore.put_document`).

        ``doc`` may carry ``version``, ``created_at`` and ``updated_at`` (a copy from another
        store keeps them); otherwise the version counts up from the stored one."""
        now = time.time()
        coll, doc_id = doc["collection"], doc["doc_id"]
        with self.write() as db:
            self.ensure_collection(db, coll)
            old = db.execute("SELECT version, created_at FROM documents WHERE doc_id=%s", (doc_id,)).fetchone()
            version, created = (old[0] + 1, old[1]) if old else (1, now)
            version = doc.get("version", version)
            self._supersede(db, doc_id)
            values = (doc_id, coll, _text(doc["path"]), doc["doc_type"], doc["file_hash"], doc.get("file_size"),
                      version, _text(doc["title"]), json.dumps(doc.get("authors") or []), doc.get("year"),
                      doc.get("pages"), _text(doc.get("summary")), doc.get("created_at", created),
                      doc.get("updated_at", now), doc.get("url"), *library_values(doc))
            sets = ", ".join(f"{c} = excluded.{c}" for c in _PUT_COLS.split(", ")[1:])
            db.execute(f"INSERT INTO documents({_PUT_COLS}) VALUES({', '.join(['%s'] * len(values))})"
                       f" ON CONFLICT(doc_id) DO UPDATE SET {sets}, deleted_at = NULL", values)
            width = max(4, len(str(len(chunks))))
            rows = [(f"{doc_id}_{pos:0{width}d}", pos, json.dumps(ch.section_path), _text(ch.breadcrumb),
                     ch.page, _text(ch.text),
                     lexical_text(doc["title"], doc["path"], ch.breadcrumb, ch.text, doc.get("authors")))
                    for pos, ch in enumerate(chunks)]
            if rows:
                ids = dict(db.execute(
                    "INSERT INTO chunks(chunk_id, doc_id, collection, position, section_path, breadcrumb, page, text,"
                    f" tsv, version) SELECT u.c, %s, %s, u.p, u.s, u.b, u.pg, u.t, to_tsvector('{TS_CONFIG}', u.l), %s"
                    " FROM unnest(%s::text[], %s::int[], %s::text[], %s::text[], %s::int[], %s::text[], %s::text[])"
                    " AS u(c, p, s, b, pg, t, l) RETURNING position, id",
                    (doc_id, coll, version, *map(list, zip(*rows)))).fetchall())
                vectors = [(ids[pos], coll, EMBED_MODEL, np.asarray(ch.vector, np.float32))
                           for pos, ch in enumerate(chunks) if ch.vector is not None]
                if vectors:
                    with db.cursor() as cur:
                        cur.executemany("INSERT INTO embeddings(chunk_rowid, collection, model, vector)"
                                        " VALUES(%s, %s, %s, %s)", vectors)
                db.execute("INSERT INTO lexemes(collection, lexeme) SELECT DISTINCT %s, unnest(tsvector_to_array(tsv))"
                           " FROM chunks WHERE doc_id=%s AND current=1 ON CONFLICT DO NOTHING", (coll, doc_id))
            db.execute("INSERT INTO doc_versions(doc_id, version, file_hash, file_size, created_at, chunk_count)"
                       " VALUES(%s, %s, %s, %s, %s, %s) ON CONFLICT(doc_id, version) DO UPDATE SET"
                       " file_hash = excluded.file_hash, file_size = excluded.file_size,"
                       " created_at = excluded.created_at, chunk_count = excluded.chunk_count",
                       (doc_id, version, doc["file_hash"], doc.get("file_size"), doc.get("updated_at", now),
                        len(chunks)))
            self._prune(db, doc_id, version - max(1, keep_versions))
            self.bump(db, coll)

    # -- versions --------------------------------------------------------------------------------
    def _supersede(self, db, doc_id: str) -> None:
        """A document's current chunks become an old version: ids ``<chunk_id>@v<N>``, out of search."""
        db.execute("UPDATE embeddings SET current = 0 WHERE chunk_rowid IN"
                   " (SELECT id FROM chunks WHERE doc_id=%s AND current=1)", (doc_id,))
        db.execute("UPDATE chunks SET current = 0, chunk_id = chunk_id || '@v' || version"
                   " WHERE doc_id=%s AND current=1", (doc_id,))

    def _prune(self, db, doc_id: str, below_or_at: int) -> None:
        """Drop a document's old versions numbered ``below_or_at`` and lower (vectors go with the chunks)."""
        if below_or_at < 1:
            return
        db.execute("DELETE FROM chunks WHERE doc_id=%s AND version<=%s AND current=0", (doc_id, below_or_at))
        db.execute("DELETE FROM doc_versions WHERE doc_id=%s AND version<=%s", (doc_id, below_or_at))

    def retire_document(self, doc_id: str) -> bool:
        """A watched file was deleted: its current version leaves search (kept as an old version)
        and the document is marked deleted. False if none was live."""
        with self.write() as db:
            row = db.execute("SELECT collection FROM documents WHERE doc_id=%s AND deleted_at IS NULL",
                             (doc_id,)).fetchone()
            if row is None:
                return False
            self._supersede(db, doc_id)
            db.execute("UPDATE documents SET deleted_at=%s WHERE doc_id=%s", (time.time(), doc_id))
            self.bump(db, row[0])
        return True

    def versions(self, doc_id: str) -> list[dict]:
        """A document's kept versions, oldest first: version, created_at, chunk_count, file_hash, file_size."""
        cur = self.conn().execute("SELECT version, created_at, chunk_count, file_hash, file_size FROM doc_versions"
                                  " WHERE doc_id=%s ORDER BY version", (doc_id,))
        cols = [c.name for c in cur.description]
        return [dict(zip(cols, r)) for r in cur]

    def has_chunks(self, collection: str, scope: Scope) -> bool:
        where, args = scope_sql(scope)
        return self.conn().execute(f"SELECT 1 FROM chunks c WHERE c.collection=%s AND {where} LIMIT 1",
                                   (collection, *args)).fetchone() is not None

    # -- chunks --------------------------------------------------------------------------------
    def chunks_by_rowid(self, rowids: list[int]) -> dict[int, ChunkRow]:
        if not rowids:
            return {}
        rows = self.conn().execute(f"{_CHUNK_SELECT} WHERE c.id = ANY(%s)", (list(rowids),))
        return {r[0]: _chunk(r) for r in rows}

    def put_embeddings(self, collection: str, rows: list[tuple[int, np.ndarray]]) -> None:
        with self.write() as db:
            with db.cursor() as cur:
                cur.executemany(
                    "INSERT INTO embeddings(chunk_rowid, collection, model, vector, current)"
                    " SELECT %s, %s, %s, %s, current FROM chunks WHERE id = %s"
                    " ON CONFLICT(chunk_rowid) DO UPDATE SET vector = excluded.vector, model = excluded.model",
                    [(i, collection, EMBED_MODEL, np.asarray(v, np.float32), i) for i, v in rows])
            self.bump(db, collection)

    def lexical_rows(self, collection: str, scope: Scope | None = None) -> list[tuple[int, str, str, str]]:
        """(rowid, title, breadcrumb, text) of every current chunk of a collection (or those in ``scope``)."""
        where, args = scope_sql(scope)
        rows = self.conn().execute(
            "SELECT c.id, d.title, d.path, d.authors, c.breadcrumb, c.text FROM chunks c JOIN documents d"
            f" ON d.doc_id = c.doc_id WHERE c.collection=%s AND {where} ORDER BY c.id", (collection, *args)).fetchall()
        return [(rid, document_words(title, path, authors), crumb, text)
                for rid, title, path, authors, crumb, text in rows]

    def embedding_matrix(self, collection: str, scope: Scope | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rowids, float32 matrix) of the embedded current chunks of a collection (or those in ``scope``);
        the searcher does not need it: the dense leg runs in the server."""
        where, args = scope_sql(scope)
        rows = self.conn().execute("SELECT e.chunk_rowid, e.vector FROM embeddings e JOIN chunks c ON c.id = e.chunk_rowid"
                                   f" WHERE c.collection=%s AND {where} ORDER BY e.chunk_rowid",
                                   (collection, *args)).fetchall()
        if not rows:
            return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)
        ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        return ids, np.vstack([as_array(r[1]) for r in rows])

    def embedded_count(self, collection: str) -> tuple[int, int]:
        """(vectors in this collection, vectors in all collections): the dense leg's choice of plan."""
        row = self.conn().execute("SELECT count(*) FILTER (WHERE collection=%s AND current=1), count(*)"
                                  " FROM embeddings", (collection,)).fetchone()
        return row[0], row[1]

    # -- topics (the same rows as :meth:`core.hub.store.HubStore.save_topics` and its neighbours) -----
    def chunk_doc_ids(self, collection: str) -> dict[int, str]:
        return dict(self.conn().execute("SELECT id, doc_id FROM chunks WHERE collection=%s", (collection,)).fetchall())

    def chunk_rowids(self, doc_ids: list[str]) -> set[int]:
        return {r[0] for r in self.conn().execute("SELECT id FROM chunks WHERE doc_id = ANY(%s)", (list(doc_ids),))}

    def save_topics(self, ts) -> None:
        """Store ``ts`` in place of the collection's topics; a stored name follows its member documents."""
        with self.write() as db:
            by_members = {t.members: t for t in ts.topics}
            named = [(by_members[m], n, m, at) for _, n, m, at in db.execute(
                "SELECT topic_id, name, members, named_at FROM topic_names WHERE collection=%s",
                (ts.collection,)).fetchall() if m in by_members]
            db.execute("DELETE FROM topic_names WHERE collection=%s", (ts.collection,))
            for t, name, members, at in named:
                t.name = name
                db.execute("INSERT INTO topic_names(collection, topic_id, name, members, named_at)"
                           " VALUES(%s, %s, %s, %s, %s) ON CONFLICT(collection, topic_id) DO UPDATE SET"
                           " name = excluded.name, members = excluded.members, named_at = excluded.named_at",
                           (ts.collection, t.topic_id, name, members, at))
            db.execute("DELETE FROM document_topics WHERE collection=%s", (ts.collection,))
            db.execute("DELETE FROM topics WHERE collection=%s", (ts.collection,))
            db.execute("INSERT INTO topic_sets(collection, revision, silhouette, computed_at) VALUES(%s, %s, %s, %s)"
                       " ON CONFLICT(collection) DO UPDATE SET revision = excluded.revision,"
                       " silhouette = excluded.silhouette, computed_at = excluded.computed_at",
                       (ts.collection, ts.revision if ts.revision is not None else -1, ts.silhouette, time.time()))
            with db.cursor() as cur:
                for pos, t in enumerate(ts.topics):
                    cur.execute("INSERT INTO topics(collection, topic_id, position, label, keyphrases)"
                                " VALUES(%s, %s, %s, %s, %s)",
                                (ts.collection, t.topic_id, pos, _text(t.label), _text(json.dumps(t.keyphrases))))
                    if t.documents:
                        cur.executemany("INSERT INTO document_topics(collection, topic_id, doc_id, score)"
                                        " VALUES(%s, %s, %s, %s)",
                                        [(ts.collection, t.topic_id, d, float(s)) for d, s in t.documents])

    def load_topics(self, collection: str) -> tuple[tuple, list[tuple], list[tuple]] | None:
        """As :meth:`core.hub.store.HubStore.load_topics` (doc ids ordered bytewise, as SQLite does)."""
        db = self.conn()
        row = db.execute("SELECT revision, silhouette FROM topic_sets WHERE collection=%s", (collection,)).fetchone()
        if row is None:
            return None
        rows = db.execute("SELECT t.topic_id, t.label, t.keyphrases, n.name, n.members FROM topics t LEFT JOIN"
                          " topic_names n ON n.collection=t.collection AND n.topic_id=t.topic_id"
                          " WHERE t.collection=%s ORDER BY t.position", (collection,)).fetchall()
        docs = db.execute("SELECT topic_id, doc_id, score FROM document_topics WHERE collection=%s"
                          ' ORDER BY score DESC, doc_id COLLATE "C"', (collection,)).fetchall()
        return tuple(row), [tuple(r) for r in rows], [tuple(r) for r in docs]

    def set_topic_names(self, collection: str, names: list[tuple[str, str, str]]) -> None:
        """(topic_id, name, members) each: store the name bound to those members ("" clears it)."""
        with self.write() as db:
            for tid, name, members in names:
                db.execute("DELETE FROM topic_names WHERE collection=%s AND topic_id=%s", (collection, tid))
                if name:
                    db.execute("INSERT INTO topic_names(collection, topic_id, name, members, named_at)"
                               " VALUES(%s, %s, %s, %s, %s)", (collection, tid, _text(name), members, time.time()))
