"""Ingestion: files → sectioned, sentence-respecting chunks (+ embeddings) in the hub store.

Unchanged files (same SHA-256 in the same collection) are skipped; a changed file keeps its
doc_id and becomes ``version + 1`` in one transaction, its previous versions kept (``keep_versions``).

:meth:`Ingestor.ingest` is a pipeline: files are parsed and chunked (in worker processes when there
are asked for, see :func:`parse_workers`) while the main process embeds the chunks of files
parsed before, in batches that span files (:data:`EMBED_BATCH` chunks: many small Markdown files make
one batch, not one tiny batch each). A document is written only once all its chunks have vectors:
its row, chunks, lexical rows and vectors go in one transaction, so a query never sees half a
document, and a killed ingest loses at most the batch in flight; the next run skips every document
already written (same hash) and does the rest. A file that cannot
be read is reported by name and skipped; the rest continue. The bundled paper notes are synced
into the ``default`` collection on server start (:func:`sync_bundled`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable

from core.hub.chunking import chunk_blocks, offline_summary
from core.limits import LimitExceeded, check_bytes, ingest_limit
from core.hub.readers import SUFFIXES, ParsedDoc, ReadError, read_document, reader_version, references_json
from core.hub.store import HubStore, NewChunk
from core.hub.versions import KEEP_VERSIONS
from core.redact import Redactor

log = logging.getLogger("paperpilot.hub")

CORPUS_DIR = Path(__file__).resolve().parent / "corpus"
DEFAULT_COLLECTION = "default"
SUMMARY_INPUT_CHARS = 6000  # what an LLM summary sees of a document (its opening sections)
EMBED_BATCH = 64  # chunks embedded (and documents then written) together, across files
# Texts per forward pass. On a CPU, MiniLM gains nothing from big batches: measured on this 2-core
# machine, 64 texts a pass cost ~35% more CPU per text than 1-8 (cache misses on the attention
# tensors), so the batch is embedded in small, length-sorted passes.
FORWARD_BATCH = 8
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def valid_collection(name: str) -> bool:
    return bool(_NAME.match(name or ""))


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    failed: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)
    pages: int = 0
    chunks: int = 0
    topic_error: str | None = None  # why the collection's topics could not be recomputed

    @property
    def ok(self) -> bool:
        return not self.failed


def expand_paths(paths: list[str | Path]) -> tuple[list[Path], list[tuple[str, str]]]:
    """Files to ingest (directories recursively, supported types only) and missing paths."""
    files: list[Path] = []
    missing: list[tuple[str, str]] = []
    for p in map(Path, paths):
        if p.is_dir():
            files += sorted(f for f in p.rglob("*") if f.is_file() and f.suffix.lower() in SUFFIXES)
        elif p.is_file():
            files.append(p)
        else:
            missing.append((str(p), "no such file or directory"))
    return files, missing


def file_hash(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class Parsed:
    """One file parsed and chunked (in a worker process or inline); ``error`` when it could not be read."""

    path: Path
    digest: str
    existed: bool
    doc: ParsedDoc | None = None
    chunks: list[NewChunk] = field(default_factory=list)
    offline_summary: str = ""
    error: str | None = None


def parse_file(path: Path, digest: str = "", existed: bool = False) -> Parsed:
    """Read and chunk one file; a read failure is returned, never raised (this runs in workers)."""
    try:
        doc = read_document(path)
    except ReadError as exc:
        return Parsed(path, digest, existed, error=str(exc))
    except OSError as exc:
        return Parsed(path, digest, existed, error=exc.strerror or type(exc).__name__)
    return Parsed(path, digest, existed, doc, chunk_blocks(doc.blocks), offline_summary(doc.blocks))


def parse_workers() -> int:
    """Worker processes for parsing: ``PAPERPILOT_INGEST_WORKERS`` (default 0: parse inline).

    Off by default: parsing is about a tenth of the work (pypdf ~70 pages/s against embedding
    ~5-10 pages/s), and on the 2-core machine this was measured on, a worker only takes a core from
    the embedder (the same run was slower with one worker than inline). On a machine with spare
    cores, ``PAPERPILOT_INGEST_WORKERS=2`` parses ahead in spawned processes."""
    env = os.environ.get("PAPERPILOT_INGEST_WORKERS")
    if env is not None and env.strip():
        return max(0, int(env))
    return 0


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:48] or "doc"


class Ingestor:
    """Writes documents into one store; ``embed=False`` leaves vectors for later (see backfill)."""

    def __init__(self, store: HubStore, embed: bool = True,
                 summarize: Callable[[str, str], str] | None = None, limits=None,
                 keep_versions: int = KEEP_VERSIONS, secrets: list[str] | None = None):
        """``summarize(title, text) -> summary`` (the LLM brain's, when configured) replaces the
        offline leading-sentences summary; failures fall back and are listed in ``summary_errors``.
        Every summary is scrubbed of ``secrets`` (the configured keys, :class:`core.redact.Redactor`)
        before it is stored: an LLM may repeat a key it was shown, and the hub database is not a
        place a key may rest.
        ``limits`` (:class:`core.config.LimitsSettings`, default its defaults) caps each file's size:
        a larger file is reported as failed, unread, and the rest continue."""
        from core.config import LimitsSettings

        self.limits = limits or LimitsSettings()
        self.keep_versions = keep_versions
        self.store = store
        self.embed = embed
        self.summarize = summarize
        self.summary_errors: list[str] = []
        self._redact = Redactor(secrets)
        self._reread: set[Path] = set()
        # Finer progress than one call per written file, for a bar that moves from the first second:
        # ``on_parsed(path, pages, chunks)`` once a file is read and chunked, ``on_embedded(path, n)``
        # as each slice of its chunks gets vectors (n of this call's chunks for that file).
        self.on_parsed: Callable[[Path, int, int], None] | None = None
        self.on_embedded: Callable[[Path, int], None] | None = None

    def doc_id_for(self, collection: str, path: str) -> str:
        old = self.store.document_by_path(collection, path)
        if old:
            return old["doc_id"]
        base = _slug(Path(path).stem)
        if not self.store.doc_id_taken(base):
            return base
        return f"{base}-{hashlib.sha1(f'{collection}:{path}'.encode()).hexdigest()[:6]}"

    def ingest_file(self, path: Path, collection: str, force: bool = False) -> tuple[str, str, int, int]:
        """Ingest one file → (status, doc_id, pages, chunks); status is added/updated/skipped."""
        rpath = str(path.resolve())
        digest = file_hash(path)
        old = self.store.document_by_path(collection, rpath)
        if self._unchanged(old, digest, path) and not force:
            return "skipped", old["doc_id"], 0, 0
        parsed = read_document(path)
        chunks = chunk_blocks(parsed.blocks)
        if self.embed and chunks:
            from core.embeddings import embed

            vecs = embed([f"{c.breadcrumb}: {c.text}" for c in chunks])
            for c, v in zip(chunks, vecs):
                c.vector = v
        doc_id = self.doc_id_for(collection, rpath)
        self.store.put_document({
            "doc_id": doc_id, "collection": collection, "path": rpath, "doc_type": parsed.doc_type,
            "file_hash": digest, "file_size": path.stat().st_size, "title": parsed.title,
            "authors": parsed.authors, "year": parsed.year, "pages": parsed.pages,
            "summary": self._summary(parsed), **parsed.library,
        }, chunks, self.keep_versions)
        self._mark_reader(doc_id, path)
        return ("updated" if old else "added"), doc_id, parsed.pages or 1, len(chunks)

    def _summary(self, parsed, offline: str | None = None) -> str:
        """The LLM's summary when one is configured, else (or on any failure) the leading sentences."""
        offline = offline_summary(parsed.blocks) if offline is None else offline
        if self.summarize is None:
            return self._redact.text(offline)
        text = "\n".join(b.text for b in parsed.blocks)[:SUMMARY_INPUT_CHARS]
        try:
            return self._redact.text(self.summarize(parsed.title, text).strip() or offline)
        except Exception as exc:  # noqa: BLE001 - a summary is never worth losing the document
            self.summary_errors.append(self._redact.text(f"{parsed.title}: {exc}".splitlines()[0][:200]))
            return self._redact.text(offline)

    def ingest(self, paths: list[str | Path], collection: str = DEFAULT_COLLECTION, force: bool = False,
               progress: Callable[[Path, str, int], None] | None = None, *,
               pipeline: bool = True, workers: int | None = None,
               meta: dict[str, dict] | None = None) -> IngestReport:
        """Ingest files and directories; a file's failure is collected, never raised. A PostgreSQL
        server that fails under the run ends it with :class:`~core.hub.pg.BackendError` (one line,
        how many files were written first).

        ``progress(path, status, pages)`` is called once per file, when it is written (or skipped,
        or failed). ``pipeline=False`` is the old one-file-at-a-time path (parse, embed, write),
        kept for the benchmark; ``workers`` overrides :func:`parse_workers`. ``meta`` maps a file's
        resolved path to what is known of it better than its text says (title, authors, year, url:
        a paper fetched from arXiv), stored over what parsing found.
        """
        report = IngestReport()
        try:
            return self._ingest(paths, collection, force, progress, pipeline, workers, meta, report)
        except Exception as exc:
            from core.hub.pg import store_fault

            if (fault := store_fault(exc, self.store)) is None:
                raise
            written = len(report.added) + len(report.updated)
            raise type(fault)(f"{fault}; {written} file(s) were written before it; run ingest again once the "
                              "server is back (unchanged files are skipped)") from None

    def _ingest(self, paths: list[str | Path], collection: str, force: bool,
                progress: Callable[[Path, str, int], None] | None, pipeline: bool, workers: int | None,
                meta: dict[str, dict] | None, report: IngestReport) -> IngestReport:
        files, report.failed = expand_paths(paths)
        if not pipeline:
            return self._refresh_topics(self._ingest_serial(files, collection, force, progress, report), collection)
        todo: list[tuple[Path, str, bool]] = []
        for f in files:
            try:
                self._check_size(f)
                digest = file_hash(f)
            except LimitExceeded as exc:
                self._failed(report, f, str(exc), progress)
                continue
            except OSError as exc:
                self._failed(report, f, exc.strerror or type(exc).__name__, progress)
                continue
            old = self.store.document_by_path(collection, str(f.resolve()))
            if self._unchanged(old, digest, f) and not force:
                report.skipped.append(old["doc_id"])
                if progress:
                    progress(f, "skipped", 0)
                continue
            todo.append((f, digest, old is not None))
        pending: list[Parsed] = []
        for item in self._parsed(todo, workers):
            if item.error is not None:
                self._failed(report, item.path, item.error, progress)
                continue
            pending.append(item)
            if self.on_parsed is not None:
                self.on_parsed(item.path, item.doc.pages or 1, len(item.chunks))
            if sum(len(p.chunks) for p in pending) >= EMBED_BATCH:
                self._write(pending, collection, report, progress, meta)
                pending = []
        self._write(pending, collection, report, progress, meta)
        return self._refresh_topics(report, collection)

    def _refresh_topics(self, report: IngestReport, collection: str) -> IngestReport:
        """Recompute the collection's topics when this run changed it (:mod:`core.hub.topics`);
        a failure here never fails the ingest: the hub recomputes on its next ``list_topics``."""
        if (report.added or report.updated) and self.embed:
            from core.hub import topics

            try:
                topics.current(self.store, collection)
            except Exception as exc:  # noqa: BLE001 - topics are derived data
                report.topic_error = f"{type(exc).__name__}: {exc}"
        if report.added or report.updated:
            self._refresh_citations(collection)
        return report

    def _refresh_citations(self, collection: str) -> None:
        """Rebuild the collection's citation graph (:mod:`core.hub.citegraph`) now rather than on the
        first read after the run; derived data, so a failure never fails the ingest."""
        from core.hub import citegraph

        try:
            citegraph.current(self.store, collection)
        except Exception:  # derived data: rebuilt on the next get_citations/get_lineage
            log.warning("citation graph of %s not rebuilt", collection, exc_info=True)

    def _parsed(self, todo: list[tuple[Path, str, bool]], workers: int | None):
        """Parsed files in order: inline, or from a pool of spawned workers that keeps a few files
        ahead of the embedder (a bounded window, so memory stays flat on a large library)."""
        n = parse_workers() if workers is None else workers
        if n <= 0 or len(todo) < 2:
            for f, digest, existed in todo:
                yield parse_file(f, digest, existed)
            return
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        # spawn, never fork: this process may already hold ONNX Runtime sessions and threads.
        pool = ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("spawn"))
        try:
            window: deque = deque()
            items = iter(todo)
            for args in items:
                window.append(pool.submit(parse_file, *args))
                if len(window) >= 2 * n + 2:
                    break
            while window:
                item = window.popleft().result()
                nxt = next(items, None)
                if nxt is not None:
                    window.append(pool.submit(parse_file, *nxt))
                yield item
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def _write(self, batch: list[Parsed], collection: str, report: IngestReport,
               progress: Callable[[Path, str, int], None] | None, meta: dict[str, dict] | None = None) -> None:
        """Embed a batch's chunks in one call, then write each document in its own transaction."""
        if not batch:
            return
        chunks = [c for p in batch for c in p.chunks]
        if self.embed and chunks:
            from core.embeddings import embed

            texts = [f"{c.breadcrumb}: {c.text}" for c in chunks]
            step = len(texts) if self.on_embedded is None else 2 * FORWARD_BATCH  # slices only when followed
            owners = [p.path for p in batch for _ in p.chunks]
            for i in range(0, len(texts), step):
                for c, v in zip(chunks[i:i + step], embed(texts[i:i + step], batch_size=FORWARD_BATCH)):
                    c.vector = v
                if self.on_embedded is not None:
                    for path in dict.fromkeys(owners[i:i + step]):
                        self.on_embedded(path, owners[i:i + step].count(path))
        for p in batch:
            doc = p.doc
            rpath = str(p.path.resolve())
            doc_id = self.doc_id_for(collection, rpath)
            try:
                size = p.path.stat().st_size
            except OSError as exc:
                self._failed(report, p.path, exc.strerror or type(exc).__name__, progress)
                continue
            self.store.put_document({
                "doc_id": doc_id, "collection": collection, "path": rpath, "doc_type": doc.doc_type,
                "file_hash": p.digest, "file_size": size, "title": doc.title,
                "authors": doc.authors, "year": doc.year, "pages": doc.pages,
                "summary": self._summary(doc, p.offline_summary), **doc.library, **(meta or {}).get(rpath, {}),
            }, p.chunks, self.keep_versions)
            status = "updated" if p.existed else "added"
            getattr(report, status).append(doc_id)
            report.pages += doc.pages or 1
            report.chunks += len(p.chunks)
            if progress:
                progress(p.path, f"updated: re-read by {reader_version(p.path)}" if p.path in self._reread else status,
                         doc.pages or 1)
            self._mark_reader(doc_id, p.path)
            if doc.doc_type == "pdf":  # a paper's parsed reference list, for its summary (and the library)
                self.store.set_meta(f"references:{doc_id}", references_json(doc.references))

    def _unchanged(self, old: dict | None, digest: str, path: Path) -> bool:
        """Same content, and read by this version of its type's reader (a PDF indexed by an older
        reader is read again; ``_reread`` remembers it for the progress line)."""
        if not _unchanged(old, digest):
            return False
        version = reader_version(path)
        if version and self.store.get_meta(f"reader:{old['doc_id']}") != version:
            self._reread.add(path)
            return False
        return True

    def _mark_reader(self, doc_id: str, path: Path) -> None:
        if version := reader_version(path):
            self.store.set_meta(f"reader:{doc_id}", version)
        self._reread.discard(path)

    def _check_size(self, path: Path) -> None:
        """:class:`LimitExceeded` for a file over its type's ingest limit (before it is even hashed)."""
        limit, setting = ingest_limit(path.suffix, self.limits)
        check_bytes(path.stat().st_size, limit, "the file", setting)

    @staticmethod
    def _failed(report: IngestReport, path: Path, reason: str, progress) -> None:
        report.failed.append((str(path), reason))
        if progress:
            progress(path, "failed", 0)

    def _ingest_serial(self, files: list[Path], collection: str, force: bool, progress,
                       report: IngestReport) -> IngestReport:
        """The old path: parse, embed and write one file at a time (for the benchmark)."""
        for f in files:
            pages = 0
            try:
                self._check_size(f)
                status, doc_id, pages, n = self.ingest_file(f, collection, force)
            except (ReadError, LimitExceeded) as exc:
                report.failed.append((str(f), str(exc)))
                status = "failed"
            except OSError as exc:
                report.failed.append((str(f), exc.strerror or type(exc).__name__))
                status = "failed"
            else:
                getattr(report, status).append(doc_id)
                report.pages += pages
                report.chunks += n
            if progress:
                progress(f, status, pages)
        return report


