"""Hybrid retrieval on PostgreSQL: both legs run in the server, the fusion is the SQLite searcher's.

:class:`PgSearcher` subclasses :class:`core.hub.search.Searcher` and replaces only the legs and
the keyword lookup; ``search`` (reciprocal-rank fusion, rerank) and ``keyword`` (hits, exact
filtering) are inherited, so hits and the MCP output have the same shape on both backends.

- Lexical: ``chunks.tsv`` (title, file name, breadcrumb, text; English stemming) matched by the
  query's terms OR-ed together through the GIN index, ranked by ``ts_rank`` (length-normalized).
- Dense: cosine distance on ``embeddings.vector``. A collection of at most ``EXACT_MAX`` vectors
  is scanned exactly (the same ranking as the SQLite matrix scan); a larger one walks the HNSW
  index with ``hnsw.ef_search`` = ``max(EF_SEARCH, depth)``, raised by the share of vectors in other
  collections (the index holds every collection and is filtered afterwards).
"""

from __future__ import annotations

import re

import numpy as np

from core.hub.lru import LRU
from core.hub.pg.store import TS_CONFIG, PgStore
from core.hub.search import CACHED_COLLECTIONS, DENSE_FLOOR, LEG_DEPTH, Reranker, Searcher, query_terms

EXACT_MAX = 20_000  # vectors a collection may have for an exact scan
EF_SEARCH = 100  # HNSW candidate list (pgvector's default is 40; a leg asks for 50)
EF_MAX = 1000  # pgvector's upper bound
_LEXEME = re.compile(r"[^\W_]+", re.U)  # what may go into to_tsquery unquoted: letters and digits


def tsquery_terms(query: str) -> list[str]:
    """The query's terms, safe to join into a ``to_tsquery`` expression."""
    return list(dict.fromkeys(w for t in query_terms(query) for w in _LEXEME.findall(t)))


def _lexeme(value: str) -> str:
    """One stored lexeme as ``tsquery`` input: quoted, matched as is (no parsing, no stemming)."""
    return "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"


class PgSearcher(Searcher):
    """Search one :class:`PgStore`; safe to call from several threads (a connection per thread)."""

    def __init__(self, store: PgStore, embed_query=None, reranker: Reranker | None = None):
        super().__init__(store, embed_query=embed_query, reranker=reranker)  # type: ignore[arg-type]
        self._counts: LRU[str, tuple[int | None, tuple[int, int]]] = LRU(CACHED_COLLECTIONS)

    # -- legs ----------------------------------------------------------------------------------
    def lexical(self, collection: str, query: str, n: int = LEG_DEPTH) -> list[tuple[int, float]]:
        terms = tsquery_terms(query)
        if not terms:
            return []
        rows = self.store.conn().execute(
            f"SELECT id, ts_rank(tsv, q, 1) AS s FROM chunks, to_tsquery('{TS_CONFIG}', %s) AS q"
            " WHERE collection = %s AND tsv @@ q ORDER BY s DESC, id LIMIT %s",
            (" | ".join(terms), collection, n)).fetchall()
        return [(int(rid), float(s)) for rid, s in rows]

    def dense(self, collection: str, query: str, n: int = LEG_DEPTH) -> list[tuple[int, float]]:
        if not query.strip():
            return []
        rows = self._dense_rows(collection, query, n)
        return [(int(rid), 1.0 - float(d)) for rid, d in rows if 1.0 - float(d) >= DENSE_FLOOR]

    def dense_plan(self, collection: str, query: str, n: int = LEG_DEPTH) -> str:
        """The server's plan for the dense leg (``EXPLAIN``): an exact scan or the HNSW index."""
        return "\n".join(r[0] for r in self._dense_rows(collection, query, n, explain=True))

    def _dense_rows(self, collection: str, query: str, n: int, explain: bool = False) -> list[tuple]:
        mine, total = self._embedded(collection)
        if not mine:
            return []
        vec = np.asarray(self.embed_query(query), dtype=np.float32)
        db = self.store.conn()
        with db.transaction():
            if mine <= EXACT_MAX:  # exact: rank every vector of the collection, ties by rowid
                db.execute("SET LOCAL enable_indexscan = off")
                order = "d, chunk_rowid"
            else:  # the HNSW graph; without enable_sort the planner may prefer to sort the collection
                ef = min(EF_MAX, max(EF_SEARCH, n) * max(1, round(total / mine)))
                db.execute("SELECT set_config('hnsw.ef_search', %s, true)", (str(ef),))
                db.execute("SET LOCAL enable_sort = off")
                order = "d"
            return db.execute(
                ("EXPLAIN " if explain else "")
                + f"SELECT chunk_rowid, vector <=> %s AS d FROM embeddings WHERE collection = %s ORDER BY {order} LIMIT %s",
                (vec, collection, n)).fetchall()

    def _embedded(self, collection: str) -> tuple[int, int]:
        rev = self.store.revision(collection)
        cached = self._counts.get(collection)
        if cached is not None and cached[0] == rev:
            return cached[1]
        counts = self.store.embedded_count(collection)
        self._counts.put(collection, (rev, counts))
        return counts

    # -- what the SQLite searcher keeps in memory ------------------------------------------------
    def matrix(self, collection: str) -> tuple[np.ndarray, np.ndarray]:
        """Nothing to load: the vectors stay in the server. Reads the collection's vector count
        (start-up calls this to warm up) and returns empty arrays."""
        self._embedded(collection)
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)

    def lexical_index(self, collection: str) -> None:  # type: ignore[override]
        """Nothing to build: the full-text index is the server's GIN index."""
        return None

    # -- keyword browsing --------------------------------------------------------------------------
    def _keyword_rows(self, collection: str, kws: list[str], mode: str, limit: int) -> list[tuple[int, float]]:
        """Exact: every keyword as a phrase (AND); fuzzy: each word as a prefix or a close vocabulary
        term (OR). Scores are negated ranks, as the base class expects FTS5's bm25 (lower is better)."""
        if mode == "exact":
            parts = [(f"phraseto_tsquery('{TS_CONFIG}', %s)", k) for k in kws]
            glue = " && "
        else:
            parts = []
            for k in kws:
                for t in _LEXEME.findall(k.lower()):
                    parts.append((f"to_tsquery('{TS_CONFIG}', %s)", f"{t}:*"))
                    parts += [("%s::tsquery", _lexeme(v)) for v in self._close_terms(t, collection)]
            glue = " || "
        if not parts:
            return []
        expr = glue.join(p for p, _ in parts)
        rows = self.store.conn().execute(
            f"SELECT id, -ts_rank(tsv, q, 1) AS s FROM chunks, (SELECT {expr} AS q) AS query"
            " WHERE collection = %s AND tsv @@ q ORDER BY s, id LIMIT %s",
            (*[v for _, v in parts], collection, limit)).fetchall()
        return [(int(rid), float(s)) for rid, s in rows]

    def _vocab_range(self, collection: str, first: str) -> list[str]:
        return [r[0] for r in self.store.conn().execute(
            "SELECT lexeme FROM lexemes WHERE collection = %s AND lexeme >= %s AND lexeme < %s",
            (collection, first, chr(ord(first) + 1)))]
