"""`paperpilot ask` as a user runs it: a subprocess, real hub, exit codes, one-line errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys


def paperpilot(*args: str, env: dict | None = None, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", *args], capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


def test_ask_json_answers_with_retrieved_citations():
    out = paperpilot("ask", "--json", "What rank does LoRA use by default?")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["strategy"] == "simple" and data["intent"]["type"] == "factual"
    assert 0 < data["intent"]["confidence"] <= 1
    assert data["final_answer"] and data["sources"]
    assert all(s["chunk_id"] and s["title"] for s in data["sources"])
    assert data["critic"]["passed"] and data["retry_count"] == 0
    assert {"route", "slot_fill", "simple", "critic", "format_output", "total"} <= set(data["timings_ms"])
    assert data["llm_calls"] == 0 and data["trace_id"]
    assert "Traceback" not in out.stderr


def test_ask_outside_the_corpus_says_no_evidence():
    out = paperpilot("ask", "--json", "What is the boiling point of tungsten?")
    data = json.loads(out.stdout)
    assert "no evidence" in data["final_answer"].lower() and data["sources"] == []


def test_unreachable_llm_exits_3_with_one_line():
    out = paperpilot("ask", "--llm", "openai", "What is LoRA?",
                     env={"OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_API_KEY": "x"})
    assert out.returncode == 3
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "unreachable" in lines[0] and "Traceback" not in out.stderr


def test_malformed_settings_exit_2_naming_the_key(tmp_path):
    bad = tmp_path / "settings.yaml"
    bad.write_text("agent:\n  top_k: many\n")
    out = paperpilot("ask", "--config", str(bad), "What is LoRA?")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "agent.top_k" in lines[0] and f"{bad}:2" in lines[0]


def test_unreachable_mcp_server_exits_3(tmp_path):
    cfg = tmp_path / "settings.yaml"
    cfg.write_text("mcp:\n  connections:\n    hub:\n      transport: stdio\n      command: /nonexistent/server\n")
    out = paperpilot("ask", "--config", str(cfg), "What is LoRA?", timeout=120)
    assert out.returncode == 3, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and "MCP server" in out.stderr
