"""A ctrl+c that reaches `ask` while the warm server is still forking its child (before the child's pid
has come back) is held and sent to that child, never a KeyboardInterrupt traceback with the child left
running. CI met it once: `test_ctrl_c_reaches_the_child` sent SIGINT in that window.

A stand-in server (this test, on the data dir's socket) takes the request, and only after the caller has
been sent SIGINT answers with the pid of a process of its own, which must then receive the SIGINT."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from paperpilot_tui.cli import warm

REPO = Path(__file__).resolve().parents[2]
CALLER = "import sys; from pathlib import Path; from paperpilot_tui.cli.warm import run_warm; sys.exit(run_warm(['ask', 'q'], Path(sys.argv[1])))"


def _serve_one(listener: socket.socket, got_request: threading.Event, answer: threading.Event, reply: dict,
               final: dict) -> None:
    conn, _ = listener.accept()
    head, fds, _flags, _addr = socket.recv_fds(conn, warm.HEADER.size, 3)
    for fd in fds:
        os.close(fd)
    size = warm.HEADER.unpack(head)[0]
    data = b""
    while len(data) < size:
        data += conn.recv(size - len(data))
    got_request.set()
    answer.wait(30)
    conn.sendall((json.dumps(reply) + "\n").encode())
    final_line = final.get("line")
    deadline = time.monotonic() + 30
    while final_line is None and time.monotonic() < deadline:
        time.sleep(0.02)
        final_line = final.get("line")
    conn.sendall((json.dumps(final_line or {"exit": 1}) + "\n").encode())
    conn.close()


def _interrupted_caller(tmp_path: Path, reply: dict, final: dict):
    """A stand-in server on a fresh data dir's socket, a caller that has sent it an ask and then got
    SIGINT while it waits for ``reply`` (held back until the returned event is set)."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(warm.socket_path(home)))
    listener.listen(1)
    got_request, answer = threading.Event(), threading.Event()
    threading.Thread(target=_serve_one, args=(listener, got_request, answer, reply, final), daemon=True).start()
    caller = subprocess.Popen([sys.executable, "-c", CALLER, str(home)], cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert got_request.wait(60), "the caller never sent its request"
    time.sleep(0.3)  # the caller now waits for the first line, the child's pid
    caller.send_signal(signal.SIGINT)
    time.sleep(0.3)
    return listener, caller, answer


def test_a_ctrl_c_before_the_childs_pid_comes_back_reaches_the_child(tmp_path):
    # stands in for the forked ask, which sets ctrl+c's default handler itself (warm._child): a pytest run
    # started in the background (nohup … &) has SIGINT ignored, and a child would inherit that
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    final: dict = {}
    listener, caller, answer = _interrupted_caller(tmp_path, {"pid": child.pid}, final)
    try:
        answer.set()  # only now does the child's pid come back
        assert child.wait(timeout=30) == -signal.SIGINT  # the held ctrl+c reached the child
        final["line"] = {"exit": 130}
        out, err = caller.communicate(timeout=30)
        assert "Traceback" not in err, err
        assert caller.returncode == 130, (caller.returncode, err)
    finally:
        for proc in (child, caller):
            if proc.poll() is None:
                proc.kill()
        listener.close()


def test_a_ctrl_c_while_the_server_refuses_ends_the_ask_as_interrupted(tmp_path):
    """No child after all (the server refuses, e.g. not fork-safe now): the ask is not run here anyway."""
    listener, caller, answer = _interrupted_caller(tmp_path, {"refused": "busy"}, {"line": {"exit": 0}})
    try:
        answer.set()
        out, err = caller.communicate(timeout=30)
        assert "Traceback" not in err, err
        assert caller.returncode == 130, (caller.returncode, err)
    finally:
        if caller.poll() is None:
            caller.kill()
        listener.close()
