"""A warm ``ask``: a fork server that keeps the agent's modules imported between commands.

A fresh ``paperpilot ask`` spends about a second importing LangGraph, the MCP SDK, NumPy and ONNX
Runtime before it does any work. ``paperpilot hub start`` therefore also starts this server: one
process that imports all of that once and then waits on a Unix socket in the data directory
(``ask.sock``, mode 0600, peers must be the same user). ``paperpilot ask`` checks the same the other
way (a data dir and socket of its own user, a listener running as that user) and refuses in one
line, before sending anything, when they are not; then it connects, hands over its
arguments, environment, working directory and its stdin/stdout/stderr file descriptors, and the
server forks a child that runs exactly the ``ask`` command a cold process would run, writing
straight to the caller's terminal. The caller forwards Ctrl-C to the child and exits with its code.

The server never starts a thread or opens a model or database, so forking stays safe; every child
opens its own stores, hub connection and models. Anything unexpected (no server, a stale socket,
a refusal) makes ``ask`` run in its own process as before. ``PAPERPILOT_NO_WARM=1`` turns it off.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import struct
import sys
import time
from pathlib import Path

from core.errors import UnsafePath

SOCKET_NAME = "ask.sock"
STATE_NAME = "warm-ask.json"
HEADER = struct.Struct("!Q")
# What a cold `ask` spends its first second importing (none of these starts a thread on import).
PRELOAD = (
    "paperpilot_tui.cli.ask", "paperpilot_tui.cli.ask_render", "core.agent", "core.graph", "core.brains.factory",
    "core.brains.offline.brain", "core.memory.checkpoints", "core.stores", "core.tools.hub_client",
    "core.embeddings", "core.onnx_runtime", "mcp.client.session", "mcp.client.streamable_http", "mcp.client.stdio",
    "langgraph.checkpoint.sqlite.aio", "aiosqlite", "httpx", "numpy", "onnxruntime", "tokenizers",
)


def socket_path(home: Path) -> Path:
    return Path(home) / SOCKET_NAME


def state_path(home: Path) -> Path:
    return Path(home) / STATE_NAME


# -- the caller -------------------------------------------------------------------------------------

def run_warm(argv: list[str], home: Path) -> int | None:
    """Run ``paperpilot ARGV`` in a child of the warm server; its exit code, or None to run here.

    The caller's environment (API keys) and terminal go only to a server of this user: ``home``
    has been checked (:func:`core.paths.home`: ours, nobody else can write to it), the socket file
    must be a socket of ours, and the process listening on it must run as us (``SO_PEERCRED``).
    Anything else raises :class:`~core.errors.UnsafePath` before a byte is sent."""
    path = socket_path(home)
    if os.environ.get("PAPERPILOT_NO_WARM"):
        return None
    try:
        st = os.lstat(path)
    except OSError:
        return None
    _trust(path, stat.S_ISSOCK(st.st_mode), st.st_uid, "is not a socket")
    # From the first byte sent, the server may fork a child that holds our terminal: a ctrl+c before its
    # pid comes back is held and sent to it then (it was a KeyboardInterrupt traceback here, and the
    # child ran on); with no child after all, the ask ends as interrupted.
    child: list[int] = []
    held: list[int] = []

    def forward(signum: int, _frame: object) -> None:
        if not child:
            held.append(signum)
            return
        try:
            os.kill(child[0], signum)
        except ProcessLookupError:
            pass

    before = {sig: signal.signal(sig, forward) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}

    def no_child() -> int | None:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        return 128 + held[0] if held else None

    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(3)
    try:
        conn.connect(str(path))
        if hasattr(socket, "SO_PEERCRED"):
            peer = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
            _trust(path, True, struct.unpack("3i", peer)[1], "")
        payload = json.dumps({"argv": argv, "env": dict(os.environ), "cwd": os.getcwd(),
                              "encoding": getattr(sys.stdout, "encoding", None) or "utf-8"}).encode()
        socket.send_fds(conn, [HEADER.pack(len(payload))], [0, 1, 2])
        conn.sendall(payload)
        reader = conn.makefile("r", encoding="utf-8")
        first = json.loads(reader.readline() or "{}")
    except ConnectionRefusedError:  # a socket file (ours, checked above) with no server behind it
        conn.close()
        path.unlink(missing_ok=True)
        return no_child()
    except UnsafePath:
        conn.close()
        no_child()
        raise
    except (OSError, ValueError):
        conn.close()
        return no_child()
    pid = first.get("pid")
    if not isinstance(pid, int):
        conn.close()
        return no_child()  # refused (e.g. not fork-safe right now): run in this process
    conn.settimeout(None)
    child.append(pid)
    for signum in held:
        forward(signum, None)
    try:
        line = reader.readline()
    except OSError:
        line = ""
    conn.close()
    try:
        return int(json.loads(line)["exit"])
    except (ValueError, KeyError, TypeError):
        print("paperpilot: the warm ask server stopped mid-answer; run `paperpilot hub start` again",
              file=sys.stderr)
        return 1


def _trust(path: Path, right_kind: bool, uid: int, not_kind: str) -> None:
    """Refuse (one line, nothing sent) a socket that is not a socket, or not this user's."""
    if not right_kind:
        why = not_kind
    elif uid != os.getuid():
        why = f"belongs to another user (uid {uid})"
    else:
        return
    raise UnsafePath(f"the warm-ask socket {path} {why}; nothing was sent to it. Remove it (rm {path}) "
                     "and check who else can write to the data directory")


