"""exploratory — ReAct: think → act → observe until the evidence is judged sufficient or the step
bound is hit. The observe step's sufficiency judgement (fully / partially sufficient,
contradictory, insufficient) drives continue vs stop.

A question that asks how a line of work evolved is first put to the library's citation graph: when
the hub's ``get_lineage`` finds papers on it joined by cite edges, the first think step answers
with the year-ordered lineage (:mod:`core.strategies.lineage`) and goes straight to synthesize,
which keeps that answer. A question about the library itself ("What papers do I have?") is answered
the same way, by the collection's list of papers (:mod:`core.strategies.library`)."""

from __future__ import annotations

from typing import Any

from core.events import DraftReady, SourcesFound, SufficiencyJudged, ThoughtEmitted
from core.nodes.common import ctx_of, hub_takes, merge_contexts, retrieve, topic_of, traced
from core.strategies.simple import paper_abstract
from core.state import AgentState, AttemptState
from core.strategies.library import library_answer
from core.strategies.lineage import lineage_answer
from core.strategies.synthesis import synthesize
from core.telemetry import emit

GRAPH = "exploratory"
SURVEY_PER_PAPER = 2  # a survey's first search takes at most this many chunks of any one paper


@traced("think", GRAPH)
async def think_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None
    n = state.current_react_step + 1
    pending = [q for q in state.refine_queries if q not in state.retrieval_queries]
    if n == 1 and not pending and (found := await lineage_answer(ctx.hub, state.question, ctx.collection)):
        answer, contexts = found
        papers = {c.doc_id for c in contexts}
        emit(ThoughtEmitted(content=f"The library's citation graph links {len(papers)} papers on this line of work: "
                                    "answer with their lineage, oldest first.", step=n, query=None))
        emit(SourcesFound(contexts=contexts))
        return {"next_action": "written", "retrieved_contexts": contexts, "draft_answer": answer}
    if n == 1 and (found := await library_answer(ctx, state)):  # a retry too: a search would not list the library
        answer, contexts = found
        emit(ThoughtEmitted(content=f"This asks what the library holds: answer with its {len(contexts)} papers' "
                                    "abstracts, not a search.", step=n, query=None))
        return {"next_action": "written", "retrieved_contexts": contexts, "draft_answer": answer}
    if pending:  # the critic asked for these on the previous attempt
        thought, action, query = f"The critic asked for more on: {pending[0]}", "search", pending[0]
    else:
        act = await ctx.brain.react_step(
            state.question, state.intent, step=n, max_steps=state.max_react_steps,
            queries=state.retrieval_queries, contexts=state.retrieved_contexts,
            observations=state.observations, reflections=state.reflections)
        thought, action, query = act.thought, act.action, act.query
    if action == "search" and (not query or query in state.retrieval_queries):
        action = "finish"
    emit(ThoughtEmitted(content=thought, step=n, query=query if action == "search" else None))
    return {
        "next_action": "act" if action == "search" else "synthesize",
        "retrieval_queries": state.retrieval_queries + ([query] if action == "search" else []),
    }


def after_think(state: AgentState) -> str:
    return "act" if state.next_action == "act" else "synthesize"  # "written": think wrote the draft


@traced("act", GRAPH)
async def act_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    query = state.retrieval_queries[-1]
    # a survey's first search (the question itself, not a retry's query from the critic) asks which papers
    # bear on it, each by its best chunks
    first = len(state.retrieval_queries) == 1 and query not in state.refine_queries
    k = ctx.settings.agent.broad_top_k
    if first and surveys(ctx):
        # which papers bear on it, and then the best chunks whatever their paper: a question on one
        # paper's topic would get only that paper's SURVEY_PER_PAPER best chunks (a table's rows, say)
        # otherwise. One after the other, so each search's events pair up in the trace; the spread's
        # chunks first, so a prompt cut to fit keeps a chunk of every paper that bears on it.
        spread = await retrieve(ctx, query, top_k=k, topic=topic_of(state), per_doc=SURVEY_PER_PAPER)
        found = merge_contexts(spread, await retrieve(ctx, query, top_k=k, topic=topic_of(state)))
    else:
        found = await retrieve(ctx, query, top_k=k, topic=topic_of(state))
    return {"retrieved_contexts": merge_contexts(state.retrieved_contexts, found)}


def surveys(ctx: Any) -> bool:
    """Whether this turn's first search is spread over papers: the hub caps hits per document
    (``per_doc``; an upstream server is never sent it) and the turn is not scoped to one document."""
    return not ctx.doc_id and hub_takes(ctx.hub, "per_doc")


@traced("observe", GRAPH)
async def observe_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None
    query = state.retrieval_queries[-1]
    new = [c for c in state.retrieved_contexts if c.query == query]
    judgement = await ctx.brain.judge_sufficiency(state.question, state.intent, state.retrieved_contexts, new)
    n = state.current_react_step + 1
    emit(SufficiencyJudged(judgement=judgement, step=n))
    stop = judgement.level == "fully_sufficient" or n >= state.max_react_steps
    return {
        "current_react_step": n,
        "observations": state.observations + [judgement],
        "next_action": "synthesize" if stop else "continue",
    }


def after_observe(state: AgentState) -> str:
    return "synthesize" if state.next_action == "synthesize" else "think"


@traced("synthesize", GRAPH)
async def react_synthesize_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    if state.next_action == "written" and state.draft_answer:  # think answered (citation graph, library list)
        emit(DraftReady(answer=state.draft_answer, node="exploratory"))
        return {"draft_answer": state.draft_answer}
    # a question about one paper as a whole that the router sent here is answered from its abstract,
    # as the direct strategy answers it (:func:`core.strategies.simple.paper_abstract`)
    contexts = merge_contexts(await paper_abstract(ctx, state, state.retrieved_contexts), state.retrieved_contexts)
    answer = await synthesize(ctx, state, "exploratory", contexts, "exploratory")
    return {"draft_answer": answer, "retrieved_contexts": contexts}


def build_subgraph():
    from langgraph.graph import END, START, StateGraph

    from core.nodes.common import AgentContext

    g = StateGraph(AgentState, context_schema=AgentContext, output_schema=AttemptState)
    g.add_node("think", think_node)
    g.add_node("act", act_node)
    g.add_node("observe", observe_node)
    g.add_node("synthesize", react_synthesize_node)
    g.add_edge(START, "think")
    g.add_conditional_edges("think", after_think, {"act": "act", "synthesize": "synthesize"})
    g.add_edge("act", "observe")
    g.add_conditional_edges("observe", after_observe, {"think": "think", "synthesize": "synthesize"})
    g.add_edge("synthesize", END)
    return g.compile()
