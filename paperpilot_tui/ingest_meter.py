"""How far an ingest has come, from the hub ingestor's progress calls: what the app's bar shows.

Work is counted in bytes, as the CLI's bar does (one 40-page PDF weighs more than a dozen notes).
A file counts :data:`READ_SHARE` of its weight once it is read and chunked, the rest as its chunks
get vectors, and all of it once it is written (or skipped, or failed). Pages count as they are
embedded, so pages/s moves with the work rather than jumping when a batch is written.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

READ_SHARE = 0.2


@dataclass(frozen=True)
class Progress:
    fraction: float  # 0..1 of the bytes' work
    files_done: int
    files: int
    pages: float
    pages_per_s: float
    elapsed_s: float
    eta_s: float | None  # None until something is done
    note: str  # what is happening now ("reading a.pdf", "a.pdf: OCR p. 3/12")

    def line(self) -> str:
        """``1/3 files · 12 pages · 3.41 pages/s · 0:07 · ETA 0:19 · reading b.pdf``."""
        eta = "-:--" if self.eta_s is None else _clock(self.eta_s)
        return (f"{self.files_done}/{self.files} files · {int(self.pages)} pages · {self.pages_per_s:.2f} pages/s"
                f" · {_clock(self.elapsed_s)} · ETA {eta}" + (f" · {self.note}" if self.note else ""))


def _locked(method):
    def run(self, *args):
        with self.lock:
            return method(self, *args)
    return run


def _clock(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m // 60}:{m % 60:02d}:{s:02d}" if m >= 60 else f"{m}:{s:02d}"


class IngestMeter:
    """Fed by :class:`core.hub.ingest.Ingestor`'s callbacks (from its thread); read by the app."""

    def __init__(self, files: list[Path], clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self.started = clock()
        self.weight = {str(f): _size(f) for f in files}
        self.total = sum(self.weight.values()) or 1
        self.files = len(files)
        self._done: dict[str, float] = {}  # path -> share of its weight done (0..1)
        self._chunks: dict[str, tuple[int, int]] = {}  # path -> (pages, chunks) once read
        self._embedded: dict[str, int] = {}
        self.written = 0
        self.pages = 0.0
        self.note = f"reading {Path(files[0]).name}" if files else ""
        self.lock = threading.Lock()  # the ingest thread writes, the app's timer reads

    @_locked
    def add(self, files: list[Path]) -> None:
        """More files to come (a library's PDFs, known once it is read)."""
        for f in files:
            if str(f) not in self.weight:
                self.weight[str(f)] = _size(f)
                self.files += 1
        self.total = sum(self.weight.values()) or 1

    @_locked
    def parsed(self, path: Path, pages: int, chunks: int) -> None:
        key = str(path)
        self._chunks[key] = (pages, chunks)
        self._done[key] = READ_SHARE if chunks else 1.0
        self.note = f"embedding {path.name}"

    @_locked
    def embedded(self, path: Path, n: int) -> None:
        key = str(path)
        pages, chunks = self._chunks.get(key, (0, 0))
        before = self._embedded.get(key, 0)
        now = min(before + n, chunks)
        self._embedded[key] = now
        if chunks:
            self._done[key] = READ_SHARE + (1 - READ_SHARE) * now / chunks
            self.pages += pages * (now - before) / chunks

    @_locked
    def step(self, path: Path, status: str, pages: int) -> None:
        """The ingestor's per-file ``progress(path, status, pages)``: written, skipped or failed."""
        key = str(path)
        known, chunks = self._chunks.get(key, (0, 0))
        if status not in ("skipped", "failed") and pages and chunks == 0:
            self.pages += pages  # no vectors were reported for it (nothing to embed)
        elif chunks and self._embedded.get(key, 0) < chunks:
            self.pages += known * (chunks - self._embedded.get(key, 0)) / chunks
        self._done[key] = 1.0
        self.written += 1
        self.note = f"{path.name} ({status})"

    @_locked
    def ocr(self, note: str) -> None:
        self.note = note

    def now(self) -> Progress:
        with self.lock:
            return self._now()

    def _now(self) -> Progress:
        elapsed = max(self._clock() - self.started, 0.0)
        fraction = min(sum(self.weight.get(k, 1) * d for k, d in self._done.items()) / self.total, 1.0)
        eta = elapsed * (1 - fraction) / fraction if fraction > 0 else None
        rate = self.pages / elapsed if elapsed > 0 else 0.0
        return Progress(fraction, self.written, self.files, self.pages, rate, elapsed, eta, self.note)


def _size(path: Path) -> int:
    try:
        return Path(path).stat().st_size or 1
    except OSError:
        return 1
