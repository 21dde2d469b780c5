"""The screenshot generator's command line: ``--help`` explains it and writes nothing (it once took
``--help`` for the output folder and filled a folder of that name)."""

from __future__ import annotations

import pytest

from tests.support import screenshots


def test_help_writes_nothing(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as done:
        screenshots.main(["--help"])
    assert done.value.code == 0 and "examples:" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_scene_is_one_line_and_writes_nothing(tmp_path, capsys):
    assert screenshots.main([str(tmp_path / "out"), "no-such-scene"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no-such-scene" in err and not (tmp_path / "out").exists()
