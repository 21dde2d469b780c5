"""Secrets at rest (issue 17 point 3): the data directory is created 0700 and every database file
0600 (SQLite gives its -wal/-shm files the same mode); a directory found more open gets a warning."""

from __future__ import annotations

import stat

from core import paths
from core.config import load_settings
from core.hub.store import HubStore
from core.stores import open_stores


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


async def test_data_dir_and_databases_are_private(tmp_path, monkeypatch):
    home = tmp_path / "fresh" / "home"
    monkeypatch.setenv("PAPERPILOT_HOME", str(home))
    assert paths.home() == home and mode(home) == 0o700
    settings = load_settings(use_user_file=False)
    stores = open_stores(settings).open_all()
    stores.facts.add("LoRA freezes the base model.")
    HubStore(home / "hub.sqlite3").conn().execute("select 1")
    from core.memory.checkpoints import open_checkpointer

    async with open_checkpointer(settings.paths.resolve(settings.paths.checkpoints_db)):
        pass
    stores.close()
    files = [p for p in home.iterdir() if p.suffix.startswith(".sqlite3") or ".sqlite3-" in p.name]
    assert len(files) >= 3
    assert {p.name: mode(p) for p in files} == {p.name: 0o600 for p in files}
    assert paths.too_open(home) == ""
    home.chmod(0o755)
    assert "readable by other users" in paths.too_open(home) and "chmod 700" in paths.too_open(home)


def test_commands_warn_once_about_an_open_data_dir(tmp_path, monkeypatch, capsys):
    from paperpilot_tui.cli.main import main

    home = tmp_path / "open"
    home.mkdir(mode=0o755)
    home.chmod(0o755)
    monkeypatch.setenv("PAPERPILOT_HOME", str(home))
    assert main(["memory", "list"]) == 0
    err = capsys.readouterr().err
    assert err.count("readable by other users") == 1 and str(home) in err
