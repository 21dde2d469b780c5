"""Nodes and edges with the LLM brain driven by a scripted chat model (the only mock: the cloud LLM),
retrieving from a real MCP server process (the model-free upstream-format stub)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from core.config import MCPConnection
from tests.integration.helpers import ask_all, settings
from tests.support.scripted_model import ScriptedChatModel, by_purpose

STUB = Path(__file__).resolve().parents[1] / "stubs" / "upstream_server.py"

GOOD_CRITIC = '{"passed": true, "score": 9, "completeness": 0.9, "faithfulness": 1.0, "feedback": ""}'
BAD_CRITIC = ('{"passed": false, "score": 4, "completeness": 0.4, "faithfulness": 0.9, '
              '"feedback": "QLoRA accuracy is missing", "suggested_queries": ["QLoRA MMLU accuracy"]}')


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    """Each test's sessions and facts in a home of its own. (In full-suite runs the suite-wide home's
    state database was found malformed after the integration CLI tests; cause not yet found.)"""
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))


def llm_settings(**agent):
    s = settings(router="llm", critic="llm", **agent)
    s.mcp.connections["upstream"] = MCPConnection(transport="stdio", command=sys.executable, args=[str(STUB)])
    s.mcp.connection, s.mcp.collection = "upstream", "knowledge_hub"
    return s


def replies(intent="factual", **over):
    base = {
        "route": json.dumps({"type": intent, "confidence": 0.88}),
        "slots": json.dumps({"entities": ["LoRA", "QLoRA"], "dimensions": ["memory", "accuracy"],
                             "constraints": {}, "reformulated_query": "LoRA QLoRA memory accuracy"}),
        "synthesis": "LoRA trains low-rank adapters [1]. QLoRA quantizes the frozen model to 4 bits [2].",
        "critic": GOOD_CRITIC,
        "refine": '{"reflection": "Cover QLoRA accuracy.", "extra_queries": ["QLoRA MMLU accuracy"]}',
        "facts": '{"facts": []}',
        "plan": '{"sub_questions": ["What is LoRA?", "What does QLoRA add?"], "reason": "two hops"}',
        "replan": '{"action": "next_step", "reason": "continue"}',
        "react": '{"thought": "look up DPO", "action": "search", "query": "DPO preference loss"}',
        "sufficiency": '{"level": "fully_sufficient", "reason": "covered", "missing": []}',
    }
    base.update(over)
    return base


async def run(questions, s, model, session="s", persist=False, setup=None):
    from core.brains.llm.brain import LLMBrain

    return await ask_all(questions, s, session, persist, brain=LLMBrain(model, s), setup=setup)


def test_each_strategy_runs_its_shape_with_llm_brain():
    for intent, strategy, sub in [("comparative", "comparative", None), ("multi_hop", "multi_hop", "multi_hop"),
                                  ("exploratory", "exploratory", "exploratory")]:
        # the scripted answer's claims are about LoRA and QLoRA: the ReAct step must retrieve them
        # too, or format_output rightly drops citations no retrieved chunk supports
        react = '{"thought": "look up QLoRA", "action": "search", "query": "LoRA QLoRA frozen model quantization"}'
        model = ScriptedChatModel(respond=by_purpose(replies(intent, react=react)))
        (t,) = asyncio.run(run(["Compare LoRA and QLoRA"], llm_settings(), model))
        r = t.result
        assert r.strategy == strategy and r.sources and r.llm_calls == len(model.calls)
        assert r.tokens["total"] > 0
        purposes = [c.purpose for c in model.calls]
        if strategy == "comparative":  # ReWOO: nothing between slot filling and synthesis
            assert purposes[purposes.index("slots") + 1] == "synthesis"
            assert {e.entity for e in t.of("retrieval_started")} == {"LoRA", "QLoRA"}
        if sub:
            assert any(e.graph == sub for e in t.of("node_started"))
        if strategy == "exploratory":
            assert t.of("sufficiency")[0].judgement.level == "fully_sufficient"


def test_critic_feedback_drives_the_retry_and_max_retries_forces_a_pass():
    model = ScriptedChatModel(respond=by_purpose(replies("comparative", critic=BAD_CRITIC)))
    (t,) = asyncio.run(run(["Compare LoRA and QLoRA"], llm_settings(max_retries=1), model))
    r = t.result
    assert r.retry_count == 1 and r.critic.forced and r.critic.passed
    # route runs again after retry_refine; the reflection reaches the next synthesis prompt,
    # and the refine query is retrieved.
    nodes = [e.node for e in t.of("node_started") if e.graph == "main"]
    assert nodes.count("route") == 2 and nodes.index("retry_refine") < len(nodes) - nodes[::-1].index("route") - 1
    synth = model.calls_for("synthesis")
    assert "Cover QLoRA accuracy." not in synth[0].text and "Cover QLoRA accuracy." in synth[1].text
    assert "QLoRA MMLU accuracy" in {e.query for e in t.of("retrieval_started")}


def test_a_retry_that_would_repeat_the_same_searches_stops_as_a_forced_pass():
    # the refinement only offers the question itself (searched already), and no new reformulation
    refine = '{"reflection": "Try again.", "extra_queries": ["Compare LoRA and QLoRA"], "reformulated_query": null}'
    model = ScriptedChatModel(respond=by_purpose(replies("comparative", critic=BAD_CRITIC, refine=refine)))
    (t,) = asyncio.run(run(["Compare LoRA and QLoRA"], llm_settings(max_retries=2), model))
    r = t.result
    assert r.critic.forced and r.critic.passed
    assert len(model.calls_for("synthesis")) == 1 and len(model.calls_for("critic")) == 1  # no second attempt
    nodes = [e.node for e in t.of("node_started") if e.graph == "main"]
    assert nodes.count("route") == 1 and nodes[nodes.index("retry_refine") + 1] == "save_memory"
    assert any("would repeat the same searches" in e.message for e in t.of("notice"))
    assert r.sources  # the draft keeps its citations


def test_history_only_reaches_follow_up_synthesis():
    model = ScriptedChatModel(respond=by_purpose(replies(
        route=lambda call: json.dumps({"type": "follow_up" if "save" in call.text.splitlines()[-1] or
                                       "save" in call.text[-300:] else "factual", "confidence": 0.9}))))
    s = llm_settings()
    asyncio.run(run(["What is LoRA?", "And how much memory does it save?"], s, model, persist=True,
                    session="hist"))
    synth = model.calls_for("synthesis")
    assert "Conversation history" not in synth[0].text
    assert "Conversation history" in synth[1].text and "What is LoRA?" in synth[1].text
    # The router sees history on the second turn, not on the first.
    routes = model.calls_for("route")
    assert "What is LoRA?" in routes[1].text


def test_prior_knowledge_appears_only_in_synthesis_prompts():
    fact = "Hu et al. introduced LoRA adapters in 2021 at Microsoft."

    async def seed(agent):
        await asyncio.to_thread(agent.facts.add, fact)

    model = ScriptedChatModel(respond=by_purpose(replies()))
    (t,) = asyncio.run(run(["Who introduced LoRA adapters?"], llm_settings(), model, persist=True, setup=seed))
    assert fact in t.result.recalled_facts
    assert fact not in {s.text for s in t.result.sources}
    for call in model.calls:
        has = "Prior knowledge from past conversations" in call.text
        assert has == (call.purpose == "synthesis"), call.purpose


def test_broken_json_from_the_llm_does_not_crash_the_turn():
    model = ScriptedChatModel(respond=by_purpose(replies(route="sure! the intent is probably factual-ish",
                                                         critic="{'passed': True, 'score': 8,,}")))
    (t,) = asyncio.run(run(["What is LoRA?"], llm_settings(), model))
    assert t.last.kind == "turn_finished" and t.result.final_answer
    assert any("offline" in n.message.lower() or "fall" in n.message.lower() for n in t.of("notice"))


def test_unknown_citation_markers_are_removed_and_reported():
    model = ScriptedChatModel(respond=by_purpose(replies(synthesis="LoRA adapts low-rank matrices [1][42].")))
    (t,) = asyncio.run(run(["What is LoRA?"], llm_settings(), model))
    assert "[42]" not in t.result.final_answer and "[1]" in t.result.final_answer
    assert any("42" in n.message for n in t.of("notice"))
