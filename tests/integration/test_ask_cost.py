"""`paperpilot ask --llm openai` against a real OpenAI-compatible server on loopback: it shows
tokens and cost, and a budget of one LLM call stops the turn with one clear line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fake_openai import FakeServer

REPO = Path(__file__).resolve().parents[2]
PASSING = {"passed": True, "score": 9, "completeness": 1.0, "faithfulness": 1.0, "feedback": ""}


def ask(server: FakeServer, tmp_path: Path, *args: str, agent: str = "") -> subprocess.CompletedProcess:
    cfg = tmp_path / "settings.yaml"
    cfg.write_text(f"llm:\n  model: gpt-4o-mini\n  retries: 0\nmemory:\n  enabled: false\n"
                   f"agent:\n  router: rules\n{agent}")
    env = {**os.environ, "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-test"}
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "ask", "--llm", "openai",
                           "--config", str(cfg), *args], cwd=REPO, capture_output=True, text=True, timeout=300,
                          env=env)


@pytest.fixture
def server():
    with FakeServer() as s:
        s.text = "LoRA trains low-rank update matrices while the pretrained weights stay frozen [1]."
        s.tool_args = PASSING
        yield s


def test_ask_shows_tokens_and_cost_and_json_carries_them(server, tmp_path):
    out = ask(server, tmp_path, "--json", "What does LoRA freeze?", agent="  critic: llm\n")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["llm_calls"] == len(server.requests) >= 2  # synthesis and the LLM critic
    assert data["tokens"]["prompt"] > 0 and data["tokens"]["completion"] > 0
    # priced from llm.pricing's gpt-4o-mini entry: $0.15 / $0.60 per million tokens
    expected = (data["tokens"]["prompt"] * 0.15 + data["tokens"]["completion"] * 0.60) / 1e6
    assert data["cost"] == pytest.approx(expected, rel=1e-6) and data["cost"] > 0
    assert data["llm_by_node"]["simple"]["calls"] == 1 and data["llm_by_node"]["critic"]["calls"] == 1
    assert data["session_total"]["turns"] == 1 and data["session_total"]["cost"] == pytest.approx(data["cost"])

    text = ask(server, tmp_path, "--session", data["session_id"], "And what does it train?",
               agent="  critic: llm\n")
    assert text.returncode == 0, text.stderr
    line = " ".join(text.stdout.split())
    assert "LLM call(s)" in line and " in, " in line and " out), $0.000" in line
    assert "session: 2 turns" in line


def test_a_budget_of_one_llm_call_stops_the_turn_with_one_line(server, tmp_path):
    # the LLM router's call is the one allowed: the synthesis call is refused, and no draft exists
    out = ask(server, tmp_path, "What does LoRA freeze?", agent="  router: llm\n  max_llm_calls_per_turn: 1\n")
    assert out.returncode == 1 and len(server.requests) == 1
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr
    assert "LLM call budget reached: agent.max_llm_calls_per_turn = 1" in lines[0]


def test_a_budget_reached_after_the_draft_delivers_it_as_a_forced_pass(server, tmp_path):
    out = ask(server, tmp_path, "--json", "What does LoRA freeze?",
              agent="  critic: llm\n  max_llm_calls_per_turn: 1\n")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["llm_calls"] == 1 and len(server.requests) == 1  # the critic call was never sent
    assert data["critic"]["forced"] and "low-rank" in data["final_answer"]
    assert any("agent.max_llm_calls_per_turn = 1" in n and "forced pass" in n for n in data["notices"])
