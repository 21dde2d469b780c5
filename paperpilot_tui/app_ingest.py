"""``/ingest`` in the app: the hub's own ingestor, as ``paperpilot ingest`` runs it, in a worker thread.

It writes to the store the app's hub serves (the bundled hub's ``--db`` file, else the data dir's
hub database or PostgreSQL, as ``hub.backend`` says), so the hub sees the new documents at its next
query (its indexes follow the collection's revision) and the agent's vocabulary within seconds. A
hub reached over a network URL is another machine's store: ``/ingest`` then says to run
``paperpilot ingest`` where it runs. Progress comes from the ingestor's callbacks through an
:class:`~paperpilot_tui.ingest_meter.IngestMeter`, shown by an :class:`IngestBar` above the box.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import ProgressBar, Static

from core.hub.library.metadata import LibraryError
from paperpilot_tui.ingest_meter import IngestMeter
from paperpilot_tui.slash import SlashError

TICK_S = 0.25


class IngestBar(Vertical):
    """``ingest → mine  ▰▰▰▱▱ 40%  1/2 files · 12 pages · 3.41 pages/s · 0:07 · ETA 0:10 · …``."""

    DEFAULT_CSS = """
    IngestBar { height: auto; padding: 0 1; }
    IngestBar ProgressBar { width: 1fr; }
    IngestBar #ingest-line { height: auto; color: $text-muted; }
    """

    def __init__(self, meter: IngestMeter, collection: str) -> None:
        super().__init__(id="ingest-bar")
        self.meter, self.collection = meter, collection

    def compose(self) -> ComposeResult:
        yield ProgressBar(total=1000, show_eta=False, id="ingest-progress")
        yield Static("", id="ingest-line", markup=False)

    def on_mount(self) -> None:
        self.tick()
        self.set_interval(TICK_S, self.tick)

    def tick(self) -> None:
        p = self.meter.now()
        self.query_one(ProgressBar).update(progress=round(p.fraction * 1000))
        self.query_one("#ingest-line", Static).update(f"ingest → {self.collection}: {p.line()}")


def hub_database(settings: Any) -> str | None:
    """The SQLite file the app's bundled hub serves (its ``--db``), or None for the data dir's
    (``paths.hub_db``, or PostgreSQL); :class:`SlashError` for a hub reached over the network."""
    conn = settings.mcp.connections.get(settings.mcp.connection)
    if conn is None or conn.transport != "stdio" or "core.hub" not in conn.args:
        where = getattr(conn, "url", None) or settings.mcp.connection
        raise SlashError(f"/ingest writes to the bundled hub's store; this app asks {where}: "
                         "run `paperpilot ingest PATH` where that hub runs")
    args = list(conn.args)
    return args[args.index("--db") + 1] if "--db" in args[:-1] else None


def start_ingest(controller: Any, paths: list[str], collection: str) -> bool:
    """Check the request, show the bar and run the ingest in a worker thread (False: refused, said why).

    A ``.bib`` file or ``zotero:[PATH][#collection]`` imports a reference library, as
    ``paperpilot ingest`` does; a library that is not there is refused here, one that cannot be read
    is said in one line when the worker reads it, before anything is written."""
    from core.hub.ingest import expand_paths, valid_collection

    app = controller.app
    if not valid_collection(collection):
        raise SlashError(f"invalid collection name {collection!r} (letters, digits, '_', '-', '.')")
    db = hub_database(app.settings)
    libraries = [p for p in paths if _is_library(p)]
    for source in libraries:
        _check_library(source)
    local = [p for p in paths if not p.lower().startswith("arxiv:") and p not in libraries]
    files, missing = expand_paths(local)
    if missing and not files and len(local) == len(paths):
        raise SlashError(f"/ingest: {missing[0][0]}: {missing[0][1]}")
    if any(w.name == "ingest" and not w.is_finished for w in app.workers):
        raise SlashError("an ingest is running: wait for it to end (its bar is above the box)")
    meter = IngestMeter(files)
    chat = controller.chat
    chat.mount(IngestBar(meter, collection), before=chat.query_one("#slash-menu"))
    app.run_worker(_run(controller, app.settings, db, paths, collection, meter), name="ingest", group="ingest",
                   exit_on_error=False)
    return True


def _is_library(arg: str) -> bool:
    from core.hub.library.metadata import is_library_source

    return is_library_source(arg)


def _check_library(source: str) -> None:
    """:class:`SlashError` for a library source that is not there (a missing .bib, no Zotero database)."""
    if source.lower().startswith("zotero:"):
        from core.hub.library.zotero import parse_source

        db, _ = parse_source(source)
        if not db.is_file():
            raise SlashError(f"/ingest: no Zotero database at {db} (zotero:PATH_TO/zotero.sqlite[#collection])")
    elif not Path(source).expanduser().is_file():
        raise SlashError(f"/ingest: {source}: no such file")


async def _run(controller: Any, settings: Any, db: str | None, paths: list[str], collection: str,
               meter: IngestMeter) -> None:
    import asyncio

    started = time.perf_counter()
    try:
        report, summary_errors, notes = await asyncio.to_thread(ingest, settings, db, paths, collection, meter)
    except LibraryError as exc:  # read before anything is written: one line, nothing lost
        controller.say(f"/ingest: {exc}", warning=True)
        return
    except Exception as exc:  # noqa: BLE001 - the store failed: one line, the app goes on
        controller.failed("ingest failed", exc)
        return
    finally:
        for bar in controller.chat.query("#ingest-bar"):
            await bar.remove()
    seconds = time.perf_counter() - started
    for note in notes:
        controller.say(f"note: {note}")
    controller.say(summary_line(report, collection, seconds))
    for path, reason in report.failed:
        controller.say(f"skipped {Path(str(path)).name}: {reason}", warning=True)
    if summary_errors:
        controller.say(f"LLM summaries failed for {len(summary_errors)} file(s); offline summaries kept", warning=True)
    controller.changed()


def summary_line(report: Any, collection: str, seconds: float) -> str:
    """The CLI's summary line: counts, pages, chunks, time and pages/s with two decimals."""
    return (f"collection {collection!r}: {len(report.added)} added, {len(report.updated)} updated, "
            f"{len(report.skipped)} unchanged, {len(report.failed)} failed "
            f"({report.pages} pages, {report.chunks} chunks in {seconds:.1f} s, "
            f"{report.pages / max(seconds, 1e-9):.2f} pages/s)")


def ingest(settings: Any, db: str | None, paths: list[str], collection: str, meter: IngestMeter):
    """The ingest itself (blocking; a worker thread), in the CLI's order: the libraries are read first
    (:class:`LibraryError` before anything is written), arXiv papers fetched, the files ingested, then
    the libraries' entries imported. Returns (report, LLM summary errors, notes on the libraries)."""
    from core.hub import ocr
    from core.hub.ingest import Ingestor
    from core.hub.library.importer import import_entries, merge_reports, read_source
    from core.hub.pg import open_store
    from core.hub.store import HubStore
    from paperpilot_tui.cli.ingest import fetch_arxiv, llm_summarizer

    ocr.configure(settings.hub)
    sources = [p for p in paths if _is_library(p)]
    libraries = []
    for source in sources:
        meter.ocr(f"reading {Path(source).name if not source.lower().startswith('zotero:') else source}")
        libraries.append(read_source(source, settings.limits.ingest_text_bytes))
    meter.add([e.files[0].resolve() for entries, _ in libraries for e in entries if e.files])
    refs = [p for p in paths if p.lower().startswith("arxiv:")]
    if refs:
        meter.ocr(f"fetching {', '.join(refs)}")  # the user named them: fetched even in an offline session
    fetched, unfetched = fetch_arxiv(refs, settings, False)
    local = [p for p in paths if p not in refs and p not in sources] + [str(path) for path, _ in fetched]
    store = HubStore(Path(db).expanduser()) if db else open_store(settings)
    try:
        ingestor = Ingestor(store, embed=True, summarize=llm_summarizer(settings), limits=settings.limits,
                            keep_versions=settings.hub.keep_versions, secrets=settings.secrets())
        ingestor.on_parsed, ingestor.on_embedded = meter.parsed, meter.embedded
        ocr.on_progress(meter.ocr)
        try:
            report = ingestor.ingest(local, collection, progress=meter.step,
                                     meta={str(path.resolve()): info for path, info in fetched})
            for entries, _ in libraries:
                merge_reports(report, import_entries(ingestor, entries, collection, progress=meter.step))
        finally:
            ocr.on_progress(None)
    finally:
        store.close()
    report.failed = unfetched + report.failed
    return report, ingestor.summary_errors, [note for _, notes in libraries for note in notes]
