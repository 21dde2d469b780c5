"""Per-point retrieval: every knowledge point searched at once through the hub, reranked, deduped.

Each point gets a main query (its topic) and sub-queries (its keywords, each with the point's name);
each query asks the hub for ``CANDIDATES`` chunks. The union is reranked lexically against the point
(share of its words a chunk carries, a bonus for the point's own paper, reciprocal rank over the
queries) and cut to ``KEEP``. All points run concurrently, so the hub client sends all their queries
as one batch call (:mod:`core.tools.batching`); :class:`~core.events.PointSearched` is
emitted as each finishes (``index`` counts completions). ``duplicates`` there counts the chunks the
point shares with points that finished before it. Afterwards a chunk found by several points is kept
under the one that scored it highest and recorded under the others (``also_under``).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any

from core.brains.offline.evidence import is_document_of
from core.brains.offline.text import content_terms, covered, term_set
from core.events import PointSearched
from core.research.types import KnowledgePoint
from core.telemetry import emit
from core.tools.hub_client import ToolError
from core.types import RetrievedContext
from core.vocabulary import Vocabulary

CANDIDATES = 20
KEEP = 10
MAX_SUBQUERIES = 2


@dataclass
class PointHits:
    """What one point kept: its chunks (best first) with their rerank scores."""

    point_id: str
    contexts: list[RetrievedContext] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)  # chunk_id → rerank score
    also_under: dict[str, list[str]] = field(default_factory=dict)  # chunk_id → other points that found it
    queries: list[str] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict:
        return {"point_id": self.point_id, "contexts": [c.model_dump() for c in self.contexts],
                "scores": self.scores, "also_under": self.also_under, "queries": self.queries, "error": self.error}

    @classmethod
    def from_dict(cls, d: dict) -> PointHits:
        return cls(point_id=d["point_id"], contexts=[RetrievedContext.model_validate(c) for c in d["contexts"]],
                   scores=dict(d.get("scores", {})), also_under={k: list(v) for k, v in d.get("also_under", {}).items()},
                   queries=list(d.get("queries", [])), error=d.get("error"))


def point_name(point: KnowledgePoint) -> str:
    """The point's subject: its topic before a colon ("LoRA (2021): fine-tuning" → "LoRA")."""
    head = point.topic.split(":", 1)[0]
    return head.split(" (")[0].strip() or point.topic


def queries(point: KnowledgePoint) -> list[str]:
    """The main query (the topic) and up to MAX_SUBQUERIES sub-queries (keyword + name)."""
    name = point_name(point)
    out = [point.topic]
    for kw in point.search_keywords:
        q = kw if name.lower() in kw.lower() else f"{name} {kw}"
        if q.lower() not in (o.lower() for o in out):
            out.append(q)
        if len(out) > MAX_SUBQUERIES:
            break
    return out


def rerank(point: KnowledgePoint, ranked: list[list[RetrievedContext]], keep: int = KEEP, *,
           vocab: Vocabulary) -> PointHits:
    """The union of the queries' hits, scored against the point, best ``keep`` first."""
    terms = list(dict.fromkeys(content_terms(" ".join([point.topic, *point.search_keywords]), drop_frame=True)))
    name = point_name(point)
    best: dict[str, RetrievedContext] = {}
    rrf: dict[str, float] = {}
    for hits in ranked:
        for rank, c in enumerate(hits):
            best.setdefault(c.chunk_id, c)
            rrf[c.chunk_id] = rrf.get(c.chunk_id, 0.0) + 1.0 / (10 + rank)
    scores: dict[str, float] = {}
    for cid, c in best.items():
        have = term_set(f"{c.title} {c.breadcrumb} {c.content}")
        share = sum(covered(t, have) for t in terms) / len(terms) if terms else 0.0
        own = 0.3 if is_document_of(c, name, vocab) else 0.0
        scores[cid] = round(share + own + 2.0 * rrf[cid], 6)
    order = sorted(best, key=lambda cid: -scores[cid])[:keep]
    return PointHits(point.id, [best[cid] for cid in order], {cid: scores[cid] for cid in order})


