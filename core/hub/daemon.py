"""The warm hub: the bundled knowledge hub as a background daemon on a loopback port.

``paperpilot hub start`` runs ``python -m core.hub daemon`` in its own session. The daemon binds a
free port on 127.0.0.1, serves the hub over streamable HTTP and writes ``hub-daemon.json`` (pid,
port, token, start time; mode 0600) to the data dir; every request must carry
``Authorization: Bearer <token>`` (401 otherwise). Its stdout/stderr go to ``hub-daemon.log``.

:func:`find_daemon` is what clients use: it trusts the state file only when it is a private regular
file of this user (checked on the opened file) and its pid is a live process of this user that still
runs the hub daemon (a reused pid, or anyone else's process, never counts and is never signalled); a
file of ours that fails is removed. ``hub start`` holds :func:`start_lock` so that several at once
start one daemon. Nothing heavy is imported here: the server loads in :func:`run_daemon`, in the
daemon process.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.owned import alive, read_private_json, runs, write_private_json
from core.paths import private_file

STATE_FILE = "hub-daemon.json"
LOG_FILE = "hub-daemon.log"
LOCK_FILE = "hub-start.lock"
MARKER = "core.hub daemon"  # what the daemon's command line contains
PING_TIMEOUT_S = 1.5


@dataclass(frozen=True)
class DaemonState:
    pid: int
    port: int
    token: str
    started: float
    db: str = ""

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


def state_path(home: Path | None = None) -> Path:
    if home is None:
        from core import paths

        home = paths.home()
    return home / STATE_FILE


def log_path(home: Path | None = None) -> Path:
    return state_path(home).with_name(LOG_FILE)


# -- process checks --------------------------------------------------------------------------------

def is_daemon(pid: int) -> bool:
    """True when ``pid`` is alive and runs this user's hub daemon (see :func:`runs`)."""
    return runs(pid, MARKER)


# -- the state file --------------------------------------------------------------------------------

def write_state(path: Path, state: DaemonState) -> None:
    """Write the state file atomically, created with mode 0600 (it holds the token)."""
    write_private_json(path, state.__dict__)


def remove_state(path: Path, pid: int | None = None) -> None:
    """Remove the state file (only if it names ``pid``, when given)."""
    if pid is not None:
        raw, _ = read_private_json(path)
        if raw is not None and raw.get("pid") != pid:
            return
    try:
        path.unlink()
    except FileNotFoundError:
        pass


def read_state(path: Path | None = None) -> tuple[DaemonState | None, str | None]:
    """The running daemon's state, or (None, why a file that was there is not trusted). A file of
    ours that is not trusted is removed; another user's is left alone (and never believed)."""
    path = path or state_path()
    raw, why = read_private_json(path)
    state = None
    if raw is None and why is None:
        return None, None
    if raw is not None:
        try:
            state = DaemonState(pid=int(raw["pid"]), port=int(raw["port"]), token=str(raw["token"]),
                                started=float(raw["started"]), db=str(raw.get("db", "")))
        except (KeyError, TypeError, ValueError):
            why = f"{path.name} was malformed"
        else:
            if not is_daemon(state.pid):
                why = f"{path.name} named pid {state.pid}, which is not a running hub daemon of yours"
    if why is not None:
        if "another user" not in why:
            remove_state(path)
        return None, why
    return state, None


