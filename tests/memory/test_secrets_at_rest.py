"""A question carrying an API key leaves no copy of it anywhere in the data dir (real ``ask``
subprocess; OPENAI_API_KEY set to a made-up key, the offline brain, so nothing goes on the network)."""

from __future__ import annotations

import json

from core.redact import MASK
from paperpilot_tui.transcript import TurnRecord, to_markdown
from tests.support.ask_proc import Ask, write_settings
from tests.support.cli import cli

KEY = "pp-made-up-7f3a9c2e1b44"  # configured (OPENAI_API_KEY) but not key-shaped
SHAPED = "sk-proj-a1B2c3D4e5F6g7H8i9J0k1L2"  # configured nowhere: caught by its shape
QUESTION = f"my key is {KEY} (and {SHAPED}); what rank does LoRA use by default?"


def test_a_key_in_a_question_is_stored_nowhere(home, hub_db, capsys, monkeypatch):
    cfg = write_settings(home / "settings.yaml", hub_db, memory=True)
    rc, data, err = Ask(home, cfg, QUESTION, session="S", env={"OPENAI_API_KEY": KEY}).finish()
    assert rc == 0, err[-800:]
    files = [p for p in home.rglob("*") if p.is_file()]
    assert any(p.name.startswith("checkpoints.sqlite3") for p in files)
    leaks = [str(p.relative_to(home)) for p in files if any(x.encode() in p.read_bytes() for x in (KEY, SHAPED))]
    assert leaks == []

    scrubbed = f"my key is {MASK} (and {MASK}); what rank does LoRA use by default?"
    assert data["question"] == scrubbed and "8" in data["final_answer"]  # the rest of the question still works
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    code, out, _ = cli(capsys, "sessions", "show", "S", "--json")
    shown = json.loads(out)
    assert code == 0 and shown["messages"][0]["content"] == scrubbed and shown["title"].startswith("my key is [RE")
    code, out, _ = cli(capsys, "sessions", "list")
    assert code == 0 and KEY not in out and SHAPED not in out and MASK in out


def test_an_export_is_scrubbed_of_secrets():
    text = to_markdown("S", [TurnRecord(QUESTION, f"Echoing {KEY}: LoRA uses r = 8.")], title=QUESTION,
                       secrets=[KEY])
    assert KEY not in text and SHAPED not in text
    assert "what rank does LoRA use by default?" in text and "LoRA uses r = 8." in text
