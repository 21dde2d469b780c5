"""`ask` hands its environment (API keys) and terminal to the warm server only when the data dir,
the socket file and the process listening on it are all this user's (issue 26 item 2). Otherwise it
says why in one line and exits non-zero before a single byte reaches the socket.

The stranger is a real listener on ``ask.sock`` that counts the bytes it receives; "another user"
is uid 65534, which needs root (the suite runs as root here), so those tests skip elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
NOBODY = 65534
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="running a listener as another user needs root")

# Binds ask.sock (as whoever runs it), then optionally becomes another user before listen(): the
# peer credentials a client sees are those of the process that called listen(). It accepts for
# a few seconds and prints how many bytes it was sent.
LISTENER = r"""
import os, socket, sys, time
path, as_uid = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(path)
if as_uid >= 0:
    os.setgid(as_uid); os.setuid(as_uid)
s.listen(4)
print("listening", flush=True)
s.settimeout(8)
total = 0
try:
    conn, _ = s.accept()
    conn.settimeout(4)
    while True:
        msg, anc, flags, addr = conn.recvmsg(65536, 4096)
        if not msg:
            break
        total += len(msg)
except OSError:
    pass
print(total, flush=True)
"""


def listen(sock: Path, as_uid: int = -1) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", LISTENER, str(sock), str(as_uid)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "listening"
    return proc


def ask(home: Path, question: str = "What is LoRA?") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "--offline", "ask", question],
                          cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PAPERPILOT_HOME": str(home), "OPENAI_API_KEY": "sk-stranger-bait"})


def received(proc: subprocess.Popen) -> int:
    out, _ = proc.communicate(timeout=30)
    return int(out.strip())


def refused_in_one_line(out: subprocess.CompletedProcess, *words: str) -> None:
    lines = out.stderr.strip().splitlines()
    assert out.returncode != 0, out.stdout + out.stderr
    assert len(lines) == 1 and "Traceback" not in out.stderr, out.stderr
    for word in words:
        assert word in lines[0], lines[0]
    assert out.stdout == ""


@as_root
def test_a_socket_file_of_another_user_gets_nothing(tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    sock = home / "ask.sock"
    proc = listen(sock)
    os.chown(sock, NOBODY, NOBODY)
    started = time.monotonic()
    out = ask(home)
    refused_in_one_line(out, "ask.sock", "another user (uid 65534)", "nothing was sent")
    assert time.monotonic() - started < 60  # refused at once, not after a cold answer
    assert received(proc) == 0


@as_root
def test_a_listener_running_as_another_user_gets_nothing(tmp_path):
    """The socket file is ours, but the process behind it is not: SO_PEERCRED says so."""
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    sock = home / "ask.sock"
    proc = listen(sock, as_uid=NOBODY)
    assert sock.stat().st_uid == os.getuid()
    out = ask(home)
    refused_in_one_line(out, "ask.sock", "another user (uid 65534)")
    assert received(proc) == 0


def test_a_data_dir_others_can_write_gets_nothing_sent(tmp_path):
    """With a data dir anyone can write to, anyone could have put the socket there."""
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o777)
    sock = home / "ask.sock"
    proc = listen(sock)
    out = ask(home)
    refused_in_one_line(out, str(home), "can be written by other users")
    assert received(proc) == 0


# A warm server of ours in miniature: takes the request, says it started a child, and reports the
# exit code only when the test says so (what the caller printed meanwhile is all it printed itself).
OUR_SERVER = r"""
import json, os, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(1)
print("listening", flush=True)
conn, _ = s.accept()
head, fds, _flags, _addr = socket.recv_fds(conn, 8, 3)
size, body = struct.unpack("!Q", head)[0], b""
while len(body) < size:
    body += conn.recv(size - len(body))
conn.sendall((json.dumps({"pid": os.getpid()}) + "\n").encode())
print("got", json.loads(body)["argv"], flush=True)
sys.stdin.readline()
conn.sendall(b'{"exit": 0}\n')
"""


def test_a_readable_data_dir_is_warned_about_before_the_hand_off(tmp_path):
    """The 'too open' warning came from the warm child, after the caller had handed everything
    over; now the caller says it before it connects."""
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o755)
    server = subprocess.Popen([sys.executable, "-c", OUR_SERVER, str(home / "ask.sock")], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert server.stdout.readline().strip() == "listening"
    err = tmp_path / "stderr"
    with err.open("w") as sink:
        caller = subprocess.Popen([sys.executable, "-m", "paperpilot_tui.cli.main", "ask", "What is LoRA?"], cwd=REPO,
                                  stdout=subprocess.PIPE, stderr=sink, env={**os.environ, "PAPERPILOT_HOME": str(home)})
        try:
            assert server.stdout.readline().startswith("got")  # the hand-off happened (ours: trusted)
            said_before = err.read_text()
            server.stdin.write("finish\n")
            server.stdin.flush()
            assert caller.wait(timeout=60) == 0
        finally:
            caller.kill()
            server.kill()
    assert said_before.startswith("paperpilot: warning: the data directory") and "readable by other users" in said_before
    assert err.read_text() == said_before
