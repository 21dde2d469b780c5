"""retry_refine: carry the critic's feedback into the next attempt (Reflexion).

The refine plan's queries are checked here, in one place, before anything searches them: a weak
LLM writes markers (``[1]``), placeholders (``null``, ``(none)``) and field names
(``reformulated_query``) where queries belong. The refined query replaces slot filling's
reformulation in the next attempt, which would otherwise reproduce the query that just failed.
When refinement finds nothing new to search, the retry would repeat the attempt that just failed:
the best draft so far is delivered as a forced pass instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from core.events import CriticVerdictIssued, Notice, RetryStarted
from core.nodes.common import ctx_of, traced
from core.state import AgentState, fresh_attempt
from core.telemetry import emit

_PLACEHOLDER = re.compile(r"(?i)^\(?(?:null|none|n/?a|nil|tbd|query|queries|reformulated_query|extra_queries"
                          r"|reflection)\)?$")
_MARKERS = re.compile(r"\[\d+\]")


def _key(query: str) -> str:
    return " ".join(query.lower().split()).strip(" ?.!")


def usable_queries(queries: Iterable[str], question: str, already: Iterable[str] = ()) -> list[str]:
    """The queries worth searching: no placeholders, markers or punctuation-only strings, none
    equal to the question or to one already searched, no repeats (whitespace and case ignored)."""
    seen = {_key(q) for q in (question, *already)}
    out: list[str] = []
    for query in queries:
        query = " ".join(str(query or "").split())
        key = _key(query)
        if not key or key in seen or _PLACEHOLDER.match(query) or not re.search(r"\w\w", _MARKERS.sub("", query)):
            continue
        seen.add(key)
        out.append(query)
    return out


@traced("retry_refine")
async def retry_refine_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None and state.critic_verdict is not None
    plan = await ctx.brain.refine(state.question, state.intent, state.critic_verdict)
    attempt = state.retry_count + 1
    queries = usable_queries(plan.extra_queries, state.question, state.retrieval_queries)
    refined = usable_queries([plan.reformulated_query or ""], state.question,
                             [*state.retrieval_queries, state.refined_query])
    if not queries and not refined:
        return stop_repeating(state)
    verdict = state.critic_verdict
    emit(RetryStarted(attempt=attempt, feedback=plan.reflection, queries=queries, score=verdict.score,
                      issues=list(verdict.issues)))
    # The next attempt retrieves and drafts afresh, guided by the reflections.
    return {**fresh_attempt(), "retry_count": attempt, "reflections": state.reflections + [plan.reflection],
            "refine_queries": queries, "refined_query": refined[0] if refined else state.refined_query}


def stop_repeating(state: AgentState) -> dict:
    """The refinement found no query that was not already searched: another attempt would repeat
    this one's searches, so the best draft so far is delivered now as a forced pass (no calls
    spent on a retry that cannot change the evidence)."""
    verdict = state.critic_verdict
    assert verdict is not None
    update: dict = {}
    best = state.best_verdict
    if best is not None and best.score > verdict.score:
        update = {"draft_answer": state.best_draft, "retrieved_contexts": state.best_contexts}
        verdict = best
    emit(Notice(level="warning", source="retry_refine",
                message="the retry would repeat the same searches; delivering the best draft so far as a forced pass"))
    verdict = verdict.model_copy(update={"passed": True, "forced": True})
    emit(CriticVerdictIssued(verdict=verdict, attempt=state.retry_count))
    return {**update, "critic_verdict": verdict}


def retry_gate(state: AgentState) -> str:
    """After refinement: a new attempt (route), or the forced pass :func:`stop_repeating` made."""
    verdict = state.critic_verdict
    return "stop" if verdict is not None and verdict.passed else "retry"
