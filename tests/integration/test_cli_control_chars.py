"""Stored text never drives the terminal (issue 17 point 5): escape sequences in facts, session
titles and traced questions are removed when commands print them; the text around them stays."""

from __future__ import annotations

from core.config import load_settings
from core.stores import open_stores
from paperpilot_tui.cli.common import clean
from tests.support.cli import cli, home  # noqa: F401 - fixture
from tests.support.recorded import recorded_events

EVIL = "evil \x1b]0;PWNED\x07 title \x1b[2J\x1b[31mred\x1b[0m bell\x07 \x9b2J done"


def test_clean_keeps_text_and_drops_sequences():
    assert clean(EVIL) == "evil  title red bell  done"  # the 8-bit CSI goes whole, as the 7-bit one
    assert clean("tab\tand\nnewline ünïcode 中文") == "tab\tand\nnewline ünïcode 中文"


def test_commands_print_stored_text_without_control_sequences(home, capsys):  # noqa: F811
    stores = open_stores(load_settings(use_user_file=False)).open_all()
    stores.facts.add(f"LoRA fact {EVIL}")
    stores.sessions.begin_turn_sync("s1", f"Question {EVIL}")
    stores.sessions.end_turn_sync("s1")
    events = recorded_events("compare")
    trace_id = events[0].turn_id
    stores.traces.save_turn_sync(trace_id, "s1", f"Question {EVIL}", events)
    stores.close()
    outputs = []
    for argv in (["memory", "list"], ["memory", "search", "LoRA fact"], ["sessions", "list"],
                 ["traces", "list"], ["traces", "show", trace_id]):
        code, out, err = cli(capsys, *argv)
        assert code == 0, (argv, err)
        outputs.append(out)
    joined = "".join(outputs)
    assert "evil" in joined and "done" in joined
    assert not any(c in joined for c in "\x1b\x07\x9b"), [o for o in outputs if "\x1b" in o or "\x07" in o]
