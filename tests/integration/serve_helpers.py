"""Start a real ``paperpilot serve`` process on a free loopback port and stop it cleanly."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(home: Path, *serve_args: str, global_args: tuple[str, ...] = ("--offline",)):
    """Yield ``(base_url, banner)`` of a running server; on exit SIGTERM it and check that no app
    process it started outlives it."""
    port = free_port()
    argv = [sys.executable, "-m", "paperpilot_tui.cli.main", *global_args, "serve", "--port", str(port), *serve_args]
    env = os.environ | {"PAPERPILOT_HOME": str(home)}
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        banner = proc.stdout.readline()  # printed once the port is bound
        assert "serving the app at" in banner, banner + proc.stderr.read()
        _wait_listening(port)
        yield f"http://127.0.0.1:{port}", banner.strip()
    finally:
        children = psutil.Process(proc.pid).children(recursive=True) if proc.poll() is None else []
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
        _, left = psutil.wait_procs(children, timeout=15)
        for p in left:
            p.kill()
        assert not left, f"app processes outlived the server: {left}"


def _wait_listening(port: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")