def _unchanged(old: dict | None, digest: str) -> bool:
    """The stored document is live and has this content (a deleted watched file that comes back is new)."""
    return bool(old) and old["file_hash"] == digest and not old.get("deleted_at")


def backfill_embeddings(store: HubStore, collection: str, batch: int = 256,
                        progress: Callable[[int, int], None] | None = None) -> int:
    """Embed chunks stored without a vector; returns how many were embedded. ``progress(done,
    total)`` is called before the first batch and after each one."""
    rows = store.missing_embeddings(collection)
    if not rows:
        return 0
    from core.embeddings import embed

    for i in range(0, len(rows), batch):
        if progress is not None:
            progress(i, len(rows))
        part = rows[i:i + batch]
        vecs = embed([f"{b}: {t}" for _, b, t in part])
        store.put_embeddings(collection, [(r[0], v) for r, v in zip(part, vecs)])
    if progress is not None:
        progress(len(rows), len(rows))
    return len(rows)


def sync_bundled(store: HubStore, corpus: Path = CORPUS_DIR, embed: bool = True) -> IngestReport:
    """Index new or changed bundled notes into ``default``; a note removed by the user stays removed.

    With ``embed=False`` the notes are searchable lexically at once; :func:`backfill_embeddings`
    adds their vectors afterwards.
    """
    ing = Ingestor(store, embed=embed)
    report = IngestReport()
    if not corpus.is_dir():
        return report
    for f in sorted(corpus.glob("*.md")):
        if f.name.lower() in {"readme.md", "index.md"}:
            continue
        key = f"bundled:{f.name}"
        digest = file_hash(f)
        if store.get_meta(key) == digest:
            continue
        try:
            status, doc_id, _, n = ing.ingest_file(f, DEFAULT_COLLECTION)
        except (ReadError, OSError) as exc:
            report.failed.append((str(f), str(exc)))
            continue
        getattr(report, status).append(doc_id)
        report.chunks += n
        store.set_meta(key, digest)
    if not store.has_collection(DEFAULT_COLLECTION):
        with store.write() as db:
            store.ensure_collection(db, DEFAULT_COLLECTION)
    return report
