"""A local PostgreSQL with pgvector, from the ``pgserver`` wheel (PostgreSQL 16 + pgvector 0.6).

``hub.backend: postgres`` with no ``hub.dsn`` uses the cluster in ``<home>/pg``: the first process
that needs it runs ``initdb`` and ``pg_ctl start`` (a few seconds), later ones connect to the
running server, and it keeps running between commands until ``paperpilot hub pg stop``. The
server listens on a Unix socket in its data directory only (no TCP port) and trusts local
connections, so nothing but this machine's users that can reach the directory can connect.

PostgreSQL refuses to run as root: as root the cluster runs as ``nobody`` and, when the data dir
is not reachable by that user (a home of mode 0700), lives in ``/var/lib/paperpilot/pg-<hash>``.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

DATABASE = "paperpilot"
SUPERUSER = "postgres"
SOCKET_PORT = 5432  # names the socket file only: the server opens no TCP port
MAX_SOCKET_PATH = 100  # sun_path is 108 bytes; ".s.PGSQL.5432" goes after the directory
ROOT_DIR = Path("/var/lib/paperpilot")


class EmbeddedError(RuntimeError):
    """The embedded server cannot be had here (no pgserver wheel, initdb or start failed)."""


def bin_dir() -> Path:
    """The PostgreSQL binaries shipped inside the ``pgserver`` wheel."""
    import importlib.util

    spec = importlib.util.find_spec("pgserver")  # located, not imported: its import has side effects
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddedError("the embedded PostgreSQL needs the postgres extra: "
                            "pip install 'paperpilot-agent[postgres]' (or set hub.dsn to a server of yours)")
    path = Path(list(spec.submodule_search_locations)[0]) / "pginstall" / "bin"
    if not (path / "pg_ctl").exists():
        raise EmbeddedError(f"pgserver ships no PostgreSQL binaries for this platform ({path})")
    return path


@dataclass
class Cluster:
    """One embedded cluster: its data directory and the account that runs it."""

    pgdata: Path
    user: str | None = None  # None: this process's user; as root "nobody"

    @classmethod
    def for_home(cls, home: Path) -> Cluster:
        home = Path(home).resolve()
        if os.geteuid() != 0:
            return cls(home / "pg")
        if _reachable_by_others(home):
            return cls(home / "pg", user="nobody")
        return cls(ROOT_DIR / f"pg-{hashlib.sha1(str(home).encode()).hexdigest()[:10]}", user="nobody")

    # -- where ----------------------------------------------------------------------------------
    @property
    def socket_dir(self) -> Path:
        return self.pgdata

    def dsn(self, database: str = DATABASE) -> str:
        return f"postgresql://{SUPERUSER}@/{database}?host={self.socket_dir}&port={SOCKET_PORT}"

    @property
    def log(self) -> Path:
        return self.pgdata / "server.log"

    # -- state ----------------------------------------------------------------------------------
    def running_pid(self) -> int | None:
        """The postmaster's pid when it runs (``postmaster.pid`` names a live process)."""
        try:
            pid = int((self.pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
            os.kill(pid, 0)
        except (OSError, ValueError):
            return None
        return pid

    def ensure_running(self, timeout: float = 60) -> str:
        """Initialize and start the cluster if needed (one process at a time); return its DSN."""
        with self._lock():
            if self.running_pid() is None:
                self._init()
                self._ctl(["-w", "-t", str(int(timeout)), "-l", str(self.log), "-o",
                           f"-h '' -k {self.socket_dir} -p {SOCKET_PORT}", "start"], timeout)
            self._ensure_database()
        return self.dsn()

    def stop(self, timeout: float = 60) -> bool:
        """Stop the server (fast shutdown: open sessions are ended); False if it was not running."""
        with self._lock():
            if self.running_pid() is None:
                return False
            self._ctl(["-w", "-t", str(int(timeout)), "-m", "fast", "stop"], timeout)
            return True

    # -- helpers --------------------------------------------------------------------------------
    @contextlib.contextmanager
    def _lock(self):
        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        with open(self.pgdata.parent / f".{self.pgdata.name}.lock", "a") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(fh, fcntl.LOCK_UN)

    def _init(self) -> None:
        if (self.pgdata / "PG_VERSION").exists():
            return
        if len(str(self.socket_dir)) + 14 > MAX_SOCKET_PATH:
            raise EmbeddedError(f"{self.socket_dir} is too long a path for a Unix socket; "
                                "set paths.home to a shorter directory or hub.dsn to a server")
        self.pgdata.mkdir(mode=0o700, parents=True, exist_ok=True)
        if self.user:
            import pwd

            entry = pwd.getpwnam(self.user)
            os.chown(self.pgdata, entry.pw_uid, entry.pw_gid)
        self._run(["initdb", "-D", str(self.pgdata), "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                   "--locale=C"], timeout=120)
        with open(self.pgdata / "postgresql.conf", "a", encoding="utf-8") as conf:
            conf.write("\n# paperpilot: a small local index server\nmax_connections = 50\n"
                       "shared_buffers = 256MB\nmaintenance_work_mem = 512MB\n")

    def _ensure_database(self) -> None:
        import psycopg

        with psycopg.connect(self.dsn("postgres"), autocommit=True) as db:
            if db.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone() is None:
                db.execute(f"CREATE DATABASE {DATABASE}")

    def _ctl(self, args: list[str], timeout: float) -> None:
        self._run(["pg_ctl", "-D", str(self.pgdata), *args], timeout=timeout + 10)

    def _run(self, cmd: list[str], timeout: float) -> None:
        exe = [str(bin_dir() / cmd[0]), *cmd[1:]]
        kwargs = {"user": self.user, "group": _group_of(self.user), "extra_groups": []} if self.user else {}
        try:
            # output to a file, not a pipe: pg_ctl's server child inherits and would hold a pipe open
            with open(os.devnull, "rb") as devnull, _scratch() as out:
                proc = subprocess.run(exe, stdin=devnull, stdout=out, stderr=subprocess.STDOUT, timeout=timeout,
                                      cwd="/", **kwargs)
                out.seek(0)
                text = out.read().decode("utf-8", "replace")
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise EmbeddedError(f"{cmd[0]} failed: {exc}") from None
        if proc.returncode != 0:
            tail = text.strip().splitlines()[-3:]
            if self.log.exists():
                tail += self.log.read_text(errors="replace").strip().splitlines()[-3:]
            raise EmbeddedError(f"{cmd[0]} exited {proc.returncode}: " + " | ".join(tail))


def _scratch():
    import tempfile

    return tempfile.TemporaryFile()


def _group_of(user: str) -> int:
    import pwd

    return pwd.getpwnam(user).pw_gid


def _reachable_by_others(path: Path) -> bool:
    """Every directory from / down to ``path`` lets other users through (o+x)."""
    for p in [path, *path.parents]:
        try:
            if not p.stat().st_mode & 0o001:
                return False
        except OSError:
            return False
    return True