# -- the server -------------------------------------------------------------------------------------

def serve(home: Path) -> int:
    """Import the agent once, then fork a child per ``ask`` until SIGTERM."""
    import importlib
    import selectors
    import threading

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    path = socket_path(home)
    path.unlink(missing_ok=True)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        server.bind(str(path))
    finally:
        os.umask(old)
    server.listen(16)
    bound = os.stat(path).st_ino
    _write_state(home)
    stopping: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, _f: stopping.append(signum))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    children: dict[int, socket.socket] = {}
    selector = selectors.DefaultSelector()
    selector.register(server, selectors.EVENT_READ)
    try:
        while not stopping and _still_bound(path, bound):
            for _key, _mask in selector.select(timeout=0.2):
                try:
                    conn, _ = server.accept()
                except OSError:
                    continue
                _accept(conn, server, children, fork_safe=threading.active_count() == 1)
            _reap(children)
    finally:
        selector.close()
        server.close()
        if _still_bound(path, bound):  # never another server's socket
            path.unlink(missing_ok=True)
        if _names_me(home):  # nor another's state file
            state_path(home).unlink(missing_ok=True)
    return 0


def _names_me(home: Path) -> bool:
    """Whether the state file names this process (read as is: :func:`read_pid` would also clear a stale
    file of another server, and its socket, which may be a live one's)."""
    from core.owned import read_private_json

    raw, _ = read_private_json(state_path(home))
    return isinstance(raw, dict) and raw.get("pid") == os.getpid()


def _still_bound(path: Path, inode: int) -> bool:
    """Whether the socket file this server bound is still there: once it is gone (its data dir deleted,
    the file removed, another server's in its place) no ``ask`` can reach this one, and nothing else
    would ever stop it."""
    try:
        return os.stat(path).st_ino == inode
    except OSError:
        return False


def _accept(conn: socket.socket, server: socket.socket, children: dict[int, socket.socket], *,
            fork_safe: bool) -> None:
    fds: list[int] = []
    try:
        conn.settimeout(5)
        pid_uid_gid = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        if struct.unpack("3i", pid_uid_gid)[1] != os.getuid():
            raise PermissionError("another user")
        head, fds, _flags, _addr = socket.recv_fds(conn, HEADER.size, 3)
        size = HEADER.unpack(head)[0]
        body = b""
        while len(body) < size:
            chunk = conn.recv(size - len(body))
            if not chunk:
                raise ConnectionError("short request")
            body += chunk
        request = json.loads(body)
        if len(fds) != 3 or not fork_safe:
            raise RuntimeError("refused")
    except (OSError, ValueError, RuntimeError):
        for fd in fds:
            os.close(fd)
        _send(conn, {"refused": True})
        conn.close()
        return
    pid = os.fork()
    if pid == 0:
        server.close()
        conn.close()
        _child(request, fds)
    for fd in fds:
        os.close(fd)
    if _send(conn, {"pid": pid}):
        children[pid] = conn
    else:
        conn.close()
        children[pid] = None  # type: ignore[assignment]  # the caller left; still reap the child


