"""``paperpilot ask`` refuses a question over ``limits.question_chars`` at once: one line, exit 2."""

from __future__ import annotations

import time

import pytest

from core.config import LimitsSettings
from tests.support.cli import cli


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A private, empty PAPERPILOT_HOME."""
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_a_question_over_the_default_limit_is_refused_before_any_work(home, capsys):
    limit = LimitsSettings().question_chars
    assert limit == 16_000
    started = time.perf_counter()
    code, out, err = cli(capsys, "ask", "What is LoRA? " + "x" * limit)
    assert code == 2 and out == "" and time.perf_counter() - started < 5
    assert err.count("\n") == 1 and "limits.question_chars" in err and "16,000" in err and "Traceback" not in err


def test_a_configured_question_limit_applies(home, capsys, tmp_path):
    cfg = tmp_path / "settings.yaml"
    cfg.write_text("limits:\n  question_chars: 20\n", encoding="utf-8")
    code, _, err = cli(capsys, "--config", str(cfg), "ask", "What rank does LoRA use by default?")
    assert code == 2 and "35 characters, over the limit of 20 characters" in err
