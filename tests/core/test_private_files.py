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


def test_opening_another_database_connection_keeps_this_process_s_locks(tmp_path):
    """POSIX record locks belong to the process: closing ANY descriptor of a file drops all of
    them, also the SHARED lock SQLite holds on a WAL database for this process's open connections.
    Making a database private must therefore never open and close a file that already exists.
    Before the fix, a second store opening the same file dropped the first one's lock; another
    process closing its last connection then believed it was alone, checkpointed and deleted the
    -wal and -shm files under the first connection, whose next commits were lost (and its reads
    saw "database disk image is malformed")."""
    import sqlite3
    import subprocess
    import sys

    from core.memory.db import StateDB

    path = tmp_path / "state.sqlite3"
    first = StateDB(path)
    with first.write() as db:
        db.execute("INSERT INTO sessions(id, created, updated) VALUES ('before', 0, 0)")
    StateDB(path).close()  # another store of this process opens (and closes) the same file
    other = ("import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
             "c.execute(\"INSERT INTO sessions(id, created, updated) VALUES ('other', 0, 0)\"); c.close()\n")
    subprocess.run([sys.executable, "-c", other, str(path)], check=True, timeout=60)
    with first.write() as db:
        db.execute("INSERT INTO sessions(id, created, updated) VALUES ('after', 0, 0)")
    fresh = sqlite3.connect(str(path))
    ids = {row[0] for row in fresh.execute("SELECT id FROM sessions")}
    fresh.close()
    first.close()
    assert ids == {"before", "other", "after"}


def test_private_file_tightens_an_existing_file_without_opening_it(tmp_path):
    path = tmp_path / "x.sqlite3"
    path.write_text("")
    path.chmod(0o644)
    paths.private_file(path)
    assert mode(path) == 0o600
