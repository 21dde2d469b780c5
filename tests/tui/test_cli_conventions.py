"""Global options before or after the command at any depth, and --json where a command prints data."""

from __future__ import annotations

import json

import pytest

from tests.support.cli import cli, home  # noqa: F401  (fixture)


@pytest.fixture
def settings(tmp_path):
    path = tmp_path / "settings.yaml"
    path.write_text("llm:\n  timeout: 45\n")
    return path


def test_config_and_json_after_a_nested_command(home, settings, capsys):  # noqa: F811
    code, out, err = cli(capsys, "sessions", "list", "--config", str(settings), "--json")
    assert code == 0, err
    assert json.loads(out) == []


def test_json_before_the_command_reaches_it(home, capsys):  # noqa: F811
    code, out, err = cli(capsys, "--json", "memory", "list")
    assert code == 0, err
    assert json.loads(out) == []


def test_a_config_after_the_command_is_read(home, tmp_path, capsys):  # noqa: F811
    bad = tmp_path / "bad.yaml"
    bad.write_text("llm: [unclosed\n")
    with pytest.raises(SystemExit) as exit_:
        cli(capsys, "traces", "list", "--config", str(bad))
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and len(err.strip().splitlines()) == 1 and "bad.yaml" in err


def test_ingest_and_hub_status_print_json_with_offline_after_the_command(home, tmp_path, capsys):  # noqa: F811
    note = tmp_path / "wombat.md"
    note.write_text("# Wombat Parsing\n\nWombat parsing reads burrows of text with 12 layers.\n")
    code, out, err = cli(capsys, "ingest", str(note), "--offline", "--no-embed", "--collection", "mine", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["added"] == ["wombat"] and report["failed"] == [] and report["collection"] == "mine"
    code, out, err = cli(capsys, "hub", "status", "--collection", "mine", "--json")
    assert code == 0, err
    status = json.loads(out)
    mine = next(c for c in status["collections"] if c["name"] == "mine")
    assert mine["document_count"] == 1 and mine["documents"][0]["title"] == "Wombat Parsing"


def test_replay_of_an_unknown_trace_is_one_line_and_exit_1(home, capsys):  # noqa: F811
    code, out, err = cli(capsys, "replay", "BADID")
    assert code == 1 and err.strip() == "paperpilot: no trace with id BADID (paperpilot traces list shows them)"
