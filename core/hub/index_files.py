"""A collection's search indexes as files beside the hub database, read through memory maps.

Building the dense matrix and the BM25 index of a large collection takes longer than a query should
wait (reading 100k vectors out of SQLite, tokenizing and stemming 100k chunks), and holding them
doubles the process's memory. So each is written once per collection revision into
``hub-index/`` beside ``hub.sqlite3`` (0700, files 0600) and every later hub process maps it (``np.load(mmap_mode="r")``,
``lexical.LexicalIndex.load``, numpy over bm25s's files): the first query of a restarted hub pages in only what it reads, and the
pages are the OS's file cache, shared and evictable, not the process's heap.

A file set is named by the collection, the store's ``index_id`` (a random id kept in the store's meta,
so a new database at the same path never reads an old one's files) and the revision; files of older
revisions are removed when a new one is written. Scoped indexes (an older version, ``as_of``) and
stores that are not SQLite files (PostgreSQL) are built in memory as before.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import threading
import uuid
from pathlib import Path

import numpy as np

_lock = threading.Lock()


def folder(store) -> Path | None:
    """The store's index folder (created 0700), or None for a store that is not a SQLite file or when
    ``PAPERPILOT_HUB_INDEX_FILES=off`` (indexes built in memory by every process, as ``bench/hub.py``
    measures)."""
    path = getattr(store, "path", None)
    if not isinstance(path, Path) or os.environ.get("PAPERPILOT_HUB_INDEX_FILES", "").lower() in ("off", "0"):
        return None
    where = path.with_name(f"{path.stem}-index")  # not ``hub.sqlite3*``: copying the store's files leaves it
    try:
        where.mkdir(mode=0o700, exist_ok=True)
        st = where.lstat()
        if where.is_symlink() or st.st_uid != os.getuid() or st.st_mode & 0o077:
            return None
    except (OSError, AttributeError):
        return None
    return where


def _prefix(store, collection: str) -> str:
    ident = store.get_meta("index_id")
    if not ident:
        with _lock:
            ident = store.get_meta("index_id")
            if not ident:
                ident = uuid.uuid4().hex
                store.set_meta("index_id", ident)
    return f"{hashlib.sha256(collection.encode()).hexdigest()[:12]}-{ident[:12]}"


def _replace_old(where: Path, prefix: str, keep: str) -> None:
    """Remove the collection's files of other revisions."""
    for p in where.glob(f"{prefix}-r*"):
        if not p.name.startswith(keep + "."):
            shutil.rmtree(p) if p.is_dir() else p.unlink(missing_ok=True)


def dense(store, collection: str) -> tuple[np.ndarray, np.ndarray]:
    """(rowids, float32 matrix) of the collection's embedded current chunks, as
    :meth:`core.hub.store.HubStore.embedding_matrix` gives them, mapped from the revision's file."""
    where = folder(store)
    if where is None:
        return store.embedding_matrix(collection)
    prefix = _prefix(store, collection)
    tag = f"{prefix}-r{store.revision(collection)}"
    ids_f, mat_f = where / f"{tag}.ids.npy", where / f"{tag}.vec.npy"
    try:
        ids, mat = np.load(ids_f), np.load(mat_f, mmap_mode="r")
        if mat.ndim == 2 and len(ids) == len(mat) and mat.dtype == np.float32:
            return ids, mat
    except (OSError, ValueError):
        pass
    rev, ids, mat = store.embedding_snapshot(collection)
    tag = f"{prefix}-r{rev}"
    ids_f, mat_f = where / f"{tag}.ids.npy", where / f"{tag}.vec.npy"
    tmp = f".{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        for f, arr in ((mat_f, mat), (ids_f, ids)):
            with open(os.open(str(f) + tmp, os.O_CREAT | os.O_TRUNC | os.O_WRONLY, 0o600), "wb") as out:
                np.save(out, arr, allow_pickle=False)
            os.replace(str(f) + tmp, f)
        _replace_old(where, prefix, tag)
    except OSError:
        for f in (ids_f, mat_f):
            Path(str(f) + tmp).unlink(missing_ok=True)
        return ids, mat
    return ids, np.load(mat_f, mmap_mode="r")


def lexical(store, collection: str, stop: frozenset[str], build):
    """The collection's BM25 index: loaded (memory-mapped) from the revision's files, else ``build()``
    (a :class:`core.hub.lexical.LexicalIndex`) and written for the next process."""
    from core.hub.lexical import LexicalIndex

    where = folder(store)
    if where is None:
        return build()
    prefix = _prefix(store, collection)
    rev = store.revision(collection)
    tag = f"{prefix}-r{rev}"
    saved = where / f"{tag}.bm25"
    if (saved / "ids.npy").exists():
        try:
            return LexicalIndex.load(saved, stop)
        except (OSError, ValueError, KeyError):
            pass
    index = build()
    if not len(index.ids) or store.revision(collection) != rev:
        return index  # empty, or the collection moved while it was built: the next revision's files
    tmp = where / f".{tag}.bm25.{os.getpid()}.{threading.get_ident()}.tmp"
    try:
        index.save(tmp)
        os.replace(tmp, saved)
        _replace_old(where, prefix, tag)
    except OSError:
        shutil.rmtree(tmp, ignore_errors=True)
    return index
