"""The per-user cache of built ONNX graphs: one folder shared by every data dir, files named by
the SHA-256 of their sources and recipe, each verified against the digest recorded when it was built.

``$PAPERPILOT_ONNX_CACHE`` overrides the folder; the default is the platform's user cache dir
(``~/.cache/paperpilot/onnx``), used only when it and its parent are the user's own and not writable by
others (a folder someone else can write into could hand us a graph to run); otherwise the data dir's
``models/onnx``. Builds run under a file lock, one at a time per process.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from contextlib import contextmanager
from pathlib import Path


class ExportUnavailable(RuntimeError):
    """No cached graph and it could not be built (the ``onnx``/``safetensors`` packages are missing, or the MiniLM weights)."""


def cache_dir() -> Path:
    """The graph cache: ``$PAPERPILOT_ONNX_CACHE``, else one per user (shared by every data dir)."""
    env = os.environ.get("PAPERPILOT_ONNX_CACHE")
    if env:
        path = Path(env).expanduser()
        path.mkdir(parents=True, exist_ok=True)
        return path
    from platformdirs import user_cache_dir

    shared = Path(user_cache_dir("paperpilot", appauthor=False)) / "onnx"
    if _private(shared):
        return shared
    from core.paths import home

    path = home() / "models" / "onnx"
    path.mkdir(parents=True, exist_ok=True)
    return path


def shared_dir(name: str) -> Path | None:
    """The per-user cache's sibling folder ``name`` (next to ``onnx``), or None when it is not private."""
    from platformdirs import user_cache_dir

    return private_dir(Path(user_cache_dir("paperpilot", appauthor=False)) / name)


def private_dir(path: Path) -> Path | None:
    """``path`` (created 0700) when it and its parent are this user's and not writable by others, else None."""
    return path if _private(path) else None


def _private(path: Path) -> bool:
    """Create ``path`` (0700) if missing; use it only if it and its parent are ours and not writable
    by others (a cache someone else can write into could hand us a graph to run)."""
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        for p in (path, path.parent):
            st = p.lstat()
            if not os.path.isdir(p) or os.path.islink(p) or st.st_uid != os.getuid() or st.st_mode & 0o022:
                return False
        return True
    except (OSError, AttributeError):  # AttributeError: no getuid (Windows): the data dir is used
        return False


_digest_lock = threading.Lock()


def file_digest(path: Path) -> str:
    """SHA-256 of a file, memoised in the cache by (path, size, mtime) so a start-up does not re-read 90 MB."""
    st = path.stat()
    key = f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}"
    memo = cache_dir() / "digests.json"
    with _digest_lock:
        try:
            known = json.loads(memo.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
        if isinstance(known, dict) and isinstance(known.get(key), str):
            return known[key]
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        known = known if isinstance(known, dict) else {}
        known[key] = h.hexdigest()
        tmp = memo.with_suffix(f".{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(known, indent=0), encoding="utf-8")
            os.replace(tmp, memo)
        except OSError:
            tmp.unlink(missing_ok=True)
        return known[key]


def fingerprint(files: list[Path], recipe: str) -> str:
    h = hashlib.sha256(recipe.encode())
    for f in files:
        h.update(f.name.encode() + b"\0" + file_digest(f).encode())
    return h.hexdigest()[:16]


@contextmanager
def _locked(name: str):
    """An exclusive lock file in the cache (no-op where fcntl is missing: atomic renames still keep files whole)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    with open(cache_dir() / f".{name}.lock", "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


# One build at a time in a process: the encoder and the router may both need theirs on a fresh cache,
# from two threads; each build holds the 90 MB of weights in memory.
_export_lock = threading.Lock()


def _sidecar(out: Path) -> Path:
    return out.with_name(out.name + ".sha256")


def _verified(out: Path) -> bool:
    """The cached graph exists and its SHA-256 is the one recorded when it was built."""
    try:
        return out.exists() and _sidecar(out).read_text(encoding="utf-8").strip() == file_digest(out)
    except OSError:
        return False


def ensure(out: Path, build) -> Path:
    """``out``, built by ``build(out)`` unless a verified copy is cached."""
    if _verified(out):
        return out
    import importlib.util

    missing = [m for m in ("onnx", "safetensors") if importlib.util.find_spec(m) is None]
    if missing:
        raise ExportUnavailable(f"no cached ONNX graph {out.name} in {out.parent} and the {' and '.join(missing)} "
                                "package is not installed to build it: pip install " + " ".join(missing))
    with _export_lock, _locked(out.stem):
        if not _verified(out):  # another thread or process may have built it while we waited
            build(out)
            side = _sidecar(out).with_suffix(f".{os.getpid()}.tmp")
            side.write_text(file_digest(out) + "\n", encoding="utf-8")
            os.replace(side, _sidecar(out))
    return out
