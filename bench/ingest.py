"""Ingestion benchmark: the old one-file-at-a-time path against the pipeline, in the same run.

Corpus: the real-paper dev abstracts (Markdown, ``../shared/eval/realpapers/dev/docs`` when present)
plus generated multi-page text PDFs. Each path ingests the same files into a fresh database with
embeddings on the configured encoder (loaded and warmed before the clock starts):

- ``serial``: parse, embed and write one file at a time (``Ingestor.ingest(pipeline=False)``);
- ``pipeline, inline``: files parsed in this process, chunks embedded in batches that span files;
- ``pipeline, N workers``: the same with parsing in N spawned worker processes, overlapping embedding.

    python bench/ingest.py [--pdfs 20] [--pages 6] [--workers 0,1] [--repeat 1]
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
    a = ap.parse_args()

    from core.embeddings import backend, embed
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    with tempfile.TemporaryDirectory(prefix="pp-bench-ingest-") as d:
        tmp = Path(d)
        make_pdfs(tmp / "pdfs", a.pdfs, a.pages)
        paths = [tmp / "pdfs"] + ([DEV_DOCS] if DEV_DOCS.is_dir() else [])
        embed(["warm up"] * 8)  # model load (both sessions) is not ingestion
        embed(["warm up"])
        print(f"ingestion benchmark · {os.cpu_count()} CPUs · encoder {backend()} · "
              f"{a.pdfs} PDFs x {a.pages} pages + {len(list(DEV_DOCS.glob('*.md'))) if DEV_DOCS.is_dir() else 0}"
              " Markdown dev docs")
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


if __name__ == "__main__":
    main()
