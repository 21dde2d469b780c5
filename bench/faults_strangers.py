"""Fault experiment: another local user against what PaperPilot listens on or reads.

Run as root, the suite acts as a second account (``nobody``, uid 65534) through a child process
that runs the system's ``python3`` with the standard library only (it cannot read root's
interpreter). Each probe is one try; "survived" counts the probes that were refused:

* ``serve``: a real ``paperpilot serve`` on loopback; the stranger requests the page and opens the
  websocket with no token and no Origin. Refused: 401 or 403. With the printed token the same page
  loads (so a refusal is the guard's, not a broken server).
* ``http hub``: a real ``hub serve --transport http`` on loopback; the stranger sends an MCP
  ``initialize`` with no bearer token. Refused: 401.
* ``ask.sock``: the data dir is left writable by others (mode 0777, as a careless setup would) and
  the stranger plants a listening ``ask.sock`` in it; a real ``ask`` runs with a key in its
  environment. Refused: the stranger's socket receives no connection (``ask`` refuses the data dir
  or ignores the socket).

Without root (or without a system python3) there is no second account to act as: the row says so
and has no tries.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

from bench.faults_common import CLI, ROOT, env_for, home_with_hub, killpg, row, settings_file
from bench.faults_hub import _free_port, _listening

STRANGER = 65534
PYTHON = "/usr/bin/python3"
BOUND_S = 60

HTTP_PROBE = r"""
import http.client, json, sys
host, port, path, method, body, headers = json.loads(sys.argv[1])
c = http.client.HTTPConnection(host, port, timeout=10)
c.request(method, path, body=body, headers=headers)
print(c.getresponse().status)
"""

SOCKET_PLANT = r"""
import os, socket, sys, time
path, out, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = socket.socket(socket.AF_UNIX)
s.bind(path); s.listen(4); s.settimeout(seconds)
got = b""
try:
    conn, _ = s.accept()
    conn.settimeout(2)
    try:
        got = conn.recv(65536) or b"(connected)"
    except OSError:
        got = b"(connected)"
except OSError:
    pass
open(out, "wb").write(got)
"""


def _as_stranger(script: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run([PYTHON, "-c", script, *args], user=STRANGER, group=STRANGER, extra_groups=[],
                          cwd="/", env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True, timeout=timeout)


def _status(port: int, path: str, method: str = "GET", body: str | None = None, headers: dict | None = None,
            stranger: bool = True) -> int:
    arg = json.dumps(["127.0.0.1", port, path, method, body, headers or {}])
    if stranger:
        proc = _as_stranger(HTTP_PROBE, arg)
    else:
        proc = subprocess.run([PYTHON, "-c", HTTP_PROBE, arg], capture_output=True, text=True, timeout=30)
    return int(proc.stdout.strip() or 0)


def _start(argv: list[str], home: Path, port: int) -> subprocess.Popen | None:
    proc = subprocess.Popen([*CLI, *argv], cwd=ROOT, env=env_for(home), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    deadline = time.monotonic() + BOUND_S
    while time.monotonic() < deadline and proc.poll() is None:
        if _listening(port):
            return proc
        time.sleep(0.1)
    killpg(proc)
    return None


def _serve(home: Path) -> list[tuple[str, bool, str]]:
    port = _free_port()
    proc = _start(["serve", "--port", str(port)], home, port)
    if proc is None:
        return [("serve", False, "serve did not start")]
    try:
        fd = proc.stdout.fileno()
        os.set_blocking(fd, False)
        printed, deadline = "", time.monotonic() + 10
        while "token=" not in printed and time.monotonic() < deadline:
            try:
                printed += os.read(fd, 65536).decode(errors="replace")
            except BlockingIOError:
                time.sleep(0.1)
        token = (re.search(r"token=([\w\-.~%]+)", printed) or [None, None])[1]
        page = _status(port, "/")
        ws = _status(port, "/ws", headers={"Connection": "Upgrade", "Upgrade": "websocket",
                                           "Sec-WebSocket-Version": "13",
                                           "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="})
        with_token = _status(port, f"/?token={token}") if token else 0
        return [("serve page", page in (401, 403), f"page {page}"),
                ("serve websocket", ws in (401, 403), f"websocket {ws}"),
                ("serve with token", with_token == 200, f"with the printed token {with_token or 'no token printed'}")]
    finally:
        killpg(proc)


def _http_hub(home: Path) -> list[tuple[str, bool, str]]:
    port = _free_port()
    proc = _start(["hub", "serve", "--transport", "http", "--port", str(port)], home, port)
    if proc is None:
        return [("http hub", False, "the HTTP hub did not start")]
    try:
        init = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "stranger", "version": "0"}}})
        status = _status(port, "/mcp", "POST", init, {"Content-Type": "application/json",
                                                      "Accept": "application/json, text/event-stream"})
        return [("http hub", status == 401, f"initialize {status}")]
    finally:
        killpg(proc)


def _ask_sock(home: Path, config: Path) -> list[tuple[str, bool, str]]:
    os.chmod(home, 0o777)  # the careless setup under test (we made this directory)
    out = home / "planted.out"
    plant = subprocess.Popen([PYTHON, "-c", SOCKET_PLANT, str(home / "ask.sock"), str(out), "40"], user=STRANGER,
                             group=STRANGER, extra_groups=[], cwd="/", env={"PATH": "/usr/bin:/bin"})
    try:
        deadline = time.monotonic() + 10
        while not (home / "ask.sock").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        env = env_for(home, OPENAI_API_KEY="pp-stranger-probe-key")
        ask = subprocess.run([*CLI, "--offline", "--config", str(config), "ask", "What does LoRA freeze?"],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=BOUND_S)
        plant.kill()
        plant.wait(10)
        got = out.read_bytes() if out.exists() else b""
        lines = [ln for ln in ask.stderr.splitlines() if ln.strip()]
        said = f"ask exit {ask.returncode}" + (f": {lines[-1][:120]}" if lines else "")
        return [("ask.sock", not got, f"{said}; the planted socket got {len(got)} byte(s)")]
    finally:
        if plant.poll() is None:
            plant.kill()
            plant.wait(10)
        os.chmod(home, 0o700)


def strangers(indexed: Path) -> dict:
    """Another local user probes ``serve``, the HTTP hub and the warm-ask socket; each refusal a survival."""
    if os.geteuid() != 0 or not Path(PYTHON).exists():
        return row("another local user", notes="needs root and /usr/bin/python3 to act as a second account; not run")
    home = home_with_hub(indexed, "faults-strangers-")
    config = settings_file(home)
    probes: list[tuple[str, bool, str]] = []
    try:
        probes += _serve(home)
        probes += _http_hub(home)
        probes += _ask_sock(home, config)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    let_in = [p for p in probes if not p[1]]
    notes = "; ".join(f"{name}: {what}" for name, _, what in probes)
    return row("another local user", tries=len(probes), survived=len(probes) - len(let_in), clear_error="n/a",
               lost="n/a", notes=notes, failed=len(let_in))
