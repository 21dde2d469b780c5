"""Hybrid retrieval: BM25 (bm25s) + dense MiniLM cosine, fused by weighted reciprocal-rank fusion.

The dense leg scans a float32 matrix per collection, loaded once and reloaded only when the
collection's revision changes, so a query costs one matrix-vector product; the current chunks'
matrix and BM25 index are memory-mapped files beside the store (:mod:`core.hub.index_files`). Indexes hold
the current chunks; a :class:`~core.hub.versions.Scope` (an older version, ``as_of``, one document)
gets indexes of its own, cached the same way. The query
is embedded with :func:`core.embeddings.embed` (a query waits for the model rather than silently
skipping the dense leg: results are deterministic). An optional rerank step runs on the fused
list; it is off by default.
"""

from __future__ import annotations

import difflib
import importlib
import os
import re
from dataclasses import dataclass
from typing import Protocol
from collections.abc import Callable

import numpy as np

from core.hub import index_files
from core.hub.lexical import LexicalIndex
from core.hub.lru import LRU
from core.hub.store import ChunkRow, HubStore
from core.hub.versions import Scope
from core.text import SEARCH_STOPWORDS, SEARCH_TOKEN

RRF_K = 60
# The lexical leg's weight in the fusion (the dense leg's is 1). Questions about papers repeat the
# paper's own words (a method's name, a dataset, a setting), and MiniLM's one vector per chunk blurs
# a long section: on the abstract dev set the gold-bearing chunk is in the top 5 for 0.918 of
# answerable questions at weight 1 and 0.955 at 2, on the full-text dev set 0.644 and 0.671
# (3 gains nothing more on either; the bundled labels' document recall@5 goes 0.974 to 0.934).
LEXICAL_WEIGHT = 2.0
LEG_DEPTH = 50
# A table's caption and its rows are separate chunks: the caption chunk carries the sentences that
# discuss the table, the rows its values, so a question worded like the discussion finds the caption
# and one naming a row's label finds the rows. A hit on either brings the best-ranked other chunks
# of the same table within the fused ranking's next PARTNER_DEPTH, at most PARTNERS, after the
# top_k (a figure is one caption chunk: it brings nothing). On the full-text dev set (plain search
# of each question) this puts the gold-bearing chunk of 17 of 21 table and caption questions among
# the hits, against 15 in the top 5 alone, at 0.4 more chunks a question (the top 7 gives the
# same 17, and 3 more elsewhere, at two more chunks a question).
PARTNERS = 2
PARTNER_DEPTH = 20
_FLOAT = re.compile(r"^(table)\s*(\d+)\b", re.I)
DENSE_FLOOR = 0.1
CACHED_COLLECTIONS = 8  # dense matrices and BM25 indexes kept
CACHED_QUERIES = 256  # query vectors kept
CACHED_QUERY_CHARS = 2000  # longer queries are embedded each time


@dataclass
class Hit:
    chunk: ChunkRow
    score: float
    lexical_rank: int | None = None
    dense_rank: int | None = None
    lexical_score: float | None = None
    dense_score: float | None = None


def capped(hits: list[Hit], per_doc: int, n: int) -> list[Hit]:
    """The first ``n`` of ``hits`` (ranked, with their chunks) taking at most ``per_doc`` chunks of any
    one document, each document's best first: the search a survey makes, where a long paper that
    shares the query's words in many chunks would otherwise fill the whole head and hide the other
    papers that bear on it. ``hits`` is the fused ranking of both legs at their full depth, so a paper
    found only deep down still takes its place."""
    taken: dict[str, int] = {}
    out: list[Hit] = []
    for h in hits:
        if len(out) == n:
            break
        if taken.get(h.chunk.doc_id, 0) < per_doc:
            taken[h.chunk.doc_id] = taken.get(h.chunk.doc_id, 0) + 1
            out.append(h)
    return out


class Reranker(Protocol):
    def __call__(self, query: str, hits: list[Hit]) -> list[Hit]: ...


def load_reranker(spec: str | None) -> Reranker | None:
    """``None``/``"none"`` = off; ``"module:attr"`` = a callable ``(query, hits) -> hits``."""
    spec = (spec or os.environ.get("PAPERPILOT_HUB_RERANK") or "none").strip()
    if spec.lower() in {"", "none", "off"}:
        return None
    module, _, attr = spec.partition(":")
    return getattr(importlib.import_module(module), attr or "rerank")


