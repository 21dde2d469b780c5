"""load_memory: recall long-term facts relevant to the question (used only at synthesis).

Facts that read like instructions (:mod:`core.memory.hygiene`) are left out unless the user pinned
them: a store written before memory hygiene existed may hold planted ones, and they must not reach a
prompt. ``paperpilot memory audit`` lists them for deletion. A fact learnt from a document goes to
the brain attributed ("<title> says: ..."), so it is used as that document's claim, never as
something the agent knows (:meth:`core.memory.protocol.RecalledFact.as_prior`).

Facts this session wrote itself are left out by the store (pinned ones excepted): the answer shows recalled
facts as "From earlier sessions", and this session's own turns already hold what it learnt. The store
leaves them out before it takes the top k, so they neither crowd out an earlier session's fact nor have
their recall counters (eviction order) bumped.

A fact learnt from a paper that has been read again since (a changed file, a better reader) is
checked against the paper as it now reads (:func:`reread_check`): one it no longer says is left out
(with a notice the turn it is found), and ``memory audit`` lists it; the verdict is kept with the
fact, so it is not checked again until the paper is read again.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.citations import supports
from core.events import MemoryRecalled, Notice
from core.memory.hygiene import is_instruction_like
from core.nodes.common import ctx_of, document_summary, traced
from core.memory.protocol import RecalledFact
from core.state import AgentState
from core.telemetry import emit

STALE_CHECK_HITS = 5  # chunks of the paper's current version searched for a fact learnt from an older one


@traced("load_memory")
async def load_memory_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    mem = ctx.settings.memory
    if ctx.facts is None or not mem.enabled or mem.recall_top_k == 0 or state.retry_count > 0:
        return {}
    recalled = await ctx.facts.recall(state.question, mem.recall_top_k, exclude_session=ctx.session_id or "")
    kept = [f for f in recalled if f.pinned or not is_instruction_like(f.content)]
    if len(kept) < len(recalled):
        emit(Notice(level="warning", source="memory",
                    message=f"left out {len(recalled) - len(kept)} remembered fact(s) that read like instructions; "
                            "review them with: paperpilot memory audit"))
    check = await reread_check(ctx, kept)
    if check.versions and (mark := getattr(ctx.facts, "mark_checked", None)) is not None:
        # kept with the fact, against the version checked: not checked again until the paper is read again
        await mark([(i, check.versions[i], i in check.said) for i in sorted(check.said | check.unsaid)])
    if check.unsaid or check.known_unsaid:
        kept = [f for f in kept if f.id not in check.unsaid | check.known_unsaid]
    if check.unsaid:  # said once, when found; `memory audit` lists them all
        emit(Notice(level="warning", source="memory",
                    message=f"left out {len(check.unsaid)} remembered fact(s) that their paper no longer says (it was "
                            "read again since they were learnt); review them with: paperpilot memory audit"))
    facts = [f.as_prior() for f in kept]
    emit(MemoryRecalled(facts=facts, fact_ids=[f.id for f in kept]))
    return {"accumulated_facts": facts}


@dataclass
class RereadCheck:
    """What :func:`reread_check` found: ids of facts just checked (``said``, ``unsaid``) and of facts
    an earlier turn found their paper no longer says (``known_unsaid``)."""

    said: set[int] = field(default_factory=set)
    unsaid: set[int] = field(default_factory=set)
    known_unsaid: set[int] = field(default_factory=set)
    versions: dict[int, float] = field(default_factory=dict)  # fact id → the time of the version it was checked against


async def reread_check(ctx: Any, facts: list[RecalledFact]) -> RereadCheck:
    """Check the facts learnt from a paper that has been read again since (its current version is
    newer than the fact, and not the version its last check was against) against the paper as it now reads. A fact is
    still said when one of the best :data:`STALE_CHECK_HITS` chunks of the paper for it, by a search of
    that paper, supports it as a citation's chunk must support its claim; a paper re-read with the same
    text keeps its facts. A fact checked since the current version keeps its verdict. One
    ``get_document_summary`` per paper the recalled facts come from (facts a user pinned or added are
    never checked); a hub without it (an upstream server), or a paper this collection does not hold,
    leaves its facts as they are."""
    out = RereadCheck()
    learnt = [f for f in facts if f.doc_id and f.updated and not f.pinned]
    if getattr(ctx.hub, "get_document_summary", None) is None or not learnt:
        return out
    docs = sorted({f.doc_id for f in learnt})
    since = dict(zip(docs, await asyncio.gather(*(_current_since(ctx, d) for d in docs))))
    older = []
    for f in learnt:
        made = since[f.doc_id]
        if made is None or made <= f.updated:
            continue  # learnt from the current version
        if f.checked >= made:  # checked against this version (both times the hub's)
            if f.said is False:
                out.known_unsaid.add(f.id)
            continue
        older.append(f)
        out.versions[f.id] = made
    if not older:
        return out
    from core.tools.hub_client import ToolError

    async def said(f: RecalledFact) -> bool | None:
        try:
            hits = await ctx.hub.search(f.content, STALE_CHECK_HITS, ctx.collection, doc_id=f.doc_id)
        except (ToolError, TypeError):  # a hub that cannot search one document: not checked
            return None
        return any(supports(f.content, h) for h in hits)

    for f, ok in zip(older, await asyncio.gather(*(said(f) for f in older))):
        if ok is None:
            out.versions.pop(f.id)
        else:
            (out.said if ok else out.unsaid).add(f.id)
    return out


async def _current_since(ctx: Any, doc_id: str) -> float | None:
    """When the document's current version was made (epoch seconds), or None when the hub cannot say
    (not in this collection, or the hub refused: nothing to check against)."""
    found = await document_summary(ctx, doc_id) or {}
    current = [v for v in found.get("versions") or [] if isinstance(v, dict) and v.get("current")]
    if not current:
        return None
    if isinstance(current[0].get("created"), (int, float)):
        return float(current[0]["created"])
    try:  # a hub from before versions carried `created`: their local time, in whole seconds
        return datetime.fromisoformat(str(current[0]["created_at"])).timestamp()
    except (KeyError, ValueError):
        return None
