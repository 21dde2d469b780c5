"""The daemon's state file, its start and a damaged index (issue 26 items 10 and 11): only a process
of this user counts as the daemon (`hub stop` never signals anyone else's), three `hub start` at
once start one daemon, and a corrupt hub.sqlite3 is one line naming it, never a traceback."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.hub import daemon

REPO = Path(__file__).resolve().parents[2]
NOBODY = 65534


def cli(home: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout,
                          env={**os.environ, "PAPERPILOT_HOME": str(home), "PAPERPILOT_NO_WARM": "1"})


def one_line(out: subprocess.CompletedProcess) -> str:
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    return lines[0]


def processes_of(home: Path, marker: str) -> list[int]:
    """Live processes whose command line has ``marker`` and whose PAPERPILOT_HOME is ``home``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            env = (entry / "environ").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker in cmd and f"PAPERPILOT_HOME={home}".encode() in env and state != "Z":
            found.append(int(entry.name))
    return found


@pytest.fixture
def home(tmp_path) -> Path:
    h = tmp_path / "home"
    h.mkdir(mode=0o700)
    return h


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="another user's process needs root")
def test_hub_stop_never_signals_another_users_process(home):
    """Before, any live pid whose command line said `core.hub daemon` (or the warm server's module)
    counted: `hub stop` as root killed another user's process (as a normal user: a PermissionError
    traceback)."""
    from core.owned import write_private_json
    from paperpilot_tui.cli import warm

    markers = (("core.hub", "daemon"), ("-m", "paperpilot_tui.cli.warm"))
    theirs = [subprocess.Popen(["/bin/sh", "-c", "sleep 120; exit 0", *marker], user=NOBODY, group=NOBODY,
                               stdin=subprocess.DEVNULL) for marker in markers]
    try:
        for proc, marker in zip(theirs, markers):
            deadline = time.monotonic() + 10
            while " ".join(marker) not in Path(f"/proc/{proc.pid}/cmdline").read_bytes().replace(b"\0", b" ").decode():
                assert time.monotonic() < deadline
                time.sleep(0.02)
        daemon.write_state(daemon.state_path(home), daemon.DaemonState(pid=theirs[0].pid, port=9, token="t",
                                                                       started=time.time()))
        write_private_json(warm.state_path(home), {"pid": theirs[1].pid, "started": time.time()})
        assert not daemon.is_daemon(theirs[0].pid) and warm.read_pid(home) is None
        write_private_json(warm.state_path(home), {"pid": theirs[1].pid, "started": time.time()})
        out = cli(home, "hub", "stop")
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
        assert "not a running hub daemon of yours" in out.stdout and "hub daemon not running" in out.stdout
        assert "warm ask stopped" not in out.stdout
        time.sleep(0.5)
        assert [p.poll() for p in theirs] == [None, None], "another user's process was signalled"
    finally:
        for proc in theirs:
            proc.kill()
            proc.wait()


def test_a_corrupt_hub_db_is_one_line_in_hub_status(home):
    (home / "hub.sqlite3").write_bytes(b"this is not a database" * 200)
    out = cli(home, "hub", "status")
    assert out.returncode == 1
    line = one_line(out)
    assert str(home / "hub.sqlite3") in line and "move it aside" in line


def test_a_corrupt_hub_db_is_one_line_from_the_hub_process(home):
    """The hub child that `ask` starts: one line on its stderr, exit 1 (it was a traceback)."""
    (home / "hub.sqlite3").write_bytes(b"this is not a database" * 200)
    out = subprocess.run([sys.executable, "-m", "core.hub", "serve"], cwd=REPO, capture_output=True, text=True,
                         timeout=120, stdin=subprocess.DEVNULL, env={**os.environ, "PAPERPILOT_HOME": str(home)})
    assert out.returncode == 1
    line = one_line(out)
    assert str(home / "hub.sqlite3") in line and "move it aside" in line


def test_three_hub_starts_at_once_start_one_daemon(home, sqlite_hub_home):
    for name in os.listdir(sqlite_hub_home):
        if name.startswith("hub.sqlite3"):
            shutil.copy2(sqlite_hub_home / name, home / name)
    code = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
    starts = [subprocess.Popen([sys.executable, "-c", code, "hub", "start"], cwd=REPO, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "PAPERPILOT_HOME": str(home)})
              for _ in range(3)]
    most = 0
    try:
        deadline = time.monotonic() + 400
        while any(p.poll() is None for p in starts):
            assert time.monotonic() < deadline, "hub start did not finish"
            most = max(most, len(processes_of(home, daemon.MARKER)))
            time.sleep(0.2)
        outs = [p.communicate() for p in starts]
        assert [p.returncode for p in starts] == [0, 0, 0], outs
        said = " ".join(o for o, _ in outs)
        assert said.count("hub daemon started") == 1 and said.count("hub daemon already running") == 2, said
        assert most == 1 and len(processes_of(home, daemon.MARKER)) == 1
        assert len(processes_of(home, "paperpilot_tui.cli.warm")) == 1
        for name in ("hub-daemon.json", "hub-daemon.log", "hub-start.lock", "hub.log"):
            assert stat.S_IMODE((home / name).stat().st_mode) == 0o600, name
    finally:
        stopped = cli(home, "hub", "stop")
        for pid in processes_of(home, daemon.MARKER) + processes_of(home, "paperpilot_tui.cli.warm"):
            daemon.stop_pid(pid)
    assert stopped.returncode == 0, stopped.stderr
