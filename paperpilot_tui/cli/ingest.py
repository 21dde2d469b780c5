"""``paperpilot ingest PATH... [--collection NAME] [--force]``: add files to the knowledge hub."""

from __future__ import annotations

import argparse
import json
import sys
import time

from paperpilot_tui.cli.common import (EXIT_FAILED, EXIT_OK, EXIT_USAGE, clean, fail, load_settings_or_exit,
                                      say)

HELP = "add PDFs, Markdown, text, DOCX, PPTX, XLSX or CSV files (or folders, or arXiv papers) to the knowledge hub"
DESCRIPTION = """\
Index documents into a knowledge-hub collection: PDFs keep page numbers, Markdown/text/DOCX are split
by headings into sections (breadcrumbs like "QLoRA > Method > 4-bit NormalFloat"), PPTX by slide,
XLSX by sheet and CSV as one table (Markdown tables; every chunk repeats the header row). Scanned PDF
pages and images inside DOCX/PPTX files are OCRed ("scan > p. 3 > OCR"), figures on PDF pages that
have text only with hub.ocr: all (hub.ocr: auto|all|off).
Unchanged files are skipped; a changed file replaces its previous version. Document summaries are the
leading abstract/summary sentences, or the LLM's when the brain is one (llm.provider, or auto with an
API key; `paperpilot --offline ingest` never asks it). Files that cannot be read (corrupt, empty or
encrypted PDFs, ...) or are larger than limits.ingest_file_bytes (PDF, DOCX, PPTX; 100 MB) or
limits.ingest_text_bytes (Markdown, text, CSV; 10 MB) are reported by name and skipped; the rest continue.
arxiv:ID (e.g. arxiv:2106.09685) fetches the paper's PDF (arxiv.pdf_url) and its title, authors and year
(arxiv.api_url); its chunks carry them and the paper's arXiv URL. `--offline` fetches nothing.
A .bib file (BibTeX/BibLaTeX) or zotero:[PATH_TO_zotero.sqlite][#collection] (default
~/Zotero/zotero.sqlite) imports a reference library: each entry's PDF (a .bib `file` field, a Zotero
attachment) is indexed with the entry's title, authors, year, venue, DOI, arXiv id, citation key and
tags; an entry without a PDF is indexed from its abstract (marked abstract only). Re-importing an
unchanged library changes nothing. `paperpilot export bib` writes the collection back as BibTeX.

exit codes: 0 all files ingested or unchanged · 1 some file failed · 2 usage or config error
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ingest", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="files, folders (searched recursively) or arxiv:ID")
    p.add_argument("--collection", default="default", metavar="NAME", help="collection (default: default)")
    p.add_argument("--force", action="store_true", help="re-index files even when unchanged")
    p.add_argument("--no-embed", action="store_true",
                   help="skip embeddings now (the hub server embeds missing chunks when it starts)")
    p.add_argument("--json", action="store_true",
                   help="print the report as one JSON object")
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from core.hub.__main__ import quiet_environment

    quiet_environment()
    settings = load_settings_or_exit(args)
    from core.hub import ocr
    from core.hub.ingest import Ingestor, expand_paths, valid_collection
    from core.hub.pg import BackendError, open_store

    ocr.configure(settings.hub)

    if not valid_collection(args.collection):
        return fail(f"invalid collection name {args.collection!r} (letters, digits, '_', '-', '.')", EXIT_USAGE)
    refs = [p for p in args.paths if p.lower().startswith("arxiv:")]
    args.paths = [p for p in args.paths if p not in refs]
    libraries = _read_libraries(args, settings)
    if isinstance(libraries, int):
        return libraries
    fetched, unfetched = fetch_arxiv(refs, settings, getattr(args, "offline", False))
    args.paths += [str(path) for path, _ in fetched]
    files, _ = expand_paths(args.paths)
    try:
        store = open_store(settings)  # hub.backend: the SQLite file or PostgreSQL
    except BackendError as exc:
        return fail(str(exc), EXIT_FAILED)
    ingestor = Ingestor(store, embed=not args.no_embed, summarize=llm_summarizer(settings), limits=settings.limits,
                        keep_versions=settings.hub.keep_versions, secrets=settings.secrets())
    meta = {str(path.resolve()): info for path, info in fetched}
    try:
        report, seconds = _with_progress(ingestor, args, files, meta)
    except BackendError as exc:  # the PostgreSQL server failed mid-run
        return fail(str(exc), EXIT_FAILED)
    started = time.perf_counter()
    try:
        _import_libraries(ingestor, libraries, args, report)
    except BackendError as exc:
        return fail(str(exc), EXIT_FAILED)
    seconds += time.perf_counter() - started
    report.failed = unfetched + report.failed
    for path, reason in report.failed:
        say(f"paperpilot: skipped {clean(str(path), multiline=False)}: {reason}", file=sys.stderr)
    if ingestor.summary_errors:
        say(f"paperpilot: LLM summaries failed for {len(ingestor.summary_errors)} file(s), offline summaries "
              f"kept ({ingestor.summary_errors[0]})", file=sys.stderr)
    if args.json:
        say(json.dumps({"collection": args.collection, "added": report.added, "updated": report.updated,
                        "unchanged": report.skipped, "failed": [{"path": str(p), "reason": r} for p, r in report.failed],
                        "pages": report.pages, "chunks": report.chunks, "seconds": round(seconds, 2)},
                       ensure_ascii=False, indent=2))
        return EXIT_OK if report.ok else EXIT_FAILED
    say(f"collection {args.collection!r}: {len(report.added)} added, {len(report.updated)} updated, "
          f"{len(report.skipped)} unchanged, {len(report.failed)} failed "
          f"({report.pages} pages, {report.chunks} chunks in {seconds:.1f} s, "
          f"{report.pages / max(seconds, 1e-9):.2f} pages/s)")
    return EXIT_OK if report.ok else EXIT_FAILED


def _read_libraries(args: argparse.Namespace, settings):
    """Take the .bib and zotero: arguments out of ``args.paths`` and read them: [(entries, notes)],
    or the exit code after one line when one cannot be read (nothing is written then)."""
    from core.hub.library.importer import read_source
    from core.hub.library.metadata import LibraryError, is_library_source

    sources = [p for p in args.paths if is_library_source(p)]
    args.paths = [p for p in args.paths if p not in sources]
    out = []
    for arg in sources:
        try:
            out.append(read_source(arg, settings.limits.ingest_text_bytes))
        except LibraryError as exc:
            return fail(str(exc), EXIT_USAGE)
    return out


def _import_libraries(ingestor, libraries: list, args: argparse.Namespace, report) -> None:
    from core.hub.library.importer import import_entries, merge_reports

    for entries, notes in libraries:
        for note in notes:
            say(f"paperpilot: note: {clean(note, multiline=False)}", file=sys.stderr)
        merge_reports(report, import_entries(ingestor, entries, args.collection, force=args.force))


def fetch_arxiv(refs: list[str], settings, offline: bool):
    """The PDFs and metadata of the ``arxiv:ID`` arguments, and (ref, reason) for those not fetched."""
    if not refs:
        return [], []
    if offline:
        return [], [(ref, "not fetched: --offline allows no network") for ref in refs]
    from core.tools.arxiv import ArxivClient, fetch_papers

    client = ArxivClient(settings.arxiv.api_url, settings.arxiv.pdf_url, timeout=settings.arxiv.timeout,
                         deadline=settings.arxiv.download_deadline)
    return fetch_papers(refs, client, settings.paths.home_dir() / "arxiv", settings.limits.ingest_file_bytes)


def llm_summarizer(settings):
    """Document summaries from the configured OpenAI-compatible LLM, or None when offline."""
    if settings.llm.resolved_provider() != "openai":
        return None
    from core.brains.llm.chat import build_chat_model
    from core.prompts.summary import summary_messages

    model = build_chat_model(settings)

    def summarize(title: str, text: str) -> str:
        reply = model.invoke(summary_messages(title, text))
        return reply.content if isinstance(reply.content, str) else str(reply.content)

    return summarize


def _with_progress(ingestor, args: argparse.Namespace, files: list, meta: dict | None = None):
    """Ingest with a Rich progress bar on a terminal (files, pages/s, elapsed, ETA by bytes, counted by
    :class:`~paperpilot_tui.ingest_meter.IngestMeter`); nothing extra otherwise. Returns (report, seconds)."""
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import (BarColumn, Progress, ProgressColumn, TextColumn, TimeElapsedColumn,
                               TimeRemainingColumn)
    from rich.text import Text

    class PagesPerSecond(ProgressColumn):
        def render(self, task) -> Text:
            elapsed = task.elapsed or 0.0
            rate = task.fields["pages"] / elapsed if elapsed > 0 else 0.0
            return Text(f"{rate:.2f} pages/s", style="progress.data.speed")

    def _label(text: str) -> str:  # a file name in the bar: no terminal controls, no Rich markup
        return escape(clean(text, multiline=False))

    from core.hub import ocr
    from paperpilot_tui.ingest_meter import IngestMeter

    meter = IngestMeter(files)  # the app's ingest bar counts the same way
    console = Console(stderr=True)
    shown = len(files) >= 2 and console.is_terminal
    started = time.perf_counter()
    # ETA from bytes, not files: one 40-page PDF weighs more than a dozen Markdown notes. The bar
    # moves as each file is read and as its chunks get vectors, not only when a file is written.
    with Progress(TextColumn("[bold]ingest[/] {task.description}"), BarColumn(),
                  TextColumn("{task.fields[done]}/{task.fields[files]} files"), PagesPerSecond(),
                  TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=console,
                  transient=True, disable=not shown) as progress:
        task = progress.add_task("", total=meter.total, done=0, files=len(files), pages=0)

        def follow(record):
            def call(*args) -> None:
                record(*args)
                p = meter.now()
                progress.update(task, completed=p.fraction * meter.total, done=p.files_done, pages=p.pages,
                                description=_label(p.note))  # "scan.pdf: OCR p. 3/12", "b.pdf (added)"
            return call

        if shown:
            ingestor.on_parsed, ingestor.on_embedded = follow(meter.parsed), follow(meter.embedded)
        ocr.on_progress(follow(meter.ocr))
        try:
            report = ingestor.ingest(args.paths, args.collection, force=args.force, progress=follow(meter.step),
                                     meta=meta)
        finally:
            ocr.on_progress(None)
    return report, time.perf_counter() - started
