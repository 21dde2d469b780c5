"""comparative — ReWOO: plan every retrieval up front (one per entity), run them in parallel,
then synthesize an entity × dimension comparison. No brain call between planning and synthesis.

Entities that are versions of one document ("X (version 1)", see :mod:`core.doc_versions`) are
retrieved from that document's versions (``version=N``, ``doc_id``), as many chunks as the hub
gives, so the brain can compare the two texts."""

from __future__ import annotations

import asyncio
import re
from typing import Any

from core.brains.offline.comparison import asks_overview, side_question
from core.brains.offline.evidence import profile
from core.brains.offline.sides import is_paper_of, side_paper, side_papers
from core.doc_versions import split
from core.errors import BackendUnavailable
from core.events import PlanUpdated
from core.nodes.common import ctx_of, hub_takes, merge_contexts, retrieve, topic_of, traced
from core.state import AgentState
from core.strategies.library import abstract_chunks
from core.strategies.simple import ABSTRACT_CHUNKS
from core.strategies.synthesis import synthesize
from core.telemetry import emit


VERSION_TOP_K = 20  # the hub's maximum: a version's text, not just its best chunks
NAME_SEARCH_K = 10  # chunks read when looking for an entity's own paper by its name
SIDE_TOP_K = 10  # chunks read from a side's own paper: a long paper states a dimension in few of them


async def find_document(ctx: Any, name: str) -> str | None:
    """The doc_id of the document called ``name`` (its id, file name or title), best effort."""
    try:
        found = await ctx.hub.search(name, 5, ctx.collection)
    except BackendUnavailable:
        raise
    except Exception:  # noqa: BLE001 - an upstream hub without the tool or an odd answer: search unscoped
        return None
    words = set(re.findall(r"\w+", name.lower()))

    def overlap(c: Any) -> int:
        return len(words & set(re.findall(r"\w+", f"{c.doc_id} {c.title} {c.source}".lower().replace("_", " "))))

    best = max(found, key=overlap, default=None)
    return best.doc_id if best is not None and best.doc_id and overlap(best) else None


async def own_document(ctx: Any, name: str, found: list[Any]) -> str | None:
    """The doc_id of ``name``'s own paper (its file, title or byline names it, see
    :func:`core.brains.offline.sides.is_paper_of`): among chunks already ``found``, else among
    those a search for the bare name returns; None when the collection holds no such paper."""
    own = next((c.doc_id for c in found if c.doc_id and is_paper_of(c, name, ctx.vocabulary)), None)
    if own is not None:
        return own
    more = await name_search(ctx, name)
    return next((c.doc_id for c in more if c.doc_id and is_paper_of(c, name, ctx.vocabulary)), None)


async def name_search(ctx: Any, name: str) -> list[Any]:
    """The chunks a search for the bare ``name`` finds over the collection; none when the hub
    cannot answer it (an upstream hub without the tool or with an odd answer)."""
    try:
        return await ctx.hub.search(name, NAME_SEARCH_K, ctx.collection)
    except BackendUnavailable:
        raise
    except Exception:  # noqa: BLE001 - see above: no own paper found
        return []


async def retrieve_side(ctx: Any, state: AgentState, entity: str | None, query: str,
                        sides: list[str] | tuple[str, ...] = ()) -> list[Any]:
    """One side of the comparison: the entity's retrieval over the collection, then the query scoped
    to the entity's own paper when the collection holds one, so its row is filled from its own text
    rather than from another paper that mentions it.

    Where the hub can scope a search to a paper, both searches ask the question of this side alone
    (:func:`scoped_query`): the first finds the side's own paper, the second ranks that paper's
    chunks by what is asked of it. A hub that cannot scope (an upstream server) gets the whole
    question: that one search is all the side gets, and without the rival's name "Compare A and B"
    would search for a bare name and read whichever chunks merely mention it."""
    scoping = entity is not None and not ctx.doc_id and hub_takes(ctx.hub, "doc_id")
    if scoping:
        query = scoped_query(ctx, query, entity, sides)
    found = await retrieve(ctx, query, entity=entity, topic=topic_of(state))
    if not scoping:
        return found
    doc_id = await own_document(ctx, entity, found)
    if doc_id is None:
        return found
    scoped = await retrieve(ctx, query, top_k=SIDE_TOP_K, entity=entity, doc_id=doc_id)
    return merge_contexts(scoped, found)


def scoped_query(ctx: Any, query: str, entity: str, sides: list[str] | tuple[str, ...]) -> str:
    """A side's query where its search can be scoped to its own paper: the other compared names taken out
    (:func:`core.brains.offline.comparison.side_question`), so that paper's chunks are ranked by
    what is asked of this side, not by whether they mention the rival."""
    return side_question(query, entity, list(sides), ctx.vocabulary) or query


