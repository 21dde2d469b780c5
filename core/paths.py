"""Where PaperPilot keeps its files, and which of them it may trust.

All mutable data (SQLite stores, the hub index, adapters you train) lives under one data
directory: ``$PAPERPILOT_HOME`` when set, else the platform's user data dir (XDG on Linux).
The optional user config file lives in the platform's config dir, or ``$PAPERPILOT_HOME``.

Other local users are strangers. The data directory is used only when it is a directory of the
current user that nobody else can write to; a data file only when it is a regular file of the
current user (a new one is created 0600). Anything else raises :class:`~core.errors.UnsafePath`
with one line naming the path, the settings key where there is one, and what to do. Nothing
here ever changes the mode of a file or directory another user owns.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from core.errors import UnsafePath

APP = "paperpilot"


def _me() -> int | None:
    return os.getuid() if hasattr(os, "getuid") else None


def _label(path: Path, key: str | None) -> str:
    return f"{key}: {path}" if key else str(path)


def home() -> Path:
    """The data directory, created 0700 on first use; see :func:`data_dir`."""
    env = os.environ.get("PAPERPILOT_HOME")
    if env:
        return data_dir(Path(env).expanduser(), "PAPERPILOT_HOME")
    from platformdirs import user_data_path

    return data_dir(user_data_path(APP, appauthor=False))


def data_dir(path: Path, key: str | None = None) -> Path:
    """``path`` as a data directory: created 0700 when missing (the data holds questions, facts,
    traces); refused when it is not a directory, another user owns it or others can write to it."""
    path = Path(path)
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except FileExistsError:
        pass  # not a directory: said below
    except OSError as exc:
        raise UnsafePath(f"{_label(path, key)}: cannot create the data directory ({exc.strerror})") from None
    try:
        st = path.stat()
    except OSError as exc:
        raise UnsafePath(f"{_label(path, key)}: cannot use the data directory ({exc.strerror})") from None
    why = unsafe_dir(st)
    if why:
        raise UnsafePath(f"{_label(path, key)}: the data directory {why}")
    return path


def unsafe_dir(st: os.stat_result) -> str:
    """Why a directory with this status must not hold our files, or "" when it may."""
    me = _me()
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory; name a directory"
    if me is not None and st.st_uid != me:
        return f"is owned by another user (uid {st.st_uid}); use a directory of your own"
    if st.st_mode & 0o022:
        return f"can be written by other users (mode {stat.S_IMODE(st.st_mode):o}); chmod 700 it"
    return ""


def private_file(path: str | Path, key: str | None = None) -> Path:
    """``path`` as a private data file: created 0600 when missing (SQLite then gives its -wal and
    -shm files the same mode); an existing regular file of this user is tightened to 0600.

    Refused (:class:`UnsafePath`, naming ``key``): a directory or other non-regular file, a file
    another user owns, a folder that cannot be created or that others can write to. A missing
    folder is created 0700 only inside a folder of this user that others cannot write to.

    An existing file is never opened for reading or writing: POSIX record locks belong to the
    process, and closing any descriptor of a file drops every lock SQLite holds on it for this
    process's other connections (another process could then checkpoint and delete the WAL under
    them). It is inspected through an ``O_PATH`` descriptor, whose close drops no lock, so the
    file checked is the file tightened."""
    path = Path(path)
    _ensure_parent(path, key)
    try:
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0), 0o600))
        return path
    except FileExistsError:
        pass
    except OSError as exc:
        raise UnsafePath(f"{_label(path, key)}: cannot create it ({exc.strerror})") from None
    o_path = getattr(os, "O_PATH", None)
    try:
        if o_path is None:  # no O_PATH (macOS): check, then tighten by name
            _check_file(os.stat(path), path, key)
            if os.stat(path).st_mode & 0o077:
                os.chmod(path, 0o600)
            return path
        fd = os.open(path, o_path | os.O_CLOEXEC)
        try:
            st = os.fstat(fd)
            _check_file(st, path, key)
            if st.st_mode & 0o077:
                os.chmod(f"/proc/self/fd/{fd}", 0o600)  # the very inode checked above
        finally:
            os.close(fd)
    except OSError as exc:
        raise UnsafePath(f"{_label(path, key)}: cannot use it ({exc.strerror})") from None
    return path


def _check_file(st: os.stat_result, path: Path, key: str | None) -> None:
    me = _me()
    if stat.S_ISDIR(st.st_mode):
        raise UnsafePath(f"{_label(path, key)} is a directory; name a file in it")
    if not stat.S_ISREG(st.st_mode):
        raise UnsafePath(f"{_label(path, key)} is not a regular file; name a file")
    if me is not None and st.st_uid != me:
        raise UnsafePath(f"{_label(path, key)} is owned by another user (uid {st.st_uid}); name a file of your own")


def _ensure_parent(path: Path, key: str | None) -> None:
    """The file's folder exists (created 0700 under a safe folder of ours) and is safe."""
    parent = path.parent
    missing: list[Path] = []
    while True:
        try:
            st = parent.stat()
            break
        except FileNotFoundError:
            missing.append(parent)
            if parent.parent == parent:
                raise UnsafePath(f"{_label(path, key)}: its folder does not exist") from None
            parent = parent.parent
        except OSError as exc:
            raise UnsafePath(f"{_label(path, key)}: cannot reach its folder {parent} ({exc.strerror})") from None
    why = _unsafe_parent(st, creating=bool(missing))
    if why:
        raise UnsafePath(f"{_label(path, key)}: its folder {parent} {why}")
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
        except OSError as exc:
            raise UnsafePath(f"{_label(path, key)}: cannot create its folder {folder} ({exc.strerror})") from None
        why = unsafe_dir(folder.stat())
        if why:  # lost a race to someone else's folder
            raise UnsafePath(f"{_label(path, key)}: its folder {folder} {why}")


def _unsafe_parent(st: os.stat_result, *, creating: bool) -> str:
    """Why a folder may not hold our file (or, ``creating``, our new folders), or "" when it may:
    it must be a directory of this user or of root, and others may write to it only when it is
    sticky (as /tmp is: nobody else can then rename or remove what we put there)."""
    me = _me()
    fix = "create the folder yourself" if creating else "use a folder of your own"
    if not stat.S_ISDIR(st.st_mode):
        return "is not a directory"
    if me is not None and st.st_uid not in (me, 0):
        return f"is owned by another user (uid {st.st_uid}); {fix}"
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        return f"can be written by other users (mode {stat.S_IMODE(st.st_mode):o}); {fix}"
    return ""


def too_open(path: str | Path | None = None) -> str:
    """A warning when the data directory can be read or entered by other users, else ""."""
    path = Path(path) if path is not None else home()
    try:
        mode = path.stat().st_mode & 0o777
    except OSError:
        return ""
    if mode & 0o077:
        return (f"the data directory {path} is readable by other users (mode {mode:o}); "
                f"it holds your questions and facts: chmod 700 {path}")
    return ""


def user_config_file() -> Path:
    """The optional user settings file (it need not exist)."""
    env = os.environ.get("PAPERPILOT_HOME")
    if env:
        return Path(env).expanduser() / "settings.yaml"
    from platformdirs import user_config_path

    return user_config_path(APP, appauthor=False) / "settings.yaml"
