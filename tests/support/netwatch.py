"""Run a command and list every network connection or name lookup it tried that leaves the machine.

``strace -f`` records each ``connect``, ``sendto`` and ``sendmsg`` of the command and of every process
it starts; an address counts as foreign unless it is loopback (127.0.0.0/8, ::1), and any packet to
port 53 or any connection to a resolver's socket (systemd-resolved, nscd) counts as a lookup, even on
loopback. Where ``unshare -n`` works (root), the command runs in an empty network namespace too, so an
attempt fails at once instead of waiting on the network, and is still recorded. Plain Python, no
pytest: the fault suite reuses it.
"""

from __future__ import annotations

import ipaddress
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

_INET = re.compile(r'sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)')
_INET6 = re.compile(r'sa_family=AF_INET6, sin6_port=htons\((\d+)\).*?inet_pton\(AF_INET6, "([^"]+)"')
_UNIX = re.compile(r'sa_family=AF_UNIX, sun_path=@?"([^"]+)"')
_RESOLVER_SOCKETS = ("resolve", "nscd")
_NOBODY_THERE = re.compile(r"= -1 (ENOENT|ECONNREFUSED)\b")


def available() -> str | None:
    """None when the watcher can run here; otherwise why not."""
    if shutil.which("strace") is None:
        return "strace is not installed"
    probe = subprocess.run(["strace", "-f", "-e", "trace=connect", "-o", os.devnull, "true"],
                           capture_output=True, text=True)
    if probe.returncode != 0:
        return f"strace cannot trace here: {probe.stderr.strip()[:200]}"
    return None


def _isolated() -> list[str]:
    """``unshare -n`` when it works here (an empty network namespace), else nothing."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n"]
    return []


def foreign(line: str) -> str | None:
    """What in one strace line leaves the machine or looks up a name; None for loopback and the rest."""
    if not re.search(r"\b(connect|sendto|sendmsg)\(", line):
        return None
    for pattern in (_INET, _INET6):
        for port, addr in pattern.findall(line):
            if int(port) == 53:
                return f"DNS lookup via {addr}:53"
            try:
                if not ipaddress.ip_address(addr).is_loopback:
                    return f"connection to {addr}:{port}"
            except ValueError:
                return f"connection to {addr}:{port}"
    for path in _UNIX.findall(line):
        # A resolver daemon that is not there (ENOENT, ECONNREFUSED) was asked nothing: glibc then
        # reads its files (passwd, for a user-name lookup) or asks DNS itself, which port 53 catches.
        if any(name in path for name in _RESOLVER_SOCKETS) and not _NOBODY_THERE.search(line):
            return f"name lookup through {path}"
    return None


@dataclass
class Watched:
    returncode: int
    stdout: str
    stderr: str
    foreign: list[str] = field(default_factory=list)  # one line each: what was tried, then the strace line


def watch(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 300,
          cwd: str | Path | None = None) -> Watched:
    """Run ``cmd`` under strace (in an empty network namespace where allowed); its result and every
    foreign connection or lookup it or its children tried."""
    with tempfile.TemporaryDirectory(prefix="netwatch-") as tmp:
        log = Path(tmp) / "trace"
        run = subprocess.run([*_isolated(), "strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg",
                              "-o", str(log), *cmd], env=env, cwd=cwd, capture_output=True, text=True,
                             timeout=timeout)
        found = []
        for line in log.read_text(errors="replace").splitlines():
            if (what := foreign(line)) is not None:
                found.append(f"{what}: {line.strip()[:300]}")
    return Watched(run.returncode, run.stdout, run.stderr, found)


def foreign_connections(cmd: list[str], env: dict[str, str] | None = None, timeout: float = 300,
                        cwd: str | Path | None = None) -> list[str]:
    """:func:`watch`'s foreign connections and lookups only."""
    return watch(cmd, env, timeout, cwd).foreign
