"""What belongs to this user: processes and private JSON files, checked before they are believed.

Other local users are strangers: a pid named in a state file counts only when it is a live process of
this user running the expected program (it may be signalled), and a state file only when it is a
regular file of this user that nobody else can read or write, checked on the opened file.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any


def _process(pid: int) -> tuple[int | None, str] | None:
    """(owner uid, command line) of a live process, or None when there is no such process."""
    proc = Path(f"/proc/{pid}")
    if proc.is_dir():
        try:
            if (proc / "stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X"):
                return None  # a zombie is gone
            uid = proc.stat().st_uid
            return uid, (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
        except (OSError, IndexError):
            return None
    if Path("/proc/self").is_dir():
        return None  # /proc exists, so the pid is gone
    try:  # no /proc (macOS): ask ps
        out = subprocess.run(["ps", "-o", "uid=,stat=,command=", "-p", str(pid)], capture_output=True, text=True,
                             timeout=5)
    except (OSError, subprocess.SubprocessError):
        return None
    fields = out.stdout.strip().split(None, 2)
    if out.returncode != 0 or len(fields) < 2 or fields[1].startswith("Z") or not fields[0].isdigit():
        return None
    return int(fields[0]), fields[2] if len(fields) > 2 else ""


def alive(pid: int) -> bool:
    return _process(pid) is not None


def runs(pid: int, marker: str) -> bool:
    """True when ``pid`` is alive, is this user's, and its command line contains ``marker``: a pid
    reused by another program, or any process of another user, never counts (it is never signalled)."""
    found = _process(pid)
    if found is None:
        return False
    uid, cmd = found
    return (not hasattr(os, "getuid") or uid == os.getuid()) and marker in cmd


def read_private_json(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The JSON object in ``path`` when it is a regular file of this user that nobody else can read
    or write (checked on the opened file, a symlink is not followed); else (None, why), or
    (None, None) when there is no file."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{path.name} could not be opened ({exc.strerror})"
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, f"{path.name} is not a regular file"
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            return None, f"{path.name} is owned by another user (uid {st.st_uid})"
        if st.st_mode & 0o077:
            return None, f"{path.name} was readable or writable by others"
        try:
            raw = json.loads(f.read(65536))
        except (OSError, ValueError):
            return None, f"{path.name} was unreadable"
    return (raw, None) if isinstance(raw, dict) else (None, f"{path.name} was malformed")


def write_private_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically, in a new file created 0600 (never an existing one)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        tmp.unlink()
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(data, f)
    os.replace(tmp, path)