async def scope_described_sides(ctx: Any, planned: list[tuple[str | None, str]],
                                groups: list[list[Any]]) -> list[list[Any]]:
    """Sides whose paper no title or file names (a description, an author's name): each is scoped
    to the document its own retrieval mostly came from (:func:`core.brains.offline.sides.side_paper`),
    else the one a search for its bare name (over the whole collection, no topic) mostly came from;
    never another side's paper, and every chunk of that document is tagged with the side
    (``entity``), so the brain's cells for the side quote that paper."""
    if ctx.doc_id or not hub_takes(ctx.hub, "doc_id"):
        return groups
    named = {e: next((c.doc_id for c in g if c.doc_id and is_paper_of(c, e, ctx.vocabulary)), None)
             for (e, _), g in zip(planned, groups) if e is not None}
    taken = {d for d in named.values() if d}
    out = list(groups)
    for i, ((entity, query), group) in enumerate(zip(planned, groups)):
        if entity is None or named.get(entity):
            continue
        doc_id = side_paper(group, entity, ctx.vocabulary, frozenset(taken)) or side_paper(
            await name_search(ctx, entity), entity, ctx.vocabulary, frozenset(taken))
        if doc_id is None:
            continue
        taken.add(doc_id)
        sides = [e for e, _ in planned if e is not None]
        out[i] = merge_contexts(await retrieve(ctx, scoped_query(ctx, query, entity, sides), top_k=SIDE_TOP_K,
                                               entity=entity, doc_id=doc_id), group)
        for c in (c for g in out for c in g if c.doc_id == doc_id):
            c.entity = entity
    return out


async def side_abstracts(ctx: Any, state: AgentState, contexts: list[Any]) -> list[Any]:
    """For a comparison that asks what its sides are ("Compare A and B.",
    :func:`~core.brains.offline.comparison.asks_overview`): the abstract chunks of each side's own paper
    among ``contexts`` (:func:`~core.brains.offline.sides.side_papers`), tagged with the side, so each row
    can tell what its paper is and does. A search of the bare names finds the chunks that repeat them,
    mostly results. [] for any other comparison, a turn scoped to one paper, or a hub that cannot search
    one document or keeps no summary."""
    intent = state.intent
    if (intent is None or intent.dimensions or len(intent.entities) < 2 or ctx.doc_id
            or not hub_takes(ctx.hub, "doc_id") or getattr(ctx.hub, "get_document_summary", None) is None):
        return []
    prof = profile(state.question, intent, vocab=ctx.vocabulary)
    if not asks_overview(prof):
        return []
    papers = side_papers(contexts, prof.entities, ctx.vocabulary)
    found = await asyncio.gather(*(abstract_chunks(ctx, doc, ABSTRACT_CHUNKS) for doc in papers.values()))
    for name, group in zip(papers, found):
        for c in group:
            c.entity = name
    return merge_contexts(*found)


def plan_queries(entities: list[str], dimensions: list[str], question: str) -> list[tuple[str | None, str]]:
    """(entity, query) pairs: one retrieval per entity, phrased with the comparison dimensions."""
    if not entities:
        return [(None, question)]
    dims = " ".join(dimensions)
    return [(e, f"{e} {dims}".strip() if dims else f"{e}: {question}") for e in entities]


@traced("comparative")
async def comparative_strategy_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None
    intent = state.intent
    planned = plan_queries(intent.entities, intent.dimensions, intent.reformulated_query or state.question)
    planned += [(None, q) for q in state.refine_queries if q not in {p[1] for p in planned}]
    versions = [split(e) for e in intent.entities]
    if intent.entities and all(v is not None for _, v in versions):
        planned = [(e, name) for e, (name, _) in zip(intent.entities, versions)]
        emit(PlanUpdated(sub_questions=intent.entities, reason="versions of one document: one retrieval per version"))
        doc_id = await find_document(ctx, versions[0][0])
        groups = await asyncio.gather(*(retrieve(ctx, name, entity=e, top_k=VERSION_TOP_K, version=v,
                                                 **({"doc_id": doc_id} if doc_id else {}))
                                        for e, (name, v) in zip(intent.entities, versions)))
        for group, (_, v) in zip(groups, versions):
            for c in group:  # the sources list says which version each citation is from
                c.title = f"{c.title or c.doc_id} (version {v})"
    else:
        emit(PlanUpdated(sub_questions=[q for _, q in planned], reason="ReWOO: one retrieval per entity"))
        sides = [e for e, _ in planned if e is not None]
        groups = await asyncio.gather(*(retrieve_side(ctx, state, e, q, sides) for e, q in planned))
        groups = await scope_described_sides(ctx, planned, groups)
    contexts = merge_contexts(*groups)
    contexts = merge_contexts(contexts, await side_abstracts(ctx, state, contexts))
    answer = await synthesize(ctx, state, "comparative", contexts, "comparative")
    queries = [q for _, q in planned]
    return {"retrieved_contexts": contexts, "retrieval_queries": queries, "draft_answer": answer}