def _reap(children: dict[int, socket.socket]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is not None:
            _send(conn, {"exit": os.waitstatus_to_exitcode(status)})
            conn.close()


def _send(conn: socket.socket, message: dict) -> bool:
    try:
        conn.sendall((json.dumps(message) + "\n").encode())
        return True
    except OSError:
        return False


def _child(request: dict, fds: list[int]) -> None:
    """Become the caller's ``paperpilot ARGV`` process; never returns."""
    code = 1
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        for target, fd in zip((0, 1, 2), fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        os.environ["PAPERPILOT_WARM"] = "1"
        encoding = request.get("encoding") or "utf-8"
        sys.stdin = open(0, encoding=encoding, closefd=False)
        sys.stdout = open(1, "w", buffering=1 if os.isatty(1) else -1, encoding=encoding, closefd=False)
        sys.stderr = open(2, "w", buffering=1, encoding=encoding, closefd=False)
        sys.argv = ["paperpilot", *request["argv"]]
        from paperpilot_tui.cli.main import main

        code = int(main(list(request["argv"])) or 0)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except KeyboardInterrupt:
        code = 130
    except BaseException as exc:  # noqa: BLE001 - one line, as a cold process would print
        print(f"paperpilot: internal error: {type(exc).__name__}: {exc}".splitlines()[0], file=sys.stderr)
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except OSError:
                pass
        os._exit(code)


# -- start, stop, status ----------------------------------------------------------------------------

def _write_state(home: Path) -> None:
    from core.owned import write_private_json

    write_private_json(state_path(home), {"pid": os.getpid(), "socket": str(socket_path(home)),
                                          "started": time.time()})


def read_pid(home: Path) -> int | None:
    """The running server's pid, or None. Only a private state file of ours naming a live process
    of ours that runs this server counts; a stale file of ours and its socket are removed."""
    from core.owned import read_private_json, runs

    raw, why = read_private_json(state_path(home))
    try:
        pid = int(raw["pid"]) if raw is not None else None
    except (KeyError, TypeError, ValueError):
        pid = None
    if pid is not None and runs(pid, "paperpilot_tui.cli.warm"):
        return pid
    if raw is not None or (why and "another user" not in why):
        state_path(home).unlink(missing_ok=True)
        socket_path(home).unlink(missing_ok=True)
    return None


def start(home: Path, timeout: float = 60.0) -> int:
    """Start the server (if not running) and return its pid once its socket is up."""
    import subprocess

    pid = read_pid(home)
    if pid is not None:
        return pid
    from core.hub.daemon import daemon_env, log_path

    import paperpilot_tui

    root = Path(paperpilot_tui.__file__).resolve().parent.parent
    from core.paths import private_file

    with private_file(log_path(home)).open("ab") as log:  # 0600, as every data file
        proc = subprocess.Popen([sys.executable, "-m", "paperpilot_tui.cli.warm", str(home)], cwd=root,
                                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env=daemon_env(home))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the warm ask server exited with code {proc.returncode}; see {log_path(home)}")
        if socket_path(home).exists() and read_pid(home) == proc.pid:
            proc.returncode = 0  # it lives on by design
            return proc.pid
        time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"the warm ask server did not start within {timeout:.0f} s; see {log_path(home)}")


def stop(home: Path) -> int | None:
    """Stop the running server; its pid, or None when none ran."""
    from core.hub.daemon import stop_pid

    pid = read_pid(home)
    if pid is None:
        return None
    stop_pid(pid)
    state_path(home).unlink(missing_ok=True)
    socket_path(home).unlink(missing_ok=True)
    return pid


if __name__ == "__main__":
    sys.exit(serve(Path(sys.argv[1])))
