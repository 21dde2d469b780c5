"""multi_hop — Plan-and-Execute: plan sub-questions, execute one per step, and after each step
decide to continue, revise the plan, or synthesize. Executed steps and replans stay in state."""

from __future__ import annotations

from typing import Any

from core.events import PlanUpdated, ReplanDecided
from core.nodes.common import ctx_of, merge_contexts, retrieve, topic_of, traced
from core.state import AgentState, AttemptState
from core.strategies.synthesis import synthesize
from core.telemetry import emit

GRAPH = "multi_hop"
MAX_REVISIONS = 2


@traced("plan", GRAPH)
async def plan_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    assert state.intent is not None
    executed = state.retrieval_queries
    revising = bool(executed)
    out = await ctx.brain.plan(
        state.intent.reformulated_query or state.question, state.intent, executed=executed,
        contexts=state.retrieved_contexts, previous_plan=state.sub_questions,
        reflections=state.reflections, max_steps=ctx.settings.agent.max_plan_steps,
    )
    plan = list(dict.fromkeys(out.sub_questions))[: ctx.settings.agent.max_plan_steps]
    if revising:
        # Executed steps stay executed; the revision replaces what was still to do.
        plan = executed + [q for q in plan if q not in executed]
    else:
        plan += [q for q in state.refine_queries if q not in plan]
    revision = state.plan_revisions + (1 if revising else 0)
    emit(PlanUpdated(sub_questions=plan, revision=revision, reason=out.reason))
    return {"sub_questions": plan, "plan_revisions": revision}


@traced("execute", GRAPH)
async def execute_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    i = len(state.retrieval_queries)
    if i >= len(state.sub_questions):
        return {}
    sub_q = state.sub_questions[i]
    found = await retrieve(ctx, sub_q, top_k=max(3, ctx.settings.agent.top_k - 2), topic=topic_of(state))
    return {
        "retrieved_contexts": merge_contexts(state.retrieved_contexts, found),
        "retrieval_queries": state.retrieval_queries + [sub_q],
    }


@traced("replan", GRAPH)
async def replan_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    executed = state.retrieval_queries
    latest = [c for c in state.retrieved_contexts if executed and c.query == executed[-1]]
    decision = await ctx.brain.replan(state.question, state.sub_questions, executed, latest)
    action = decision.action
    if action == "replan" and state.plan_revisions >= MAX_REVISIONS:
        action = "next_step"
    if action == "next_step" and len(executed) >= len(state.sub_questions):
        action = "synthesize"
    emit(ReplanDecided(action=action, reason=decision.reason, executed=len(executed)))
    return {"next_action": action}


def after_replan(state: AgentState) -> str:
    return {"replan": "plan", "next_step": "execute"}.get(state.next_action, "synthesize")


@traced("synthesize", GRAPH)
async def pe_synthesize_node(state: AgentState, runtime: Any) -> dict:
    ctx = ctx_of(runtime)
    answer = await synthesize(ctx, state, "multi_hop", state.retrieved_contexts, "multi_hop",
                              sub_questions=chain_steps(state))
    return {"draft_answer": answer}


def chain_steps(state: AgentState) -> list[str]:
    """The steps a chain's answer numbers and its conclusion answers: the plan's executed steps. A
    search a retry asked for (``refine_queries``: the critic's keywords, "According ReVerb roughly share
    system output") adds evidence to the pool, but is no step of the question: as the last step it
    would become what the conclusion answers."""
    steps = [q for q in state.retrieval_queries if q not in state.refine_queries]
    return steps or state.retrieval_queries


def build_subgraph():
    from langgraph.graph import END, START, StateGraph

    from core.nodes.common import AgentContext

    g = StateGraph(AgentState, context_schema=AgentContext, output_schema=AttemptState)
    g.add_node("plan", plan_node)
    g.add_node("execute", execute_node)
    g.add_node("replan", replan_node)
    g.add_node("synthesize", pe_synthesize_node)
    g.add_edge(START, "plan")
    g.add_edge("plan", "execute")
    g.add_edge("execute", "replan")
    g.add_conditional_edges("replan", after_replan,
                            {"execute": "execute", "plan": "plan", "synthesize": "synthesize"})
    g.add_edge("synthesize", END)
    return g.compile()
