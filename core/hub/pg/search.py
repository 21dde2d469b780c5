"""Hybrid retrieval on PostgreSQL: both legs run in the server, the fusion is the SQLite searcher's.

:class:`PgSearcher` subclasses :class:`core.hub.search.Searcher` and replaces only the legs and
the keyword lookup; ``search`` (reciprocal-rank fusion, rerank), ``search_many`` (a batch of
queries embedded at once, then searched one by one) and ``keyword`` (hits, exact filtering) are inherited, so hits and the MCP output have the same shape on both backends.

- Lexical: ``chunks.tsv`` (title, file name, breadcrumb, text; English stemming) matched by the
  query's terms OR-ed together through the GIN index, ranked by ``ts_rank`` (length-normalized).
  ``ts_rank`` must score every match, so in a collection past ``EXACT_MAX`` chunks only the rarest
  terms select (at most ``MATCH_BUDGET`` chunks by the server's ANALYZE statistics; words that most
  chunks contain add little to a BM25-style ranking), all terms still rank, and when the rare
  terms match fewer than the leg's depth the rest come from a bounded sample of the common ones.
  When even the rarest term is in more than ``MATCH_BUDGET`` chunks, the first ``MATCH_BUDGET``
  of its matches are ranked (an approximation: such a word says little about any one chunk).
- Dense: cosine distance on ``embeddings.vector``. A collection of at most ``EXACT_MAX`` vectors
  is scanned exactly (the same ranking as the SQLite matrix scan); a larger one walks the HNSW
  index with ``hnsw.ef_search`` = ``max(EF_SEARCH, depth)``, raised by the share of vectors in other
  collections (the index holds every collection and is filtered afterwards).
"""

from __future__ import annotations

import re
import time

import numpy as np

from core.hub.lru import LRU
from core.hub.pg.store import TS_CONFIG, PgStore, scope_sql
from core.hub.search import CACHED_COLLECTIONS, DENSE_FLOOR, LEG_DEPTH, Reranker, Searcher, query_terms
from core.hub.versions import Scope