async def search_point(hub: Any, point: KnowledgePoint, collection: str, *, top_k: int = CANDIDATES,
                       keep: int = KEEP, extra: list[str] | None = None,
                       concurrent: bool = True, vocab: Vocabulary) -> tuple[PointHits, int]:
    """One point's queries (concurrently: one hub batch call; else one after another), reranked;
    (hits, candidates the hub returned)."""
    qs = queries(point) + [q for q in (extra or []) if q not in queries(point)]
    if concurrent:
        results = await asyncio.gather(*(_one(hub, q, top_k, collection) for q in qs))
    else:
        results = [await _one(hub, q, top_k, collection) for q in qs]
    ranked = [r for r, _ in results]
    errors = [e for _, e in results if e]
    for q, hits in zip(qs, ranked):
        for c in hits:
            c.query = c.query or q
    hits = rerank(point, ranked, keep, vocab=vocab)
    hits.queries, hits.error = qs, (errors[0] if errors and not hits.contexts else None)
    return hits, sum(len(r) for r in ranked)


async def _one(hub: Any, query: str, top_k: int, collection: str) -> tuple[list[RetrievedContext], str | None]:
    try:
        return await hub.search(query, top_k, collection), None
    except ToolError as exc:  # one failed query leaves the others; an unreachable hub still raises
        return [], str(exc)


CONCURRENCY = ("all", "point", "query")


async def search_all(hub: Any, points: list[KnowledgePoint], collection: str, *,
                     concurrency: str = "all", vocab: Vocabulary) -> list[PointHits]:
    """Every point's hits, deduped across points. ``concurrency`` (the benchmark compares them):
    ``all`` every point's queries at once (the hub client sends them as one batch call), ``point``
    one point after another (its queries at once), ``query`` one query at a time."""
    if concurrency not in CONCURRENCY:
        raise ValueError(f"concurrency must be one of {', '.join(CONCURRENCY)} (got {concurrency!r})")
    total = len(points)
    done: list[PointHits] = []
    seen: set[str] = set()

    async def run(point: KnowledgePoint) -> PointHits:
        t0 = time.perf_counter()
        hits, candidates = await search_point(hub, point, collection, concurrent=concurrency != "query",
                                                  vocab=vocab)
        ids = [c.chunk_id for c in hits.contexts]
        shared = sum(1 for i in ids if i in seen)
        seen.update(ids)
        done.append(hits)
        emit(PointSearched(point_id=point.id, topic=point.topic, index=len(done), total=total, queries=hits.queries,
                           candidates=candidates, kept=len(ids), duplicates=shared,
                           duration_ms=(time.perf_counter() - t0) * 1000, error=hits.error))
        return hits

    if concurrency == "all":
        results = list(await asyncio.gather(*(run(p) for p in points)))
    else:
        results = [await run(p) for p in points]
    return dedupe(results)


def dedupe(results: list[PointHits]) -> list[PointHits]:
    """Each chunk under the point that scored it highest (the earlier point on a tie); the other
    points that found it are listed in the owner's ``also_under``."""
    owner: dict[str, tuple[float, int]] = {}
    finders: dict[str, list[str]] = {}
    for n, hits in enumerate(results):
        for c in hits.contexts:
            finders.setdefault(c.chunk_id, []).append(hits.point_id)
            score = hits.scores.get(c.chunk_id, 0.0)
            if c.chunk_id not in owner or score > owner[c.chunk_id][0]:
                owner[c.chunk_id] = (score, n)
    for n, hits in enumerate(results):
        hits.contexts = [c for c in hits.contexts if owner[c.chunk_id][1] == n]
        hits.scores = {c.chunk_id: hits.scores[c.chunk_id] for c in hits.contexts}
        hits.also_under = {c.chunk_id: [p for p in finders[c.chunk_id] if p != hits.point_id]
                           for c in hits.contexts if len(finders[c.chunk_id]) > 1}
    return results