def query_terms(text: str) -> list[str]:
    seen: dict[str, None] = {}
    for t in SEARCH_TOKEN.findall(text.lower()):
        if t not in SEARCH_STOPWORDS and (len(t) > 1 or t.isdigit()):
            seen.setdefault(t, None)
    return list(seen)


def float_label(chunk: ChunkRow) -> tuple[str, str, str] | None:
    """(document, "tab", number) of the table a chunk belongs to: its caption chunk (breadcrumb
    ``… > Table 2``) or its rows (``… > Table 2: Runtime of …``); else None."""
    m = _FLOAT.match(chunk.breadcrumb.rsplit(" > ", 1)[-1].strip())
    return (chunk.doc_id, m.group(1).lower()[:3], m.group(2)) if m else None


def table_partners(hits: list[Hit], rest: list[Hit], limit: int = PARTNERS) -> list[Hit]:
    """Up to ``limit`` hits of ``rest`` (ranked order) that belong to a table one of ``hits``
    belongs to (:func:`float_label`), and are not among ``hits``."""
    labels = {lab for h in hits if (lab := float_label(h.chunk)) is not None}
    if not labels:
        return []
    have = {h.chunk.rowid for h in hits}
    return [h for h in rest if h.chunk.rowid not in have and float_label(h.chunk) in labels][:limit]


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