EXACT_MAX = 20_000  # vectors a collection may have for an exact scan
EF_SEARCH = 100  # HNSW candidate list (pgvector's default is 40; a leg asks for 50)
EF_MAX = 1000  # pgvector's upper bound
MATCH_BUDGET = 5_000  # chunks the lexical leg ranks at most in a large collection (1M chunks: p95 104 ms)
STATS_TTL = 300.0  # seconds the lexeme frequencies (from ANALYZE) are kept
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
        self._stats: tuple[float, tuple[float, dict[str, float], float]] | None = None

    # -- legs ----------------------------------------------------------------------------------
    def lexical(self, collection: str, query: str, n: int = LEG_DEPTH,
                scope: Scope | None = None) -> list[tuple[int, float]]:
        terms = tsquery_terms(query)
        if not terms:
            return []
        db = self.store.conn()
        lexemes = [r[0] for r in db.execute(
            f"SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('{TS_CONFIG}', %s)))", (" ".join(terms),))]
        if not lexemes:  # stop words only
            return []
        rank_q = " | ".join(map(_lexeme, lexemes))
        if scope is not None or self._embedded(collection)[0] <= EXACT_MAX:  # small: rank every match
            return self._ranked(collection, rank_q, rank_q, n, scope=scope)
        rare, common = self._split_by_frequency(lexemes)
        rows = self._ranked(collection, " | ".join(map(_lexeme, rare)), rank_q, n, MATCH_BUDGET)
        if len(rows) < n and common:  # too few chunks hold a rare term: fill from a sample of the common ones
            seen = {rid for rid, _ in rows}
            more = self._ranked(collection, " | ".join(map(_lexeme, common)), rank_q, n + len(rows), MATCH_BUDGET)
            rows += [r for r in more if r[0] not in seen][: n - len(rows)]
        return rows

    def _ranked(self, collection: str, match: str, rank: str, n: int, sample: int | None = None,
                scope: Scope | None = None) -> list[tuple[int, float]]:
        """Chunks (current, or in ``scope``) matching ``match`` (a tsquery), best ``rank`` first; with
        ``sample``, among the first ``sample`` matches only (a bounded scan for words most chunks contain)."""
        where, args = scope_sql(scope)
        matches = f"SELECT c.id, c.tsv FROM chunks c WHERE c.collection = %s AND {where} AND c.tsv @@ %s::tsquery"
        if sample is not None:
            matches += f" LIMIT {int(sample)}"
        rows = self.store.conn().execute(
            f"SELECT m.id, ts_rank(m.tsv, %s::tsquery, 1) AS s FROM ({matches}) m ORDER BY s DESC, m.id LIMIT %s",
            (rank, collection, *args, match, n)).fetchall()
        return [(int(rid), float(s)) for rid, s in rows]

    def _split_by_frequency(self, lexemes: list[str]) -> tuple[list[str], list[str]]:
        """(rare, common): the rarest lexemes whose chunks add up to at most MATCH_BUDGET (the rarest
        one always), by the server's statistics of ``chunks.tsv``; a lexeme it does not list is rarer
        than every one it lists."""
        rows, freq, floor = self._lexeme_stats()
        ranked = sorted(lexemes, key=lambda lx: freq.get(lx, floor))
        rare, budget = [], 0.0
        for lx in ranked:
            budget += freq.get(lx, floor) * rows
            if rare and budget > MATCH_BUDGET:
                break
            rare.append(lx)
        return rare, [lx for lx in ranked if lx not in rare]

    def _lexeme_stats(self) -> tuple[float, dict[str, float], float]:
        """(rows, {lexeme: share of chunks}, share below which lexemes are not listed), from ANALYZE."""
        now = time.monotonic()
        if self._stats is not None and now - self._stats[0] < STATS_TTL:
            return self._stats[1]
        db = self.store.conn()
        row = db.execute("SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats"
                         " WHERE tablename = 'chunks' AND attname = 'tsv'").fetchone()
        total = db.execute("SELECT greatest(reltuples, 0) FROM pg_class WHERE relname = 'chunks'").fetchone()[0]
        if row is None or row[0] is None:
            stats = (float(total), {}, 0.0)
        else:  # the frequencies array ends with min, max and the null share (ts_typanalyze)
            elems, freqs = row
            stats = (float(total), dict(zip(elems, freqs)), float(freqs[len(elems)]))
        self._stats = (now, stats)
        return stats

    def dense(self, collection: str, query: str, n: int = LEG_DEPTH,
              scope: Scope | None = None, vec: np.ndarray | None = None) -> list[tuple[int, float]]:
        if not query.strip():
            return []
        rows = self._dense_rows(collection, query, n, scope=scope, vec=vec)
        return [(int(rid), 1.0 - float(d)) for rid, d in rows if 1.0 - float(d) >= DENSE_FLOOR]

    def dense_plan(self, collection: str, query: str, n: int = LEG_DEPTH) -> str:
        """The server's plan for the dense leg (``EXPLAIN``): an exact scan or the HNSW index."""
        return "\n".join(r[0] for r in self._dense_rows(collection, query, n, explain=True))

    def _dense_rows(self, collection: str, query: str, n: int, explain: bool = False,
                    scope: Scope | None = None, vec: np.ndarray | None = None) -> list[tuple]:
        mine, total = self._embedded(collection)
        vec = np.asarray(self.embed_query(query) if vec is None else vec, dtype=np.float32)
        db = self.store.conn()
        if scope is not None:  # an older version, a date or one document: exact, over its chunks
            where, args = scope_sql(scope)
            with db.transaction():
                db.execute("SET LOCAL enable_indexscan = off")
                return db.execute(
                    ("EXPLAIN " if explain else "") + "SELECT e.chunk_rowid, e.vector <=> %s AS d FROM embeddings e"
                    f" JOIN chunks c ON c.id = e.chunk_rowid WHERE c.collection = %s AND {where}"
                    " ORDER BY d, e.chunk_rowid LIMIT %s", (vec, collection, *args, n)).fetchall()
        if not mine:
            return []
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
                + "SELECT chunk_rowid, vector <=> %s AS d FROM embeddings WHERE collection = %s AND current = 1"
                f" ORDER BY {order} LIMIT %s",
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
    def matrix(self, collection: str, scope: Scope | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Nothing to load: the vectors stay in the server. Reads the collection's vector count
        (start-up calls this to warm up) and returns empty arrays."""
        self._embedded(collection)
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32)

    def lexical_index(self, collection: str, scope: Scope | None = None) -> None:  # type: ignore[override]
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
            " WHERE collection = %s AND current = 1 AND tsv @@ q ORDER BY s, id LIMIT %s",
            (*[v for _, v in parts], collection, limit)).fetchall()
        return [(int(rid), float(s)) for rid, s in rows]

    def _vocab_range(self, collection: str, first: str) -> list[str]:
        return [r[0] for r in self.store.conn().execute(
            "SELECT lexeme FROM lexemes WHERE collection = %s AND lexeme >= %s AND lexeme < %s",
            (collection, first, chr(ord(first) + 1)))]
