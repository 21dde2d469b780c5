"""A settings file is untrusted input: nested 50,000 deep it is one line naming the file (it was a
RecursionError and a 2,996-line traceback), and a file with several errors names every one, one
line each, in file order. Through the real CLI in a subprocess, and through :func:`load_settings`."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from core.config import MAX_YAML_DEPTH, ConfigError, load_settings


def paperpilot(tmp_path, config, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", *argv, "--config", str(config)],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**os.environ, "PAPERPILOT_HOME": str(tmp_path / "home"), "PAPERPILOT_NO_WARM": "1"})


@pytest.mark.parametrize("text", ["agent: " + "[" * 50_000 + "]" * 50_000 + "\n",
                                  "agent:\n" + "".join(" " * i + f"k{i}:\n" for i in range(1, 2000)),
                                  "agent: " + "{a: " * 50_000 + "1" + "}" * 50_000 + "\n"],
                         ids=["flow-sequences", "block-mappings", "flow-mappings"])
def test_a_settings_file_nested_deeply_is_one_line_and_exit_2(tmp_path, text):
    config = tmp_path / "deep.yaml"
    config.write_text(text)
    out = paperpilot(tmp_path, config, "ask", "What is LoRA?")
    assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr[-3000:]
    assert out.stderr.splitlines() == [
        f"paperpilot: config error: {config}:1: nested more than {MAX_YAML_DEPTH} levels deep; not a settings file"
        if text.startswith("agent: ") else
        f"paperpilot: config error: {config}:{MAX_YAML_DEPTH + 1}: nested more than {MAX_YAML_DEPTH} levels deep; "
        "not a settings file"]


def test_nesting_at_the_limit_still_reads_as_settings(tmp_path):
    """The bound is on depth, not on content: a deep but bounded value reaches validation as usual."""
    f = tmp_path / "s.yaml"
    f.write_text("agent:\n  top_k: " + "[" * (MAX_YAML_DEPTH - 2) + "1" + "]" * (MAX_YAML_DEPTH - 2) + "\n")
    with pytest.raises(ConfigError) as err:
        load_settings(f)
    assert err.value.lines == [f"{f}:2: agent.top_k: Input should be a valid integer"]


def test_every_error_in_a_settings_file_is_reported_one_line_each(tmp_path):
    config = tmp_path / "two.yaml"
    config.write_text("agent:\n  top_k: many\n  max_retries: 2\nllm:\n  provider: offline\n"
                      "memory:\n  no_such_key: 1\nlimits:\n  question_chars: -5\n")
    out = paperpilot(tmp_path, config, "ask", "What is LoRA?")
    assert out.returncode == 2 and "Traceback" not in out.stderr
    lines = out.stderr.splitlines()
    assert [line.split(": ", 3)[1:3] for line in lines] == [
        ["config error", f"{config}:2"], ["config error", f"{config}:7"], ["config error", f"{config}:9"]]
    assert "agent.top_k" in lines[0] and "memory.no_such_key" in lines[1] and "limits.question_chars" in lines[2]
