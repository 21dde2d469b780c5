"""The main graph — wiring only.

START → load_memory → route → slot_fill → {simple | multi_hop | comparative | exploratory}
→ critic → (pass) save_memory → format_output → END, or (retry) retry_refine → route (or, when the
refinement has nothing new to search, a forced pass → save_memory). With a web search client
(stage K), what would be a forced pass or a "no evidence" answer goes to web_fallback → save_memory.
With the turn floor (an LLM brain, ``llm.turn_floor``), turn_floor sits before save_memory on all three paths.
"""

from __future__ import annotations

from typing import Any

from langgraph.graph import END, START, StateGraph

from core.nodes.common import AgentContext
from core.nodes.critic import critic_gate, critic_node
from core.nodes.format_output import format_output_node
from core.nodes.load_memory import load_memory_node
from core.nodes.retry_refine import retry_gate, retry_refine_node
from core.nodes.route import route_node
from core.nodes.save_memory import save_memory_node
from core.nodes.slot_fill import slot_fill_node
from core.nodes.turn_floor import turn_floor_node
from core.nodes.web_fallback import web_fallback_node, with_web
from core.state import AgentState
from core.types import STRATEGIES
from core.strategies import exploratory, multi_hop
from core.strategies.comparative import comparative_strategy_node
from core.strategies.simple import simple_strategy_node
from core.strategies.subgraph import subgraph_node


def route_by_intent(state: AgentState) -> str:
    assert state.intent is not None
    return state.intent.to_strategy()


def build_graph(checkpointer: Any = None, web_fallback: Any = None, *, turn_floor: bool = False):
    """``web_fallback``: the ``agent.web_search_fallback`` settings when a client exists (adds the node);
    ``turn_floor``: judge the delivered draft against the offline brain's answer (adds the node)."""
    g = StateGraph(AgentState, context_schema=AgentContext)
    g.add_node("load_memory", load_memory_node)
    g.add_node("route", route_node)
    g.add_node("slot_fill", slot_fill_node)
    g.add_node("simple", simple_strategy_node)
    g.add_node("multi_hop", subgraph_node("multi_hop", multi_hop.build_subgraph))
    g.add_node("comparative", comparative_strategy_node)
    g.add_node("exploratory", subgraph_node("exploratory", exploratory.build_subgraph))
    g.add_node("critic", critic_node)
    g.add_node("retry_refine", retry_refine_node)
    g.add_node("save_memory", save_memory_node)
    g.add_node("format_output", format_output_node)

    g.add_edge(START, "load_memory")
    g.add_edge("load_memory", "route")
    g.add_edge("route", "slot_fill")
    g.add_conditional_edges("slot_fill", route_by_intent, {s: s for s in STRATEGIES})
    for s in STRATEGIES:
        g.add_edge(s, "critic")
    after_critic, after_retry, web = critic_gate, retry_gate, {}
    if web_fallback is not None:
        g.add_node("web_fallback", web_fallback_node)
        g.add_edge("web_fallback", "turn_floor" if turn_floor else "save_memory")
        after_critic, after_retry = (with_web(gate, web_fallback.on_no_evidence) for gate in (critic_gate, retry_gate))
        web = {"web": "web_fallback"}
    delivered = "save_memory"
    if turn_floor:
        g.add_node("turn_floor", turn_floor_node)
        g.add_edge("turn_floor", "save_memory")
        delivered = "turn_floor"
    g.add_conditional_edges("critic", after_critic, {"pass": delivered, "retry": "retry_refine", **web})
    g.add_conditional_edges("retry_refine", after_retry, {"retry": "route", "stop": delivered, **web})
    g.add_edge("save_memory", "format_output")
    g.add_edge("format_output", END)
    return g.compile(checkpointer=checkpointer)