def ping(state: DaemonState, timeout: float = PING_TIMEOUT_S, token: str | None = None) -> int | None:
    """The HTTP status the daemon answers an authenticated GET with, or None if it does not answer."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", state.port, timeout=timeout)
    try:
        conn.request("GET", "/mcp", headers={"Authorization": f"Bearer {state.token if token is None else token}",
                                             "Accept": "text/event-stream"})
        return conn.getresponse().status
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


def find_daemon(home: Path | None = None) -> tuple[DaemonState | None, str | None]:
    """A running daemon that is ours (see :func:`read_state`); never raises."""
    try:
        return read_state(state_path(home))
    except OSError as exc:
        return None, f"{STATE_FILE}: {exc}"


# -- start and stop (the CLI) ----------------------------------------------------------------------

def daemon_env(home: Path) -> dict[str, str]:
    """The daemon's environment: this process's without secret-shaped variables (the hub needs no
    API key; a long-lived process should not hold one), with ``PAPERPILOT_HOME`` set."""
    from core.tools.mcp_session import child_env

    return child_env({"PAPERPILOT_HOME": str(home)})


@contextmanager
def start_lock(home: Path, timeout: float) -> Iterator[None]:
    """Held while one ``hub start`` looks for a running daemon and starts one, so that several at
    once start exactly one: the others wait here, then find it running. RuntimeError after
    ``timeout`` s. The lock is an ``flock`` on a private file in the data dir (freed if we die)."""
    import fcntl

    fd = os.open(private_file(home / LOCK_FILE), os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"another `paperpilot hub start` is still starting the daemon "
                                       f"(waited {timeout:.0f} s); see {log_path(home)}") from None
                time.sleep(0.1)
        yield
    finally:
        os.close(fd)


def start(home: Path, config: str | None = None, timeout: float = 120.0) -> DaemonState:
    """Start the daemon and return once it answers. Raises RuntimeError with the reason. Callers
    that may run side by side hold :func:`start_lock`."""
    state, _ = read_state(state_path(home))
    if state is not None:
        return state
    cmd = [sys.executable, "-m", "core.hub", "daemon"]
    if config:
        cmd += ["--config", str(Path(config).resolve())]
    import core

    root = Path(core.__file__).resolve().parent.parent  # so `-m core.hub` finds this very code
    with private_file(log_path(home)).open("ab") as log:  # 0600, as every data file
        proc = subprocess.Popen(cmd, cwd=root, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, env=daemon_env(home))
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the hub daemon exited with code {proc.returncode}; see {log_path(home)}")
        raw, _ = read_private_json(state_path(home))
        if raw and raw.get("pid") == proc.pid:
            state, _ = read_state(state_path(home))
            if state is not None and ping(state) not in (None, 401):
                proc.returncode = 0  # it lives on by design; no ResourceWarning when this object goes
                return state
        time.sleep(0.1)
    stop_pid(proc.pid)
    raise RuntimeError(f"the hub daemon did not answer within {timeout:.0f} s; see {log_path(home)}")


def stop_pid(pid: int, grace: float = 10.0) -> bool:
    """SIGTERM, wait up to ``grace`` s, then SIGKILL. True if it had to be killed. Callers check
    first that the pid is a process of ours (:func:`runs`)."""
    try:
        os.kill(pid, signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        return False
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not alive(pid):
            return False
        time.sleep(0.05)
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return False
    deadline = time.monotonic() + 5
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return True


def stop(home: Path) -> DaemonState | None:
    """Stop the running daemon (if any) and remove its state file; the stopped state or None."""
    path = state_path(home)
    state, _ = read_state(path)
    if state is None:
        return None
    stop_pid(state.pid)
    remove_state(path)
    return state


# -- the daemon process ----------------------------------------------------------------------------

class BearerAuth:
    """ASGI middleware: HTTP requests without ``Authorization: Bearer <token>`` get 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            import hmac

            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = b'{"error": "unauthorized"}'
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"content-type", b"application/json"),
                                        (b"content-length", str(len(body)).encode()),
                                        (b"www-authenticate", b"Bearer")]})
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def daemon_app(app: Any, token: str, connections: int) -> Any:
    """The daemon's ASGI app: the token first, then at most ``connections`` requests in flight
    (``limits.hub_connections``, as ``hub serve --transport http`` has), then the MCP app."""
    from core.hub.auth import ConnectionLimit

    return BearerAuth(ConnectionLimit(app, connections), token)


def run_daemon(argv: list[str]) -> int:
    import argparse
    import secrets
    import socket

    from core.hub.__main__ import quiet_environment

    quiet_environment()
    p = argparse.ArgumentParser(prog="python -m core.hub daemon")
    p.add_argument("--config", default=None)
    args = p.parse_args(argv)

    from core import paths
    from core.config import ConfigError, load_settings
    from core.errors import StoreUnreadable

    try:
        settings = load_settings(args.config)
    except ConfigError as exc:
        print(f"hub daemon: config error: {exc}", file=sys.stderr)
        return 2
    try:
        home = paths.home()
    except StoreUnreadable as exc:  # a data dir that is not ours
        print(f"hub daemon: {exc}", file=sys.stderr)
        return 2
    path = state_path(home)
    existing, _ = read_state(path)
    if existing is not None and existing.pid != os.getpid():
        print(f"hub daemon: already running (pid {existing.pid}, port {existing.port})", file=sys.stderr)
        return 1

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]

    import uvicorn

    from core.hub.__main__ import open_hub
    from core.hub.pg import BackendError
    from core.hub.server import build_server

    try:
        hub = open_hub(settings)
    except BackendError as exc:
        print(f"hub daemon: {exc}", file=sys.stderr)
        return 2
    except StoreUnreadable as exc:
        print(f"hub daemon: {exc}", file=sys.stderr)
        return 1
    db = hub.store.path
    hub.start(background=True)
    watcher = start_watching(hub, settings)
    server = build_server(hub, host="127.0.0.1", port=port, request_bytes=settings.limits.request_bytes)
    token = secrets.token_urlsafe(32)
    app = daemon_app(server.streamable_http_app(), token, settings.limits.hub_connections)
    config = uvicorn.Config(app, log_level="warning", lifespan="on", timeout_graceful_shutdown=2)
    write_state(path, DaemonState(pid=os.getpid(), port=port, token=token, started=time.time(), db=str(db)))
    print(f"hub daemon: pid {os.getpid()} serving http://127.0.0.1:{port}/mcp", flush=True)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        if watcher is not None:
            watcher.stop()
        remove_state(path, os.getpid())
        print("hub daemon: stopped", flush=True)
    return 0


def start_watching(hub: Any, settings: Any) -> Any:
    """Watch the folders of ``hub.watch`` (see :mod:`core.hub.watch`); None when there are none.
    A folder that is missing is logged and left out; the daemon serves anyway."""
    folders = [(Path(w.path).expanduser(), w.collection) for w in settings.hub.watch]
    missing = [str(d) for d, _ in folders if not d.is_dir()]
    folders = [(d, c) for d, c in folders if d.is_dir()]
    if missing:
        print(f"hub daemon: not watching missing folder(s): {', '.join(missing)}", flush=True)
    if not folders:
        return None
    from core.hub.watch import Watcher

    def report(file: Path, status: str) -> None:
        print(f"hub daemon: {status} {file}", flush=True)

    hub.watcher = Watcher(hub.store, folders, debounce=settings.hub.debounce,
                          keep_versions=settings.hub.keep_versions, report=report).start()
    print(f"hub daemon: watching {', '.join(f'{d} ({c})' for d, c in folders)}", flush=True)
    return hub.watcher
