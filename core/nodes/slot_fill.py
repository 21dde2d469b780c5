"""slot_fill: entities, dimensions, constraints and a self-contained reformulated query.

A question comparing two versions of one document ("v1 vs v2 of X") becomes a comparative one
about two version-scoped entities, whichever brain filled the slots (see :mod:`core.doc_versions`).
A comparison needs two sides: a comparative reading that names fewer than two ("What are the two
ways X saves memory?", "Which two ideas does the … approach combine?", where the router took "two"
for two sides) becomes a factual question, answered directly rather than as a table of one row or
of none; its ``router`` ends with "→one side" so the graph pane and the trace say why. Before that,
when the names give fewer than two sides, the papers the question describes ("the noisy matrix
decomposition paper": the paper whose title holds those words, :mod:`core.described`) join its
entities as their short titles. Names that make two sides are kept as they are."""

from __future__ import annotations

from typing import Any

from core.doc_versions import versioned_entities
from core.events import Notice, SlotsFilled
from core.nodes.common import ctx_of, document_summary, history, hub_takes, traced
from core.state import AgentState
from core.telemetry import emit

ONE_SIDE = "→one side"


@traced("slot_fill")
async def slot_fill_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None
    turns = history(state, ctx.settings)
    topic, question = await topic_scope(ctx, state.question)
    slots = await ctx.brain.fill_slots(question, state.intent.type, turns, ctx.vocabulary.names())
    versions = versioned_entities(question)  # "what changed between version 1 and 2 of X"
    entities, gist_query = slots.entities, ""
    if state.intent.type == "comparative" and not versions and len(entities) < 2:
        # the names give no two sides: the question may describe its papers instead
        entities = await with_described(ctx, question, entities)
    elif not versions and not entities:  # a question about one paper as a whole may describe it
        entities, gist_query = await gist_described(ctx, state, question)
    one_side = not versions and state.intent.type == "comparative" and len(entities) < 2
    intent = state.intent.model_copy(update={
        **({"type": "factual", "router": f"{state.intent.router}{ONE_SIDE}"} if one_side else {}),
        **({"type": "comparative"} if versions else {}),
        "entities": versions or entities,
        "dimensions": slots.dimensions,
        "constraints": slots.constraints | topic,
        "reformulated_query": state.refined_query or gist_query or slots.reformulated_query or question,
    })
    emit(SlotsFilled(intent=intent))
    return {"intent": intent}


async def with_described(ctx: Any, question: str, entities: list[str]) -> list[str]:
    """``entities`` and the papers the question names by description ("the noisy matrix decomposition
    paper", :mod:`core.described`), in the order the question names them."""
    from core.described import described_papers

    found = await described_papers(ctx, question, entities, phrases=True)
    if not found:
        return entities
    low = question.lower()
    placed = [(low.find(e.lower()) if e.lower() in low else len(low), e) for e in entities] + found
    return [e for _, e in sorted(placed, key=lambda x: x[0])]


async def gist_described(ctx: Any, state: AgentState, question: str) -> tuple[list[str], str]:
    """``([title], the question naming it)`` when a question about one paper as a whole names it by
    description ("What is the main idea of the prototype-driven learning paper?" reads "… of the
    Prototype-Driven Learning for Sequence Models paper?", :attr:`core.brains.offline.evidence.Profile.whole_paper`
    once so read); else ``([], "")``. The paper goes by its whole title, which no other paper shares (two
    papers may share a short title, "Kestrel: …"). Only a question asked as a gist question and describing one
    paper (:func:`core.described.described_papers`) is so read; a scoped turn looks only in its document,
    and a gist question that names no paper there ("What is the main idea?", "Summarize it.") is about
    that document, named by its title."""
    from core.brains.offline.evidence import gist_form, profile
    from core.described import DESCRIBED, described_papers

    scope = {"doc_id": ctx.doc_id} if ctx.doc_id and hub_takes(ctx.hub, "doc_id") else {}
    if not gist_form(question):
        return [], ""
    if scope and (title := await _scoped_title(ctx)):
        # a turn scoped to one paper: "What is the main idea?", "Summarize it." ask that paper's gist
        named = state.intent.model_copy(update={"entities": [title], "reformulated_query": f"{question} (the {title} paper)"})
        if profile(question, named, vocab=ctx.vocabulary).whole_paper:
            return [title], named.reformulated_query
    found = await described_papers(ctx, question, [], whole_title=True, **scope)
    if len(found) != 1:
        return [], ""
    at, title = found[0]
    m = DESCRIBED.search(question, at)
    if m is None:
        return [], ""
    own = "'s" if m.group(0)[-2:] in ("'s", "’s") else ""
    rewritten = f"{question[:m.start()]}the {title} paper{own}{question[m.end():]}"
    assert state.intent is not None
    named = state.intent.model_copy(update={"entities": [title], "reformulated_query": rewritten})
    return ([title], rewritten) if profile(question, named, vocab=ctx.vocabulary).whole_paper else ([], "")


async def _scoped_title(ctx: Any) -> str:
    """The title of the document the turn is scoped to ("" when the hub cannot say)."""
    found = await document_summary(ctx, ctx.doc_id)
    return str((found or {}).get("title") or "").strip()


async def topic_scope(ctx: Any, question: str) -> tuple[dict, str]:
    """``({"topic": label, "topic_id": id}, the question without its topic clause)`` when the question
    names one of the collection's topics (:mod:`core.scope`; retrieval then searches only its
    documents), else ``({}, question)``."""
    from core import scope

    if not scope.has_cue(question):
        return {}, question
    found = scope.match(question, await scope.fetch_topics(ctx.hub, ctx.collection))
    if found is None:
        return {}, question
    emit(Notice(level="info", source="topics", message=f"scoped to the topic {found.topic.label!r}"
                f" ({len(found.topic.doc_ids)} documents): named as {found.named!r}"))
    return {"topic": found.topic.label, "topic_id": found.topic.topic_id}, found.rest or question
