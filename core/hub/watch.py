"""Watched folders: re-index a file shortly after it changes (``paperpilot hub watch``, ``hub.watch``).

A watchdog observer reports created, modified, closed, moved and deleted files under each folder.
Events only mark a path as touched; a worker thread indexes a path once it has been quiet for
``debounce`` seconds, so an editor's burst of writes (or its write-a-temp-file-then-rename) is
indexed once, as the final file. Indexing is incremental and goes through :class:`Ingestor`: an
unchanged file is skipped by its hash, a changed one becomes a new version (the old one is kept),
and a file that is gone is retired (:meth:`HubStore.retire_document`). Temporary and hidden files
(``.x.swp``, ``x~``, ``#x#``, ``.~lock``) and types the hub cannot read are ignored.

On start each folder is scanned once, so changes made while nothing watched are caught up.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler

from core.hub.ingest import Ingestor
from core.hub.readers import SUFFIXES
from core.hub.store import HubStore
from core.hub.versions import KEEP_VERSIONS

log = logging.getLogger("paperpilot.hub.watch")
TICK_S = 0.05

# report(path, status): status is added, updated, skipped, failed: <reason>, or removed
Report = Callable[[Path, str], None]


def wanted(path: Path) -> bool:
    """A file the hub indexes: a readable type, not an editor's temporary or hidden file."""
    name = path.name
    if name.startswith((".", "~", "#")) or name.endswith(("~", "#")):
        return False
    return path.suffix.lower() in SUFFIXES


class Watcher:
    """Watch ``dirs`` (folder, collection) and keep their documents indexed in ``store``."""

    def __init__(self, store: HubStore, dirs: list[tuple[str | Path, str]], *, debounce: float = 0.5,
                 keep_versions: int = KEEP_VERSIONS, embed: bool = True, report: Report | None = None):
        self.dirs = [(Path(d).expanduser().resolve(), c) for d, c in dirs]
        self.store = store
        self.debounce = debounce
        self.ingestor = Ingestor(store, embed=embed, keep_versions=keep_versions)
        self.report = report
        self._pending: dict[Path, float] = {}  # path → monotonic time of its last event
        self._scan: list[tuple[Path, str]] = []  # folders still to scan in full
        self._working = 0
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._observer = None
        self._thread: threading.Thread | None = None

    # -- life cycle --------------------------------------------------------------------------------
    def start(self, scan: bool = True) -> Watcher:
        """Start watching (and, with ``scan``, catch up on each folder first, in the background)."""
        from watchdog.observers import Observer

        for d, _ in self.dirs:
            if not d.is_dir():
                raise FileNotFoundError(f"not a folder: {d}")
        handler = _Handler(self)
        self._observer = Observer()
        for d, _ in self.dirs:
            self._observer.schedule(handler, str(d), recursive=True)
        self._observer.start()
        if scan:
            with self._cond:
                self._scan = list(self.dirs)
        self._thread = threading.Thread(target=self._run, name="hub-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
        if self._thread is not None:
            self._thread.join(timeout=30)

    def busy(self) -> int:
        """Files waiting or being indexed, plus folders still to scan (0 when idle)."""
        with self._cond:
            return len(self._pending) + self._working + len(self._scan)

    # -- events ------------------------------------------------------------------------------------
    def touch(self, path: str | bytes, directory: bool = False) -> None:
        """Something happened at ``path``: index it (or everything under it) once it is quiet."""
        p = Path(os.fsdecode(path))
        now = time.monotonic()
        with self._cond:
            if directory:  # a folder moved in, out or deleted: every file under it, and every document
                self._pending.update((f, now) for f in p.rglob("*") if f.is_file() and wanted(f))
                self._pending.update((Path(d["path"]), now) for d in self._documents_under(p))
            elif wanted(p):
                self._pending[p] = now
            self._cond.notify_all()

    def _documents_under(self, folder: Path) -> list[dict]:
        prefix = str(folder.resolve()) + os.sep
        return [d for _, c in self.dirs for d in self.store.documents(c) if d["path"].startswith(prefix)]

    def collection_of(self, path: Path) -> str | None:
        """The collection of the innermost watched folder that holds ``path``."""
        best = None
        for d, c in self.dirs:
            if path == d or d in path.parents:
                if best is None or len(d.parts) > len(best[0].parts):
                    best = (d, c)
        return best[1] if best else None

    # -- the worker --------------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            with self._cond:
                scan = self._scan[:1]
                due = [] if scan else self._due()
                if not scan and not due:
                    self._cond.wait(TICK_S if self._pending else 1.0)
                    continue
                for p in due:
                    del self._pending[p]
                self._working = len(due) or 1
            try:
                if scan:
                    self._sync(*scan[0])
                else:
                    self._index(due)
            except Exception:  # a watcher outlives a bad file or a locked database
                log.exception("watched-folder indexing failed")
            finally:
                with self._cond:
                    if scan:
                        self._scan.pop(0)
                    self._working = 0

    def _due(self) -> list[Path]:
        quiet = time.monotonic() - self.debounce
        return [p for p, t in self._pending.items() if t <= quiet]

    def _index(self, paths: list[Path]) -> None:
        by_collection: dict[str, list[Path]] = {}
        for p in paths:
            coll = self.collection_of(p.resolve())
            if coll is None:
                continue
            if p.is_file():
                by_collection.setdefault(coll, []).append(p)
            else:
                self._retire(p, coll)
        for coll, files in by_collection.items():
            self._ingest(files, coll)

    def _ingest(self, files: list[Path], collection: str) -> None:
        def progress(path: Path, status: str, _pages: int) -> None:
            if status != "failed" and self.report is not None:
                self.report(path, status)

        rep = self.ingestor.ingest(files, collection, progress=progress)
        for name, why in rep.failed:
            log.warning("could not index %s: %s", name, why)
            if self.report is not None:
                self.report(Path(name), f"failed: {why}")

    def _retire(self, path: Path, collection: str) -> None:
        doc = self.store.document_by_path(collection, str(path.resolve()))
        if doc is not None and self.store.retire_document(doc["doc_id"]) and self.report is not None:
            self.report(path, "removed")

    def _sync(self, folder: Path, collection: str) -> None:
        """Catch up on one folder: index new and changed files, retire documents whose file went."""
        files = sorted(f for f in folder.rglob("*") if f.is_file() and wanted(f))
        if files:
            self._ingest(files, collection)
        prefix = str(folder) + os.sep
        for d in self.store.documents(collection):
            if d["path"].startswith(prefix) and not Path(d["path"]).exists():
                self._retire(Path(d["path"]), collection)


class _Handler(FileSystemEventHandler):
    """Forwards every event's paths to :meth:`Watcher.touch`."""

    def __init__(self, watcher: Watcher):
        super().__init__()
        self.watcher = watcher

    def dispatch(self, event: FileSystemEvent) -> None:
        kind = event.event_type
        if kind in ("opened", "closed_no_write"):
            return
        directory = bool(event.is_directory)
        if directory and kind in ("modified", "closed"):
            return  # a folder's own metadata: its files report themselves
        self.watcher.touch(event.src_path, directory)
        dest = getattr(event, "dest_path", "")
        if dest:
            self.watcher.touch(dest, directory)
