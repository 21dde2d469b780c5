"""Ingestion benchmark: the old one-file-at-a-time path against the pipeline, in the same run.

Corpus: the real-paper dev abstracts (Markdown, ``../shared/eval/realpapers/dev/docs`` when present)
plus generated multi-page text PDFs. Each path ingests the same files into a fresh database with
embeddings on the configured encoder (loaded and warmed before the clock starts):

- ``serial``: parse, embed and write one file at a time (``Ingestor.ingest(pipeline=False)``);
- ``pipeline, inline``: files parsed in this process, chunks embedded in batches that span files;
- ``pipeline, N workers``: the same with parsing in N spawned worker processes, overlapping embedding.

- ``--corpus DIR``: ingest the documents of DIR instead (the full-text dev PDFs, for example);
- ``--parse-only``: time only reading and chunking (the reader's pages/s, no embedding), per file.

Settings are the user's (``hub.ocr`` included), so the numbers are those of a default ingest.

    python bench/ingest.py [--pdfs 20] [--pages 6] [--workers 0,1] [--repeat 1] [--corpus DIR] [--parse-only]
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

DEV_DOCS = REPO.parent / "shared" / "eval" / "realpapers" / "dev" / "docs"
if not DEV_DOCS.is_dir():
    DEV_DOCS = Path("/work/shared/eval/realpapers/dev/docs")

WORDS = ("adapter rank memory gradient attention layer token model training dataset benchmark accuracy "
         "transformer encoder decoder sparse dense quantization precision batch optimizer learning rate "
         "retrieval context window pretraining finetuning evaluation baseline ablation parameter").split()


def make_pdfs(folder: Path, n: int, pages: int) -> None:
    from fpdf import FPDF

    rng = random.Random(1)
    folder.mkdir(parents=True, exist_ok=True)
    for k in range(n):
        pdf = FPDF()
        pdf.set_font("Helvetica", size=10)
        for p in range(pages):
            pdf.add_page()
            pdf.multi_cell(0, 5, f"{p + 1} Section {p + 1}\n" + " ".join(
                (" ".join(rng.choices(WORDS, k=14)).capitalize() + ".") for _ in range(30)))
        pdf.output(str(folder / f"paper{k:02d}.pdf"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pdfs", type=int, default=20)
    ap.add_argument("--pages", type=int, default=6)
    ap.add_argument("--workers", default="0,1", help="pipeline variants: parse workers (0 = inline)")
    ap.add_argument("--repeat", type=int, default=1, help="rounds (the order of paths alternates)")
    ap.add_argument("--corpus", type=Path, help="ingest this folder's documents instead of generated ones")
    ap.add_argument("--parse-only", action="store_true", help="time reading and chunking only (no embedding)")
    a = ap.parse_args()
    if a.corpus is not None and not a.corpus.is_dir():
        sys.exit(f"bench/ingest.py: --corpus {a.corpus}: no such folder")
    if a.parse_only:
        return parse_only(a.corpus or DEV_DOCS, a.repeat)

    from core.embeddings import backend, embed
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    with tempfile.TemporaryDirectory(prefix="pp-bench-ingest-") as d:
        tmp = Path(d)
        if a.corpus is not None:
            paths = [a.corpus]
        else:
            make_pdfs(tmp / "pdfs", a.pdfs, a.pages)
            paths = [tmp / "pdfs"] + ([DEV_DOCS] if DEV_DOCS.is_dir() else [])
        embed(["warm up"] * 8)  # model load (both sessions) is not ingestion
        embed(["warm up"])
        what = (f"{a.corpus}" if a.corpus is not None else f"{a.pdfs} PDFs x {a.pages} pages + "
                f"{len(list(DEV_DOCS.glob('*.md'))) if DEV_DOCS.is_dir() else 0} Markdown dev docs")
        print(f"ingestion benchmark · {os.cpu_count()} CPUs · encoder {backend()} · {what}")
        variants = [("serial (old path)", dict(pipeline=False))] + [
            (f"pipeline, {w} workers" if w else "pipeline, inline", dict(workers=w))
            for w in map(int, a.workers.split(","))]
        results: dict[str, list[tuple[int, int, float]]] = {name: [] for name, _ in variants}
        for r in range(a.repeat):
            for name, kw in (variants if r % 2 == 0 else variants[::-1]):
                db = tmp / f"{len(results[name])}-{name.split()[0]}-{kw.get('workers', 's')}.sqlite3"
                store = HubStore(db)
                t = time.perf_counter()
                rep = Ingestor(store, embed=True).ingest(paths, "bench", **kw)
                dt = time.perf_counter() - t
                assert rep.ok and not rep.skipped, rep.failed
                results[name].append((rep.pages, rep.chunks, dt))
                print(f"  round {r + 1}: {name}: {dt:.2f} s", flush=True)
                store.close()
        print(f"{'path':>22} {'pages':>6} {'chunks':>7} {'s':>7} {'pages/s':>8} {'chunks/s':>9}")
        base = None
        for name, runs in results.items():
            pages, chunks = runs[0][0], runs[0][1]
            dt = min(r[2] for r in runs)
            base = base or pages / dt
            print(f"{name:>22} {pages:>6} {chunks:>7} {dt:>7.2f} {pages / dt:>8.1f} {chunks / dt:>9.1f}"
                  f"  ({pages / dt / base:.2f}x)")


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
