"""Never chmod what we did not create, never use a data dir or file another user owns (issue 26,
items 2, 3 and 11): a configured path that is a directory, another user's file, under a folder that
cannot be ours, or a data dir that is not ours gets one line naming the key and a non-zero exit,
and the path's mode is left as it was.

Another user's files are made by chown-ing as root (the suite runs as root here); those tests skip
elsewhere."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from core import paths
from core.errors import UnsafePath

REPO = Path(__file__).resolve().parents[2]
NOBODY = 65534
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="making another user's files needs root")


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def cli(home: Path, *args: str, config: Path | None = None) -> subprocess.CompletedProcess:
    pre = ["--config", str(config)] if config else []
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", *pre, *args], cwd=REPO,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PAPERPILOT_HOME": str(home), "PAPERPILOT_NO_WARM": "1"})


def one_line(out: subprocess.CompletedProcess) -> str:
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    return lines[0]


def test_a_directory_is_refused_and_its_mode_left_alone(tmp_path):
    folder = tmp_path / "shared"
    folder.mkdir()
    folder.chmod(0o755)
    with pytest.raises(UnsafePath, match=r"^paths\.state_db: .*shared is a directory"):
        paths.private_file(folder, "paths.state_db")
    assert mode(folder) == 0o755


def test_state_db_naming_a_directory_is_one_line_naming_the_key(tmp_path):
    """The audit's case: ``paths.state_db: /tmp`` made /tmp ``drw-------`` and printed 29 lines."""
    home, target = tmp_path / "home", tmp_path / "like-tmp"
    home.mkdir(mode=0o700)
    target.mkdir()
    target.chmod(0o1777)
    config = tmp_path / "settings.yaml"
    config.write_text(f"paths:\n  state_db: {target}\n")
    out = cli(home, "memory", "list", config=config)
    assert out.returncode != 0
    line = one_line(out)
    assert line.startswith("paperpilot: paths.state_db: ") and "is a directory" in line
    assert mode(target) == 0o1777


def test_state_db_under_a_folder_that_cannot_exist_is_one_line(tmp_path):
    home, blocker = tmp_path / "home", tmp_path / "a-file"
    home.mkdir(mode=0o700)
    blocker.write_text("not a folder")
    config = tmp_path / "settings.yaml"
    config.write_text(f"paths:\n  state_db: {blocker / 'sub' / 'state.sqlite3'}\n")
    out = cli(home, "memory", "list", config=config)
    assert out.returncode != 0
    line = one_line(out)
    assert "paths.state_db" in line and "folder" in line
    assert blocker.read_text() == "not a folder"


def test_a_missing_folder_of_ours_is_created_private(tmp_path):
    db = paths.private_file(tmp_path / "new" / "deeper" / "state.sqlite3", "paths.state_db")
    assert db.is_file() and mode(db) == 0o600
    assert mode(tmp_path / "new") == 0o700 and mode(tmp_path / "new" / "deeper") == 0o700


@as_root
def test_another_users_file_is_refused_and_its_mode_left_alone(tmp_path):
    theirs = tmp_path / "theirs.sqlite3"
    theirs.write_text("")
    os.chown(theirs, NOBODY, NOBODY)
    theirs.chmod(0o644)
    with pytest.raises(UnsafePath, match=r"paths\.hub_db: .* is owned by another user \(uid 65534\)"):
        paths.private_file(theirs, "paths.hub_db")
    assert mode(theirs) == 0o644 and theirs.stat().st_uid == NOBODY


@as_root
def test_a_missing_folder_under_another_users_folder_is_refused(tmp_path):
    """Before, the folder was created (as root, inside a stranger's directory) and the database with it."""
    home, theirs = tmp_path / "home", tmp_path / "theirs"
    home.mkdir(mode=0o700)
    theirs.mkdir(mode=0o755)
    os.chown(theirs, NOBODY, NOBODY)
    config = tmp_path / "settings.yaml"
    config.write_text(f"paths:\n  state_db: {theirs / 'missing' / 'state.sqlite3'}\n")
    out = cli(home, "memory", "list", config=config)
    assert out.returncode != 0
    line = one_line(out)
    assert "paths.state_db" in line and "another user (uid 65534)" in line
    assert list(theirs.iterdir()) == []


@as_root
def test_a_data_dir_owned_by_another_user_is_refused(tmp_path):
    home = tmp_path / "theirs"
    home.mkdir(mode=0o700)
    os.chown(home, NOBODY, NOBODY)
    out = cli(home, "memory", "list")
    assert out.returncode != 0
    assert "owned by another user (uid 65534)" in one_line(out)
    assert list(home.iterdir()) == [] and mode(home) == 0o700


def test_a_data_dir_others_can_write_is_refused(tmp_path):
    home = tmp_path / "open"
    home.mkdir()
    home.chmod(0o777)
    with pytest.raises(UnsafePath, match="can be written by other users"):
        paths.data_dir(home)
    out = cli(home, "memory", "list")
    assert out.returncode != 0 and "chmod 700" in one_line(out)
    assert list(home.iterdir()) == [] and mode(home) == 0o777



def test_the_app_says_it_in_one_line_before_the_screen_opens(tmp_path):
    """Bare ``paperpilot``: the same line, not a Textual traceback panel."""
    home, target = tmp_path / "home", tmp_path / "folder"
    home.mkdir(mode=0o700)
    target.mkdir(mode=0o755)
    config = tmp_path / "settings.yaml"
    config.write_text(f"paths:\n  checkpoints_db: {target}\n")
    out = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "--config", str(config)], cwd=REPO,
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                         env={**os.environ, "PAPERPILOT_HOME": str(home)})
    assert out.returncode == 1
    assert one_line(out) == f"paperpilot: paths.checkpoints_db: {target} is a directory; name a file in it"
    assert mode(target) == 0o755
