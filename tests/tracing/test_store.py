"""Trace store against a real SQLite file: derived summary, typed round trip, export, replay, redaction."""

from __future__ import annotations

import json
import sqlite3

import pytest

from core import events as ev
from core.tracing.render import render_events
from core.tracing.store import TraceNotFound, TraceStore
from tests.support.trace_turn import HUB_TOKEN, turn_events

SECRET = "sk-test-THISISASECRETKEY1234567890"


@pytest.fixture
def traces(tmp_path):
    store = TraceStore(tmp_path / "state.sqlite3", secrets=[SECRET, HUB_TOKEN])
    yield store
    store.close()


async def test_save_derives_the_summary(traces):
    await traces.save_turn("t1", "s1", "And how much memory does it save compared to full fine-tuning?", turn_events())
    d = traces.get("t1")
    assert (d.intent, d.strategy, d.retries, d.llm_calls, d.prompt_tokens, d.completion_tokens) == \
        ("follow_up", "simple", 1, 1, 100, 20)
    assert [s.node for s in d.steps] == ["route", "slot_fill", "simple", "critic", "critic"]
    assert d.steps[0].duration_ms == 5 and d.steps[0].finished > d.steps[0].started
    assert d.queries == ["How much memory does LoRA save compared to full fine-tuning?"]
    assert d.chunk_ids == ["lora-3", "lora-4"]
    assert d.sufficiency[0]["level"] == "partially_sufficient"
    assert [v["passed"] for v in d.critic_verdicts] == [False, True]
    assert d.final_answer.startswith("LoRA reduces GPU memory") and d.error is None
    assert d.intent_detail["reformulated_query"].startswith("How much memory does LoRA")
    assert [type(e) for e in d.events] == [type(e) for e in turn_events()]
    assert d.events[:-2] == turn_events()[:-2]  # typed and equal (the Notice was redacted)


async def test_list_filters_and_resolves_prefix(traces):
    await traces.save_turn("abc-111", "s1", "q1", turn_events("q1"))
    await traces.save_turn("abd-222", "s2", "q2", turn_events("q2"))
    assert {t.trace_id for t in traces.list()} == {"abc-111", "abd-222"}
    assert [t.trace_id for t in traces.list(session_id="s2")] == ["abd-222"]
    assert traces.resolve("abc") == "abc-111" and traces.resolve("ab") is None and traces.resolve("zz") is None
    assert traces.get("nope") is None


async def test_failed_turn_records_error(traces):
    evs = [ev.TurnStarted(question="q", session_id="s"), ev.NodeStarted(node="simple"),
           ev.NodeFinished(node="simple", ok=False, summary="hub down"),
           ev.TurnFailed(error="knowledge hub unreachable", category="backend", node="simple")]
    s = await traces.save_turn("tf", "s", "q", evs)
    assert s.error == "knowledge hub unreachable (in simple)" and not s.ok


async def test_export_and_replay_match_the_recording(traces, tmp_path):
    await traces.save_turn("t1", "s1", "q", turn_events())
    out = tmp_path / "t1.jsonl"
    assert traces.export("t1", out) == len(turn_events())
    kinds = [json.loads(line)["kind"] for line in out.read_text().splitlines()]
    assert kinds == [e.kind for e in turn_events()]
    replayed = [e async for e in traces.replay("t1", speed=0)]
    assert replayed == traces.get("t1").events
    timed = [e async for e in traces.replay("t1", speed=100)]
    assert [e.kind for e in timed] == kinds
    assert render_events(replayed) == render_events(traces.get("t1").events)
    with pytest.raises(TraceNotFound):
        traces.export("missing", out)
    with pytest.raises(TraceNotFound):
        [e async for e in traces.replay("missing")]


async def test_replay_keeps_relative_timing_and_caps_long_gaps(traces, monkeypatch):
    events = turn_events()
    for e in events[events.index(next(e for e in events if e.kind == "llm_call")):]:
        e.ts += 40.0  # a 40 s LLM call before the last events
    await traces.save_turn("t1", "s1", "q", events)
    waits: list[float] = []

    async def sleep(seconds):
        waits.append(round(seconds, 6))

    monkeypatch.setattr("core.tracing.store.asyncio.sleep", sleep)
    [e async for e in traces.replay("t1", speed=2)]
    assert max(waits) == pytest.approx(40.01 / 2) and min(waits) == pytest.approx(0.005)
    waits.clear()
    [e async for e in traces.replay("t1", speed=2, max_gap=1.5)]
    assert max(waits) == 1.5 and waits.count(1.5) == 1 and min(waits) == pytest.approx(0.005)


async def test_secrets_never_reach_storage_or_export(traces, tmp_path):
    evs = turn_events(f"my key is {SECRET}, does LoRA work?")
    evs.insert(1, ev.Notice(level="error", message=f"config: api_key={SECRET}", source="llm"))
    evs.append(ev.TurnFailed(error=f"LLM error: 401 Incorrect API key provided: {SECRET[:-4]}…{SECRET[-4:]} / {SECRET}",
                             category="backend"))
    evs.append(ev.NodeFinished(node="simple", detail={"headers": {"Authorization": f"Bearer {HUB_TOKEN}"},
                                                     "nested": [[f"x {SECRET} y"]], SECRET: "as a key"}))
    evs.append(ev.Notice(message="upstream said Authorization: Basic dXNlcjpwYXNzd29yZA=="))
    await traces.save_turn("t1", "s1", f"my key is {SECRET}, does LoRA work?", evs)
    out = tmp_path / "t1.jsonl"
    traces.export("t1", out)
    dumped = "\n".join(sqlite3.connect(traces.db.path).iterdump())
    for blob in (dumped, out.read_text(), traces.get("t1").model_dump_json()):
        assert SECRET not in blob and HUB_TOKEN not in blob and "dXNlcjpwYXNzd29yZA" not in blob
        assert "[REDACTED]" in blob
    assert "does LoRA work?" in traces.get("t1").question
