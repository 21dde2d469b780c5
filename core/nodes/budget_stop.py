"""Ending a turn that reached its LLM budget (:mod:`core.budget`) with the best draft so far.

:func:`best_draft` picks, from the state of the node the budget stopped, the draft worth delivering:
this attempt's draft when there is one (unless an earlier attempt's verdict scored higher than this
one's), else the best-scored earlier attempt. A draft no critic has judged yet is judged by the
rule critic, which costs no call. :func:`deliver` turns it into the events a finished turn has (the
notice naming the limit, the forced-pass verdict, the formatted answer) and adds the answer to the
conversation history.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage

from core.budget import BudgetExceeded, Draft
from core.citations import check_citations
from core.config import Settings
from core.events import AnswerReady, CriticVerdictIssued, Event, Notice
from core.nodes.format_output import answer_message, renumber_citations
from core.state import AgentState
from core.vocabulary import Vocabulary


JUDGED = frozenset({"retry_refine", "turn_floor", "save_memory", "format_output"})  # nodes after the critic judged this attempt


def best_draft(state: AgentState, settings: Settings, node: str, vocab: Vocabulary) -> Draft | None:
    """The draft a turn stopped in ``node`` delivers, or None when no attempt has written one (``vocab``:
    the collection's names, which the rule critic matches)."""
    best = state.best_verdict if state.best_draft else None
    if state.draft_answer:
        verdict = state.critic_verdict if node in JUDGED else None
        if verdict is not None and best is not None and not verdict.passed and best.score > verdict.score:
            return Draft(state.best_draft, list(state.best_contexts), best)
        # unjudged: the latest attempt, written with every reflection so far; the rule critic scores it
        return Draft(state.draft_answer, list(state.retrieved_contexts),
                     verdict or _rule_verdict(state, settings, state.draft_answer, state.retrieved_contexts, vocab))
    if best is not None:
        return Draft(state.best_draft, list(state.best_contexts), best)
    return None


def _rule_verdict(state: AgentState, settings: Settings, answer: str, contexts: list, vocab: Vocabulary):
    from core.brains.offline.critic import critique

    return critique(state.question, state.intent, contexts, answer, state.sub_questions,
                    settings.agent.critic_thresholds, vocab=vocab)


def delivery(exc: BudgetExceeded, turn_id: str, intent) -> tuple[list[Event], AIMessage]:
    """The events that deliver ``exc.draft`` as a forced pass, and the answer for the history."""
    draft = exc.draft
    assert draft is not None
    events: list[Event] = [Notice(level="warning", source="budget",
                                  message=f"{exc}; delivering the best draft so far as a forced pass")]
    verdict = draft.verdict.model_copy(update={"passed": True, "forced": True})
    events.append(CriticVerdictIssued(verdict=verdict))
    checked, changes = check_citations(draft.answer, draft.contexts)
    answer, sources, removed = renumber_citations(checked, draft.contexts)
    events.append(AnswerReady(answer=answer, sources=sources, removed_markers=sorted(set(removed)),
                              citation_changes=changes))
    return events, answer_message(turn_id, intent, answer, sources)


async def deliver(graph, config: dict, exc: BudgetExceeded, turn_id: str, intent) -> list[Event]:
    """:func:`delivery`'s events; the answer joins the checkpointed history as if format_output had
    written it (a stopped run's checkpoint holds the state before the step that was stopped)."""
    events, message = delivery(exc, turn_id, intent)
    if graph.checkpointer is not None:
        answer = next(e for e in events if isinstance(e, AnswerReady))
        await graph.aupdate_state(config, {"messages": [message], "final_answer": answer.answer,
                                           "sources": answer.sources}, as_node="format_output")
    return events
