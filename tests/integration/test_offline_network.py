"""``ask --offline`` reaches nothing off the machine: no lookup, no connection (issue 26).

The command runs under :mod:`tests.support.netwatch` (strace of every connect/sendto/sendmsg of the
process and its hub child, in an empty network namespace where allowed). ONNX Runtime's telemetry
used to resolve and connect to mobile.events.data.microsoft.com from every process; the project now
sets ORT_DISABLE_TELEMETRY=1 at every entry point. The watcher itself is shown to catch a connection
and a lookup, so an empty list means something.
"""

from __future__ import annotations

import os
import sys

import pytest

from tests.support import netwatch
from tests.support.ask_proc import REPO, write_settings

watched = pytest.mark.skipif(bool(netwatch.available()), reason=netwatch.available() or "")


@watched
def test_the_watcher_reports_a_connection_and_a_lookup():
    code = ("import socket\n"
            "for target in (lambda: socket.create_connection(('192.0.2.1', 9), timeout=1),\n"
            "               lambda: socket.getaddrinfo('mobile.events.data.microsoft.com', 443)):\n"
            "    try:\n        target()\n    except OSError:\n        pass\n")
    found = netwatch.foreign_connections([sys.executable, "-c", code], timeout=60)
    assert any("192.0.2.1:9" in f for f in found), found
    assert any("lookup" in f for f in found), found


def test_a_resolver_daemon_that_is_not_running_was_asked_nothing():
    """A user-name lookup (getpwuid) tries nscd's socket first; with no nscd there, nothing was sent."""
    absent = '12 connect(20, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = -1 ENOENT (No such file)'
    present = '12 connect(20, {sa_family=AF_UNIX, sun_path="/var/run/nscd/socket"}, 110) = 0'
    assert netwatch.foreign(absent) is None
    assert "nscd" in (netwatch.foreign(present) or "")


@watched
def test_the_watcher_ignores_loopback():
    code = ("import socket\ntry:\n    socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
            "except OSError:\n    pass\n")
    assert netwatch.foreign_connections([sys.executable, "-c", code], timeout=60) == []


@watched
def test_ask_offline_makes_no_lookup_and_no_connection(hub_db, tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    config = write_settings(tmp_path / "settings.yaml", hub_db, memory=True)
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"} | {"PAPERPILOT_HOME": str(home)}
    run = netwatch.watch([sys.executable, "-m", "paperpilot_tui.cli.main", "--offline", "ask", "--config",
                          str(config), "What rank does LoRA use?"], env=env, cwd=REPO, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "LoRA" in run.stdout
    assert run.foreign == [], "\n".join(run.foreign)


@pytest.mark.parametrize("entry", ["from paperpilot_tui.cli.main import main; main(['--help'])",
                                   "from core.hub.__main__ import main; main(['--bad'])"])
def test_every_entry_point_turns_onnx_runtime_telemetry_off_for_itself_and_its_children(entry):
    import subprocess

    code = f"import os\ntry:\n    {entry}\nexcept SystemExit:\n    pass\nprint(os.environ.get('ORT_DISABLE_TELEMETRY'))"
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "1", out
