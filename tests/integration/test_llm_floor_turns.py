"""Whole turns with a weak LLM's draft below the floor (core.brains.llm.floor): a forced pass never
delivers it and nothing from it is memorized. The chat model is scripted (the only mock: the LLM);
retrieval is a real MCP server process (the upstream-format stub) and memory is real SQLite."""

from __future__ import annotations

import asyncio

import pytest

from tests.integration.test_graph_llm_brain import BAD_CRITIC, GOOD_CRITIC, llm_settings, replies, run
from tests.support.scripted_model import ScriptedChatModel, by_purpose

QUESTION = "How many times does LoRA reduce the trainable parameters of GPT-3 175B?"
# Fragments copied from the evidence, each true and cited, none an answer about GPT-3 175B: the
# kind of draft a 0.5B model wrote and an LLM critic passed 10/10.
FRAGMENTS = ("LoRA freezes the pretrained weights of a model [1]. Low-rank matrices are added to selected "
             "weight matrices [1]. LoRA adds no inference latency [1].")


@pytest.fixture(autouse=True)
def private_home(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))


def test_a_forced_pass_delivers_the_offline_draft_not_a_draft_below_the_floor():
    model = ScriptedChatModel(respond=by_purpose(replies("factual", synthesis=FRAGMENTS, critic=BAD_CRITIC)))
    (t,) = asyncio.run(run([QUESTION], llm_settings(max_retries=0), model))
    r = t.result
    assert r.critic.forced
    assert "inference latency" not in r.final_answer and "175B" in r.final_answer
    assert any("below the floor" in n.message and "direct answer lacks" in n.message for n in t.of("notice"))


def test_nothing_below_the_floor_is_memorized():
    model = ScriptedChatModel(respond=by_purpose(replies("factual", synthesis=FRAGMENTS, critic=GOOD_CRITIC)))
    (t,) = asyncio.run(run([QUESTION], llm_settings(), model, persist=True))
    written = [f for e in t.of("memory_written") for f in e.facts]
    assert not any("inference latency" in f or "selected weight matrices" in f for f in written), written
    assert "inference latency" not in t.result.final_answer
