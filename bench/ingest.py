"""Ingestion benchmark: the old one-file-at-a-time path against the pipeline, in the same run.

Corpus: PDFs only, so "pages" are PDF pages: the 16 full-text dev PDFs
(``../shared/eval/fullpapers/dev/docs``) when present, else generated multi-page text PDFs (``bench/minipdf.py``:
no PDF library needed). Each path ingests the same files into a fresh database with embeddings on the
encoder (loaded and warmed before the clock starts); with ``--encoders onnx,onnx-int8`` every path
runs once per encoder, fp32 against int8 in one run. Times are medians over ``--repeat`` rounds
(the order alternates); CPU seconds are the process's (parse workers excluded); the load average is
printed before and after, since a loaded machine slows everything:

- ``serial``: parse, embed and write one file at a time (``Ingestor.ingest(pipeline=False)``);
- ``pipeline, inline``: files parsed in this process, chunks embedded in batches that span files;
- ``pipeline, N workers``: the same with parsing in N spawned worker processes, overlapping embedding.

- ``--corpus DIR``: ingest the documents of DIR instead (the full-text dev PDFs, for example);
- ``--parse-only``: time only reading and chunking (the reader's pages/s, no embedding), per file;
- ``--recall``: per encoder, also index the bundled notes in a fresh hub and report recall@5 on the
  labelled queries (``tests/data/retrieval_labels.jsonl``, the measure ``tests/hub/test_retrieval.py``
  uses), dense and hybrid: an int8 encoder is kept only if these and ``eval qa`` do not move;
- ``--recall-only``: that table alone, without the ingestion rounds.

Settings are the user's (``hub.ocr`` included), so the numbers are those of a default ingest.

    python bench/ingest.py [--pdfs 20] [--pages 6] [--workers 0,1] [--repeat 3] [--corpus DIR] [--parse-only]
                           [--encoders onnx,onnx-int8] [--generated] [--recall | --recall-only] [--no-serial]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEV_DOCS = REPO.parent / "shared" / "eval" / "fullpapers" / "dev" / "docs"
if not DEV_DOCS.is_dir():
    DEV_DOCS = Path("/work/shared/eval/fullpapers/dev/docs")

WORDS = ("adapter rank memory gradient attention layer token model training dataset benchmark accuracy "
         "transformer encoder decoder sparse dense quantization precision batch optimizer learning rate "
         "retrieval context window pretraining finetuning evaluation baseline ablation parameter").split()


def make_pdfs(folder: Path, n: int, pages: int) -> None:
    from bench.minipdf import write_pdf

    rng = random.Random(1)
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(n):
        write_pdf(folder / f"paper{k:02d}.pdf", [f"{p + 1} Section {p + 1}\n" + " ".join(
            (" ".join(rng.choices(WORDS, k=14)).capitalize() + ".") for _ in range(30)) for p in range(pages)])


def pdf_pages(paths: list[Path]) -> int:
    """PDF pages under ``paths`` (other documents are not pages)."""
    import pypdfium2

    files = [f for p in paths for f in ([p] if p.is_file() else sorted(p.rglob("*.pdf")))]
    total = 0
    for f in files:
        doc = pypdfium2.PdfDocument(str(f))
        total += len(doc)
        doc.close()
    return total


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    mid = len(xs) // 2
    return xs[mid] if len(xs) % 2 else (xs[mid - 1] + xs[mid]) / 2


def load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pdfs", type=int, default=20, help="generated PDFs (with --generated or without the dev PDFs)")
    ap.add_argument("--pages", type=int, default=6)
    ap.add_argument("--workers", default="0,1", help="pipeline variants: parse workers (0 = inline)")
    ap.add_argument("--repeat", type=int, default=3, help="rounds (the order of paths alternates); medians reported")
    ap.add_argument("--corpus", type=Path, help="ingest this folder's documents instead")
    ap.add_argument("--generated", action="store_true", help="generated PDFs even when the dev PDFs are present")
    ap.add_argument("--encoders", default="", help="comma-separated PAPERPILOT_ENCODER values to compare "
                    "(onnx, onnx-int8); default: the configured one")
    ap.add_argument("--parse-only", action="store_true", help="time reading and chunking only (no embedding)")
    ap.add_argument("--serial", action=argparse.BooleanOptionalAction, default=True,
                    help="include the old one-file-at-a-time path (--no-serial: the pipeline variants only)")
    ap.add_argument("--recall", action="store_true", help="also recall@5 on the labelled queries, per encoder")
    ap.add_argument("--recall-only", action="store_true", help="only recall@5 per encoder (no ingestion rounds)")
    a = ap.parse_args()
    if a.corpus is not None and not a.corpus.is_dir():
        sys.exit(f"bench/ingest.py: --corpus {a.corpus}: no such folder")
    if a.parse_only:
        return parse_only(a.corpus or DEV_DOCS, a.repeat)

    from core import embeddings
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    encoders = [e for e in a.encoders.split(",") if e] or [embeddings.requested()]
    with tempfile.TemporaryDirectory(prefix="pp-bench-ingest-") as d:
        tmp = Path(d)
        if a.recall_only:
            return recall_table(encoders, tmp)
        if a.corpus is not None:
            paths = [a.corpus]
        elif DEV_DOCS.is_dir() and not a.generated:
            paths = [DEV_DOCS]
        else:
            make_pdfs(tmp / "pdfs", a.pdfs, a.pages)
            paths = [tmp / "pdfs"]
        pages = pdf_pages(paths)
        for enc in encoders:
            os.environ["PAPERPILOT_ENCODER"] = enc
            embeddings.embed(["warm up"] * 8)  # model load (both sessions) is not ingestion
            embeddings.embed(["warm up"])
        print(f"ingestion benchmark · {os.cpu_count()} CPUs · load {load()} · encoders {', '.join(encoders)} · "
              f"{', '.join(map(str, paths))}: {pages} PDF pages")
        variants = [(f"{enc} {name}", enc, kw) for enc in encoders for name, kw in
                    [("serial (old path)", dict(pipeline=False))] * a.serial + [
                        (f"pipeline, {w} workers" if w else "pipeline, inline", dict(workers=w))
                        for w in map(int, a.workers.split(","))]]
        results: dict[str, list[tuple[int, float, float]]] = {name: [] for name, _, _ in variants}
        for r in range(a.repeat):
            for name, enc, kw in (variants if r % 2 == 0 else variants[::-1]):
                os.environ["PAPERPILOT_ENCODER"] = enc
                store = HubStore(tmp / f"{r}-{abs(hash(name))}.sqlite3")
                t, c = time.perf_counter(), time.process_time()
                rep = Ingestor(store, embed=True).ingest(paths, "bench", **kw)
                dt, cpu = time.perf_counter() - t, time.process_time() - c
                assert rep.ok and not rep.skipped, rep.failed
                results[name].append((rep.chunks, dt, cpu))
                print(f"  round {r + 1}: {name}: {dt:.2f} s", flush=True)
                store.close()
        print(f"load after: {load()}")
        print(f"{'path':>32} {'pages':>6} {'chunks':>7} {'median s':>9} {'pages/s':>8} {'CPU-ms/chunk':>13}")
        base = None
        for name, runs in results.items():
            chunks = runs[0][0]
            dt, cpu = median([r[1] for r in runs]), median([r[2] for r in runs])
            base = base or pages / dt
            print(f"{name:>32} {pages:>6} {chunks:>7} {dt:>9.2f} {pages / dt:>8.1f} {cpu * 1000 / max(chunks, 1):>13.1f}"
                  f"  ({pages / dt / base:.2f}x)")
        if a.recall:
            recall_table(encoders, tmp)


def recall_table(encoders: list[str], tmp: Path) -> None:
    for enc in encoders:
        os.environ["PAPERPILOT_ENCODER"] = enc
        dense, hybrid = bundled_recall(tmp / f"recall-{enc}")
        print(f"recall@5 on the labelled queries, {enc}: dense {dense:.3f}, hybrid {hybrid:.3f}", flush=True)


def bundled_recall(home: Path) -> tuple[float, float]:
    """(dense, hybrid) recall@5 of a fresh hub over the bundled notes, embedded by the current encoder."""
    from core.hub.service import Hub
    from tests.hub.retrieval_eval import load_labels, recall_at_k

    os.environ["PAPERPILOT_INDEX_CACHE"] = "off"  # index with this encoder, never copy another's index
    home.mkdir(parents=True)
    hub = Hub(home / "hub.sqlite3")
    hub.start(background=False)
    hub.wait_ready(dense=True)
    labels = load_labels()
    try:
        return recall_at_k(hub.searcher, labels, "dense"), recall_at_k(hub.searcher, labels, "hybrid")
    finally:
        hub.store.close()


def parse_only(corpus: Path, repeat: int) -> None:
    """Read and chunk every document of ``corpus`` (best of ``repeat`` rounds, CPU seconds)."""
    from core.config import load_settings
    from core.hub import ocr
    from core.hub.ingest import expand_paths, parse_file

    ocr.configure(load_settings().hub)
    files, _ = expand_paths([corpus])
    print(f"parse benchmark · {corpus} · {len(files)} files · hub.ocr: {ocr.options().mode}")
    best: dict[Path, tuple[float, int, int]] = {}
    for _ in range(repeat):
        for f in files:
            t = time.process_time()
            p = parse_file(f)
            dt = time.process_time() - t
            pages = (p.doc.pages or 1) if p.doc else 0
            if f not in best or dt < best[f][0]:
                best[f] = (dt, pages, len(p.chunks))
    total = sum(v[0] for v in best.values())
    pages = sum(v[1] for v in best.values())
    for f, (dt, n, chunks) in best.items():
        print(f"  {f.name:>40} {n:>4} pages {chunks:>5} chunks {dt:>7.2f} s")
    print(f"{pages} pages in {total:.2f} CPU-s: {pages / max(total, 1e-9):.1f} pages/s")


if __name__ == "__main__":
    main()
