"""Per-turn LLM budgets (agent.max_llm_calls_per_turn, agent.max_cost_per_turn) with the LLM brain
driven by a scripted chat model, retrieving from a real MCP server process (the upstream stub)."""

from __future__ import annotations

import asyncio

from core.config import Price
from tests.integration.test_graph_llm_brain import BAD_CRITIC, llm_settings, replies, run
from tests.support.scripted_model import ScriptedChatModel, by_purpose


def test_a_budget_reached_before_any_draft_fails_the_turn_with_one_line():
    model = ScriptedChatModel(respond=by_purpose(replies()))
    (t,) = asyncio.run(run(["What is LoRA?"], llm_settings(max_llm_calls_per_turn=1), model))
    assert t.last.kind == "turn_failed" and t.last.category == "budget"
    assert "agent.max_llm_calls_per_turn = 1" in t.last.error and "\n" not in t.last.error
    assert [c.purpose for c in model.calls] == ["route"]  # the slots call was never sent


def test_a_budget_reached_at_the_critic_delivers_the_draft_as_a_forced_pass_and_keeps_it_in_history():
    model = ScriptedChatModel(respond=by_purpose(replies()))
    s = llm_settings(max_llm_calls_per_turn=3)  # route, slots, synthesis; the critic call is refused
    first, second = asyncio.run(run(["What is LoRA?", "And QLoRA?"], s, model, persist=True, session="b"))
    r = first.result
    assert first.last.kind == "turn_finished" and r.critic.forced and r.critic.passed
    assert r.final_answer and r.sources  # the synthesized draft (the LLM floor may have put the offline one there)
    assert any("agent.max_llm_calls_per_turn = 3" in n for n in r.notices)
    assert r.llm_calls == 3 and [c.purpose for c in model.calls[:3]] == ["route", "slots", "synthesis"]
    assert set(r.llm_by_node) == {"route", "slot_fill", "simple"}
    # the stopped turn's answer is in the conversation the next turn's router reads
    assert r.final_answer[:40] in model.calls_for("route")[1].text


def test_a_budget_reached_in_a_retry_delivers_the_best_earlier_draft():
    model = ScriptedChatModel(respond=by_purpose(replies("comparative", critic=BAD_CRITIC)))
    # route, slots, synthesis, critic (fails), refine, route, slots: attempt 2's synthesis is refused
    s = llm_settings(max_retries=2, max_llm_calls_per_turn=7)
    (t,) = asyncio.run(run(["Compare LoRA and QLoRA"], s, model))
    r = t.result
    assert r.critic.forced and r.critic.score == 4 and r.retry_count == 1
    assert len(model.calls_for("synthesis")) == 1 and r.sources
    assert "multi_hop" not in r.llm_by_node and r.llm_by_node["route"].calls == 2


def test_a_cost_budget_stops_the_turn_once_spent():
    model = ScriptedChatModel(respond=by_purpose(replies()))
    s = llm_settings(max_cost_per_turn=0.000001)
    s.llm.pricing["scripted"] = Price(input_per_mtok=1000.0, output_per_mtok=1000.0)
    (t,) = asyncio.run(run(["What is LoRA?"], s, model))
    assert t.last.kind == "turn_failed" and t.last.category == "budget"
    assert "agent.max_cost_per_turn = $0.0000010 (" in t.last.error and "spent; the slots call was not sent" in t.last.error
    assert len(model.calls) == 1
