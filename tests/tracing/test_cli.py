"""``paperpilot traces`` in-process against a private home: list, show, replay, export."""

from __future__ import annotations

import asyncio
import json


from core.config import load_settings
from tests.support.cli import cli

from .test_store import turn_events


async def _record_turn(home) -> str:
    from core.tracing.store import TraceStore

    s = load_settings()
    traces = TraceStore(s.paths.resolve(s.paths.state_db), s.secrets())
    await traces.save_turn("trace-0001", "s1", "And its memory cost?", turn_events())
    return "trace-0001"


def test_traces_replay_prints_what_show_prints(home, capsys, tmp_path):
    assert "No traces yet" in cli(capsys, "traces", "list")[1]
    tid = asyncio.run(_record_turn(home))
    [row] = json.loads(cli(capsys, "traces", "list", "--json")[1])
    assert row["trace_id"] == tid and row["intent"] == "follow_up"
    code, shown, _ = cli(capsys, "traces", "show", "trace-0")  # unique prefix
    assert code == 0 and "intent: follow_up" in shown and "critic: fail" in shown
    code, replayed, _ = cli(capsys, "traces", "replay", tid, "--speed", "0")
    assert code == 0 and replayed == shown
    assert cli(capsys, "traces", "replay", tid, "--speed", "1000")[1] == shown
    detail = json.loads(cli(capsys, "traces", "show", tid, "--json")[1])
    assert detail["chunk_ids"] == ["lora-3", "lora-4"] and detail["steps"][0]["node"] == "route"
    lines = cli(capsys, "traces", "export", tid)[1].splitlines()
    assert json.loads(lines[0])["kind"] == "turn_started" and json.loads(lines[-1])["kind"] == "turn_finished"
    out = tmp_path / "t.jsonl"
    assert cli(capsys, "traces", "export", tid, str(out))[0] == 0 and out.read_text().splitlines() == lines
