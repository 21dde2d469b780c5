"""``paperpilot memory|sessions|traces`` in-process against a private home with real SQLite files."""

from __future__ import annotations

import asyncio
import json


from core.config import load_settings
from tests.support.cli import cli


def test_memory_round_trip_through_list_json(home, capsys, tmp_path):
    assert "No facts yet" in cli(capsys, "memory", "list")[1]
    assert cli(capsys, "memory", "list", "--json")[1].strip() == "[]"
    assert cli(capsys, "memory", "add", "LoRA trains low-rank update matrices [1].")[0] == 0
    [fact] = json.loads(cli(capsys, "memory", "list", "--json")[1])
    assert fact["content"] == "LoRA trains low-rank update matrices." and not fact["pinned"]
    assert cli(capsys, "memory", "edit", str(fact["id"]), "LoRA freezes weights and trains low-rank matrices.")[0] == 0
    assert cli(capsys, "memory", "pin", str(fact["id"]))[0] == 0
    [fact] = json.loads(cli(capsys, "memory", "list", "--json")[1])
    assert fact["content"].startswith("LoRA freezes") and fact["pinned"]
    out = tmp_path / "facts.jsonl"
    assert cli(capsys, "memory", "export", str(out))[0] == 0
    assert cli(capsys, "memory", "rm", str(fact["id"]))[0] == 0
    assert json.loads(cli(capsys, "memory", "list", "--json")[1]) == []
    assert "1 new" in cli(capsys, "memory", "import", str(out))[1]
    hits = json.loads(cli(capsys, "memory", "search", "what is low-rank adaptation", "--json")[1])
    assert hits and hits[0]["content"].startswith("LoRA freezes")


def test_unknown_ids_exit_1_with_one_line(home, capsys):
    for argv in (["memory", "rm", "42"], ["memory", "edit", "42", "x y"], ["memory", "pin", "42"],
                 ["sessions", "show", "nope"], ["sessions", "rm", "nope"], ["sessions", "rename", "nope", "t"],
                 ["traces", "show", "nope"], ["traces", "replay", "nope"], ["traces", "export", "nope"]):
        code, out, err = cli(capsys, *argv)
        assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
        assert argv[2] in err


async def _record_session(home) -> None:
    from core.memory.sessions import SessionStore

    from .test_sessions import _two_turns

    s = load_settings()
    sessions = SessionStore(s.paths.resolve(s.paths.state_db))
    await sessions.begin_turn("s1", "What is LoRA?")
    await sessions.end_turn("s1")
    await _two_turns(s.paths.resolve(s.paths.checkpoints_db), "s1")


def test_sessions_commands(home, capsys):
    assert "No sessions yet" in cli(capsys, "sessions", "list")[1]
    asyncio.run(_record_session(home))
    [row] = json.loads(cli(capsys, "sessions", "list", "--json")[1])
    assert row["id"] == "s1" and row["turn_count"] == 1 and row["title"] == "What is LoRA?"
    shown = json.loads(cli(capsys, "sessions", "show", "s1", "--json")[1])
    assert [m["role"] for m in shown["messages"]] == ["user", "assistant"] * 2
    assert "And its memory cost?" in cli(capsys, "sessions", "show", "s1")[1]
    assert cli(capsys, "sessions", "rename", "s1", "LoRA chat")[0] == 0
    assert "LoRA chat" in cli(capsys, "sessions", "list")[1]
    assert cli(capsys, "sessions", "rm", "s1")[0] == 0
    assert "No sessions yet" in cli(capsys, "sessions", "list")[1]
    assert cli(capsys, "sessions", "show", "s1")[0] == 1  # checkpoints went too
