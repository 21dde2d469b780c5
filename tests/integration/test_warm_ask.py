"""The warm ask server (paperpilot_tui.cli.warm): `ask` runs in a forked child of a process that
already imported the agent, with the caller's arguments, environment, working directory and stdio;
its answer, exit code and errors are the same as a cold `ask`; a stale socket falls back."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperpilot_tui.cli import warm
from tests.support.ask_proc import write_settings

REPO = Path(__file__).resolve().parents[2]
QUESTION = "What rank does LoRA use by default?"


def ask(home: Path, config: Path, *args: str, env: dict | None = None, timeout: float = 180):
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "--config", str(config), "ask", *args],
                          cwd=REPO, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, "PAPERPILOT_HOME": str(home), **(env or {})})


@pytest.fixture
def warm_home(tmp_path, hub_db):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    config = write_settings(tmp_path / "settings.yaml", hub_db)
    pid = warm.start(home)
    yield home, config, pid
    warm.stop(home)


def test_ask_runs_warm_with_the_callers_arguments_and_stdio(warm_home, tmp_path):
    home, config, pid = warm_home
    assert oct(warm.socket_path(home).stat().st_mode & 0o777) == "0o600"
    out = ask(home, config, "--json", QUESTION, env={"PAPERPILOT_TEST_MARK": "caller"})
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["warm"] is True and "8" in data["final_answer"] and data["sources"]
    # the same command without the server: the same answer, run cold
    cold = ask(home, config, "--json", QUESTION, env={"PAPERPILOT_NO_WARM": "1"})
    assert json.loads(cold.stdout)["warm"] is False
    assert json.loads(cold.stdout)["final_answer"] == data["final_answer"]
    assert warm.read_pid(home) == pid  # the server lives on after its children


def test_exit_codes_and_error_lines_come_back_from_the_child(warm_home):
    home, config, _ = warm_home
    empty = ask(home, config, "  ")
    assert empty.returncode == 2 and empty.stderr.strip() == "paperpilot: the question is empty"
    broken = home / "broken.yaml"
    broken.write_text("agent:\n  top_k: [1, 2\n")
    bad = ask(home, broken, QUESTION)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not valid YAML" in bad.stderr


def test_ctrl_c_reaches_the_child(warm_home):
    home, config, _ = warm_home
    proc = subprocess.Popen([sys.executable, "-m", "paperpilot_tui.cli.main", "--config", str(config), "ask",
                             QUESTION], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PAPERPILOT_HOME": str(home)})
    server = warm.read_pid(home)
    deadline = time.monotonic() + 60
    while not _children(server) and time.monotonic() < deadline:  # the child runs the turn now
        time.sleep(0.02)
    assert _children(server), "the warm server never forked a child for this ask"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert "Traceback" not in err
    deadline = time.monotonic() + 10
    while _children(server) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _children(server) == []  # the forked child ended with its caller; nothing left running


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return out


def test_a_stale_socket_is_passed_over(tmp_path, hub_db):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    config = write_settings(tmp_path / "settings.yaml", hub_db)
    import socket

    stale = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stale.bind(str(warm.socket_path(home)))  # bound, never listening: connections are refused
    stale.close()
    out = ask(home, config, "--json", QUESTION)
    assert out.returncode == 0 and json.loads(out.stdout)["warm"] is False
    assert not warm.socket_path(home).exists()  # the refused socket was cleaned up


def test_the_server_ends_when_its_socket_or_data_dir_is_gone(tmp_path):
    """Nothing else ever stops a warm server whose hub was stopped some other way: a test's data dir
    removed after `hub start` left one waiting forever (tests/hub/test_daemon.py leaked one a run). It
    ends on its own once the socket it bound is gone, as when its data dir is deleted."""
    from core.hub.daemon import alive

    for gone in ("socket", "home"):
        home = tmp_path / gone
        home.mkdir(mode=0o700)
        pid = warm.start(home)
        if gone == "socket":
            warm.socket_path(home).unlink()
        else:
            import shutil

            shutil.rmtree(home)
        deadline = time.monotonic() + 15
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not alive(pid), f"the warm server outlived its {gone}"


def test_a_server_that_ends_leaves_another_servers_files_alone(tmp_path):
    """(Second review.) When its socket was replaced, the ending server removed the state file and the
    socket whenever the state named no live server: the socket then at that path may be another's."""
    from core.hub.daemon import alive
    from core.owned import write_private_json

    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    pid = warm.start(home)
    warm.socket_path(home).unlink()
    warm.socket_path(home).write_text("another server's socket")  # in its place
    write_private_json(warm.state_path(home), {"pid": 2 ** 22 + 7, "socket": str(warm.socket_path(home))})
    deadline = time.monotonic() + 15
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(pid)
    assert warm.socket_path(home).read_text() == "another server's socket"
    assert warm.state_path(home).exists()
