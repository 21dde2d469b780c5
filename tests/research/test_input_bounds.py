"""``paperpilot research`` refuses over-limit and malformed input in one line, exit 2, before any
work: a topic or an answer past ``limits.question_chars`` (the question's limit), and an answers
file nested 50,000 deep, in Latin-1, or past ``limits.import_file_bytes``. The real CLI, in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest


def research(tmp_path, *argv: str) -> subprocess.CompletedProcess:
    config = tmp_path / "settings.yaml"
    config.write_text("limits:\n  question_chars: 200\n  import_file_bytes: 150000\n")
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "--offline", "research",
                           "--config", str(config), *argv], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path, env={**os.environ, "PAPERPILOT_HOME": str(tmp_path / "home"),
                                             "PAPERPILOT_NO_WARM": "1"})


def one_line(out: subprocess.CompletedProcess) -> str:
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr[-2000:]
    return lines[0]


@pytest.mark.parametrize("name, content, expected", [
    ("deep.json", b"[" * 50_000 + b"]" * 50_000, "paperpilot: answers file deep.json: nested more than 32 levels deep"),
    ("deep-object.json", b'{"1": ' * 20_000 + b'"x"' + b"}" * 20_000,
     "paperpilot: answers file deep-object.json: nested more than 32 levels deep"),
    ("latin1.json", '{"1": "r\u00e9sum\u00e9 of the scope"}'.encode("latin-1"),
     "paperpilot: answers file latin1.json: not UTF-8 text (line 1, byte 0xe9); save it as UTF-8"),
    ("big.json", json.dumps({str(i): "scope" for i in range(20_000)}).encode(),
     "paperpilot: answers file big.json is 348.9 kB, over the limit of 150.0 kB (raise limits.import_file_bytes "
     "in the settings to allow it)"),
    ("long.json", json.dumps({"1": "x" * 300}).encode(),
     "paperpilot: answers file long.json: answer 1 is 300 characters, over the limit of 200 characters "
     "(raise limits.question_chars in the settings to allow it)"),
], ids=["deep-array", "deep-object", "latin-1", "too-big", "long-answer"])
def test_a_bad_answers_file_is_one_line_and_exit_2(tmp_path, name, content, expected):
    (tmp_path / name).write_bytes(content)
    assert one_line(research(tmp_path, "--session", "s1", "--answers", name)) == expected


def test_a_deep_outline_file_is_one_line_and_exit_2(tmp_path):
    (tmp_path / "o.json").write_bytes(b"[" * 50_000 + b"]" * 50_000)
    assert one_line(research(tmp_path, "--outline", "o.json", "LoRA")) == (
        "paperpilot: outline file o.json: nested more than 32 levels deep")


def test_a_topic_over_the_question_limit_is_one_line_and_exit_2(tmp_path):
    assert one_line(research(tmp_path, "--no-clarify", "t" * 250)) == (
        "paperpilot: the topic is 250 characters, over the limit of 200 characters "
        "(raise limits.question_chars in the settings to allow it)")
