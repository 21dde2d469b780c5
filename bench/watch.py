"""How soon a change in a watched folder is answerable: real daemon, real files, real queries.

    python bench/watch.py [--runs 5] [--home DIR] [--debounce 0.5] [--keep]

Starts ``paperpilot hub start`` in a private data home whose settings watch a temporary folder
(``hub.watch``), waits for the hub to be ready, then per run:

* **pdf**: writes a new PDF (fpdf2, as the tests do) holding a word made up for the run;
* **md edit**: rewrites a watched Markdown file the way editors do (a temp file renamed over it),
  changing a made-up word;

and measures the time from the end of the write to the first ``query_knowledge_hub`` answer (over
the daemon's MCP session, polled every 50 ms) whose hits contain the new word. Afterwards it shows
that the Markdown file's version 1 is still found with ``version=1`` and runs ``paperpilot ask
"what changed between version 1 and 2 of …"`` against the daemon. Everything it starts is stopped.
``--home DIR`` reuses a data home whose hub is already indexed (a fresh one embeds the bundled notes first).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
CLI = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
POLL_S = 0.05
DEADLINE_S = 60.0


def cli(home: Path, cfg: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CLI, "--config", str(cfg), *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, "PAPERPILOT_HOME": str(home)})


def make_pdf(path: Path, word: str) -> None:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_title(f"Study of {word}")
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(180, 7, f"Method. The {word} adapter freezes the base model and trains a rank 8 update. "
                           f"Results. The {word} adapter matches full fine-tuning on five benchmarks.")
    tmp = path.with_name(f".{path.name}.part")
    pdf.output(str(tmp))
    os.replace(tmp, path)  # as a download or a copy finishes: the file appears whole


def write_md(path: Path, word: str, rank: int) -> None:
    tmp = path.with_name(f".{path.name}.swp")
    tmp.write_text(f"# Glimmer notes\n\n## Method\nGlimmer adapters use rank {rank}. "
                   f"The {word} schedule warms up for 100 steps.\n\n## Results\nGlimmer adapters match full "
                   f"fine-tuning on GLUE.\n")
    os.replace(tmp, path)


async def wait_for(client, query: str, word: str, **scope) -> float:
    """Seconds until a search for ``query`` returns a hit containing ``word``."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < DEADLINE_S:
        try:
            hits = await client.search(query, 5, "watched", **scope)
        except Exception:  # noqa: BLE001 - "unknown collection" until the first file is indexed
            hits = []
        if any(word in h.content for h in hits):
            return time.perf_counter() - t0
        await asyncio.sleep(POLL_S)
    raise TimeoutError(f"{word!r} not found within {DEADLINE_S:.0f} s")


async def measure(folder: Path, cfg: Path, runs: int) -> tuple[list[tuple[str, int, float]], str]:
    from core.config import load_settings
    from core.tools.hub_client import HubClient

    rows: list[tuple[str, int, float]] = []
    note = folder / "glimmer.md"
    async with HubClient(load_settings(cfg).mcp) as client:
        if "daemon" not in client.describe:
            raise RuntimeError(f"not connected to the daemon: {client.describe}")
        first = f"zq{uuid.uuid4().hex[:8]}"
        write_md(note, first, 4)
        await wait_for(client, "glimmer schedule warms up", first)
        for run in range(1, runs + 1):
            word = f"zp{uuid.uuid4().hex[:8]}"
            make_pdf(folder / f"study-{run}.pdf", word)
            rows.append(("pdf", run, await wait_for(client, f"{word} adapter", word)))
            word = f"zm{uuid.uuid4().hex[:8]}"
            write_md(note, word, 4 + run)
            rows.append(("md edit", run, await wait_for(client, "glimmer schedule warms up", word)))
        old = await client.search("glimmer schedule warms up", 5, "watched", version=1)
        v1 = next((h for h in old if first in h.content), None)
        check = (f"version=1 query: {'found' if v1 else 'NOT found'} the first text ({first!r}, rank 4)"
                 + (f" in {v1.chunk_id}" if v1 else ""))
    return rows, check


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--home", type=Path, default=None, help="a data home to use (default: a fresh temporary one)")
    ap.add_argument("--debounce", type=float, default=0.5)
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    work = Path(tempfile.mkdtemp(prefix="pp-bench-watch-"))
    home = args.home or work / "home"
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder = work / "inbox"
    folder.mkdir()
    cfg = work / "settings.yaml"
    cfg.write_text(f"hub:\n  watch: [{{path: {folder}, collection: watched}}]\n  debounce: {args.debounce}\n  keep_versions: 20\n")
    os.environ["PAPERPILOT_HOME"] = str(home)
    t0 = time.perf_counter()
    out = cli(home, cfg, "hub", "start", timeout=600)
    if out.returncode != 0:
        print(out.stdout + out.stderr, file=sys.stderr)
        return 1
    print(f"daemon started in {time.perf_counter() - t0:.1f} s; watching {folder} (debounce {args.debounce} s)")
    try:
        rows, check = asyncio.run(measure(folder, cfg, args.runs))
        print(f"\n{'change':<8} {'run':>3} {'write → first hit':>18}")
        for kind, run, s in rows:
            print(f"{kind:<8} {run:>3} {s:>16.2f} s")
        for kind in ("pdf", "md edit"):
            xs = [s for k, _, s in rows if k == kind]
            print(f"{kind}: median {statistics.median(xs):.2f} s, max {max(xs):.2f} s over {len(xs)} runs; "
                  f"within 5 s: {sum(x <= 5 for x in xs)}/{len(xs)}")
        print(check)
        question = "What changed between version 1 and 2 of glimmer notes?"
        ask = cli(home, cfg, "--offline", "ask", "--collection", "watched", question)
        print(f"\n$ paperpilot ask --collection watched {question!r}  (exit {ask.returncode})\n{ask.stdout}{ask.stderr[-2000:]}")
    finally:
        cli(home, cfg, "hub", "stop", timeout=60)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