class Searcher:
    """Search one store; safe to call from several threads."""

    def __init__(self, store: HubStore, embed_query: Callable[[str], np.ndarray] | None = None,
                 reranker: Reranker | None = None):
        self.store = store
        self._embed_query = embed_query
        self.reranker = reranker
        # bounded: a long-lived hub keeps the indexes of the collections in use, not of every one seen
        self._matrices: LRU[str, tuple[int, np.ndarray, np.ndarray]] = LRU(CACHED_COLLECTIONS)
        self._lexical: LRU[str, tuple[int | None, LexicalIndex]] = LRU(CACHED_COLLECTIONS)
        self._qcache: LRU[str, np.ndarray] = LRU(CACHED_QUERIES)

    # -- legs ----------------------------------------------------------------------------------------
    def lexical(self, collection: str, query: str, n: int = LEG_DEPTH, scope: Scope | None = None) -> list[tuple[int, float]]:
        if not query_terms(query):
            return []
        return self.lexical_index(collection, scope).search(query, n)

    def lexical_index(self, collection: str, scope: Scope | None = None) -> LexicalIndex:
        """The collection's BM25 index (of ``scope``'s chunks), rebuilt only when its revision changes."""
        rev = self.store.revision(collection)
        key = collection if scope is None else f"{collection}|{scope.key}"
        cached = self._lexical.get(key)
        if cached is not None and cached[0] == rev:
            return cached[1]
        if scope is None:  # the current chunks: kept as files beside the store, mapped by the next process
            index = index_files.lexical(self.store, collection, SEARCH_STOPWORDS,
                                        lambda: LexicalIndex(self.store.lexical_rows(collection), SEARCH_STOPWORDS))
        else:
            index = LexicalIndex(self.store.lexical_rows(collection, scope), SEARCH_STOPWORDS)
        self._lexical.put(key, (rev, index))
        return index

    def embed_query(self, query: str) -> np.ndarray:
        return self.embed_queries([query])[0]

    def embed_queries(self, queries: list[str]) -> list[np.ndarray]:
        """Each query's vector: cached ones from the query cache, the others embedded in one encoder
        batch (one call each with an injected single-query ``embed_query``)."""
        vecs: list[np.ndarray | None] = [self._qcache.get(q) for q in queries]
        missing = list(dict.fromkeys(q for q, v in zip(queries, vecs) if v is None))
        if not missing:
            return vecs  # type: ignore[return-value]
        if self._embed_query is not None:
            fresh = {q: self._embed_query(q) for q in missing}
        else:
            from core.embeddings import embed

            fresh = dict(zip(missing, embed(missing)))
        for q, vec in fresh.items():
            if len(q) <= CACHED_QUERY_CHARS:  # a huge query is not worth keeping as a key
                self._qcache.put(q, vec)
        return [fresh[q] if v is None else v for q, v in zip(queries, vecs)]

    def matrix(self, collection: str, scope: Scope | None = None) -> tuple[np.ndarray, np.ndarray]:
        rev = self.store.revision(collection)
        key = collection if scope is None else f"{collection}|{scope.key}"
        cached = self._matrices.get(key)
        if cached is not None and cached[0] == rev:
            return cached[1], cached[2]
        ids, mat = index_files.dense(self.store, collection) if scope is None else \
            self.store.embedding_matrix(collection, scope)
        self._matrices.put(key, (rev, ids, mat))
        return ids, mat

    def dense(self, collection: str, query: str, n: int = LEG_DEPTH, scope: Scope | None = None,
              vec: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Chunks by cosine to ``query`` (its vector ``vec`` when the caller has it), best first."""
        ids, mat = self.matrix(collection, scope)
        if not len(ids) or not query.strip():
            return []
        sims = mat @ (self.embed_query(query) if vec is None else vec)
        k = min(n, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(int(ids[i]), float(sims[i])) for i in top if sims[i] >= DENSE_FLOOR]

    # -- fusion --------------------------------------------------------------------------------------
    def search(self, collection: str, query: str, top_k: int = 5, legs: str = "hybrid",
               scope: Scope | None = None, only: set[int] | None = None, vec: np.ndarray | None = None,
               per_doc: int | None = None) -> list[Hit]:
        """Top-k hits; ``legs`` is ``hybrid``, ``lexical`` or ``dense`` (the latter two for evaluation);
        ``scope`` (default: current chunks) selects an older version, a time, or one document;
        ``only``: the chunk rowids allowed (a topic's documents); both legs then rank every chunk;
        ``vec``: the query's vector, when the caller embedded it already; ``per_doc``: at most that
        many chunks of any one document (:func:`capped`)."""
        pool = self._pool(collection, query, top_k, legs, scope, only, vec, per_doc)
        return self._hits(query, pool, self.store.chunks_by_rowid([rid for rid, _ in pool]), top_k,
                          partners=legs == "hybrid", per_doc=per_doc)

    def _pool(self, collection: str, query: str, top_k: int, legs: str, scope: Scope | None,
              only: set[int] | None, vec: np.ndarray | None, per_doc: int | None = None) -> list[tuple[int, Hit]]:
        """The fused ranking's head (rowid, hit without its chunk): top_k, or 3 x top_k to rerank,
        then the next :data:`PARTNER_DEPTH` (where a hit table's other chunks are looked for); with
        ``per_doc``, the whole fused ranking (both legs at their full depth), which the cap reads."""
        depth = max(LEG_DEPTH, top_k * 5) if only is None else 1 << 30
        scope = None if scope == Scope() else scope
        lex = self.lexical(collection, query, depth, scope) if legs in ("hybrid", "lexical") else []
        den = self.dense(collection, query, depth, scope, vec=vec) if legs in ("hybrid", "dense") else []
        if only is not None:
            lex, den = [h for h in lex if h[0] in only][:LEG_DEPTH], [h for h in den if h[0] in only][:LEG_DEPTH]
        fused: dict[int, Hit] = {}
        for rank, (rid, s) in enumerate(lex, start=1):
            fused[rid] = Hit(chunk=None, score=LEXICAL_WEIGHT / (RRF_K + rank),  # type: ignore[arg-type]
                             lexical_rank=rank, lexical_score=s)
        for rank, (rid, s) in enumerate(den, start=1):
            h = fused.setdefault(rid, Hit(chunk=None, score=0.0))  # type: ignore[arg-type]
            h.score += 1.0 / (RRF_K + rank)
            h.dense_rank, h.dense_score = rank, s
        order = sorted(fused.items(), key=lambda kv: (-kv[1].score, kv[0]))
        return order if per_doc is not None else order[: (top_k * 3 if self.reranker else top_k) + PARTNER_DEPTH]

    def _hits(self, query: str, pool: list[tuple[int, Hit]], rows: dict[int, ChunkRow], top_k: int,
              partners: bool = True, per_doc: int | None = None) -> list[Hit]:
        """The pool's hits with their chunks (a chunk deleted since ranking is left out), reranked, cut
        to top_k; then, with ``partners``, the other chunks of the tables hit (see
        :data:`PARTNERS`). With ``per_doc`` the head is :func:`capped`; the table partners are looked
        for among every other chunk of the pool and do not count against the cap (a caption's rows
        are the numbers it names)."""
        n = top_k * 3 if self.reranker else top_k
        for rid, h in pool:
            h.chunk = rows.get(rid)  # type: ignore[assignment]
        live = [h for _, h in pool if h.chunk is not None]
        if per_doc is None:
            head, tail = live[:n], live[n:]
        else:
            head = capped(live, per_doc, n)
            kept = {id(h) for h in head}
            tail = [h for h in live if id(h) not in kept][:PARTNER_DEPTH + n]
        if self.reranker is not None:
            head = list(self.reranker(query, head))
        hits = head[:top_k]
        if partners:
            hits += table_partners(hits, head[top_k:] + tail)
        return hits

    def search_many(self, collection: str, queries: list[str], top_k: int = 5, scope: Scope | None = None,
                    only: set[int] | None = None, per_doc: int | None = None) -> list[list[Hit]]:
        """:meth:`search` of each query (hybrid), the same hits; the queries missing from the query
        cache are embedded in one encoder batch, and the chunks the queries share are read once. Each
        dense leg keeps its own matrix-vector product, so a batch ranks exactly as single queries do (a
        matrix-matrix product may round differently)."""
        vecs = iter(self.embed_queries([q for q in queries if q.strip()]))
        pools = [self._pool(collection, q, top_k, "hybrid", scope, only, next(vecs) if q.strip() else None, per_doc)
                 for q in queries]
        rows = self.store.chunks_by_rowid(list(dict.fromkeys(rid for pool in pools for rid, _ in pool)))
        return [self._hits(q, pool, rows, top_k, per_doc=per_doc) for q, pool in zip(queries, pools)]

    # -- keyword browsing ----------------------------------------------------------------------------
    def keyword(self, collection: str, keywords: list[str], mode: str = "exact", top_k: int = 10) -> list[Hit]:
        """Exact: every keyword appears verbatim (case-insensitive). Fuzzy: any keyword, typo-tolerant."""
        kws = [k.strip() for k in keywords if k and k.strip()]
        if not kws:
            return []
        rows = self._keyword_rows(collection, kws, mode, top_k * (4 if mode == "exact" else 1))
        found = self.store.chunks_by_rowid([r[0] for r in rows])
        hits = []
        for rank, (rid, s) in enumerate(rows, start=1):
            ch = found.get(rid)
            if ch is None:
                continue
            if mode == "exact" and not all(k.lower() in ch.text.lower() or k.lower() in ch.breadcrumb.lower()
                                           for k in kws):
                continue
            hits.append(Hit(chunk=ch, score=-float(s), lexical_rank=rank, lexical_score=-float(s)))
        return hits[:top_k]

    def _keyword_rows(self, collection: str, kws: list[str], mode: str, limit: int) -> list[tuple[int, float]]:
        """(rowid, score) of the keyword matches, best first; a lower score is better (FTS5 bm25)."""
        if mode == "exact":
            match = " AND ".join(_quote(" ".join(SEARCH_TOKEN.findall(k)) or k) for k in kws)
        else:
            terms: list[str] = []
            for k in kws:
                for t in SEARCH_TOKEN.findall(k.lower()):
                    terms.append(f"{_quote(t)}*")
                    terms += [_quote(v) for v in self._close_terms(t, collection)]
            match = " OR ".join(dict.fromkeys(terms))
        if not match:
            return []
        return self.store.conn().execute(
            "SELECT rowid, bm25(chunks_fts, 0.0, 4.0, 2.0, 1.0) AS s FROM chunks_fts"
            " WHERE chunks_fts MATCH ? AND collection = ? ORDER BY s LIMIT ?", (match, collection, limit)).fetchall()

    def _vocab_range(self, collection: str, first: str) -> list[str]:
        """The indexed terms (stems) that start with the letter ``first``."""
        db = self.store.conn()
        db.execute("CREATE VIRTUAL TABLE IF NOT EXISTS temp.hub_vocab USING fts5vocab(main, chunks_fts, 'row')")
        return [r[0] for r in db.execute("SELECT term FROM temp.hub_vocab WHERE term >= ? AND term < ?",
                                         (first, chr(ord(first) + 1)))]

    def _close_terms(self, term: str, collection: str = "default") -> list[str]:
        if len(term) < 4:
            return []
        vocab = self._vocab_range(collection, term[:1])
        scored = []
        for v in vocab:
            if len(v) < max(4, 0.6 * len(term)):
                continue
            probe = term[: len(v) + 1] if len(v) < len(term) else term  # stems are shorter than words
            m = difflib.SequenceMatcher(None, v, probe)
            if m.real_quick_ratio() >= 0.8 and m.quick_ratio() >= 0.8 and (r := m.ratio()) >= 0.8:
                scored.append((r, v))
        return [v for _, v in sorted(scored, reverse=True)[:3]]
