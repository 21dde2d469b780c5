"""Knowledge-hub benchmarks: query latency by index size, ingestion speed, MCP session reuse.

    python bench/hub.py [--sizes 1000,10000,100000] [--queries 50] [--pdfs 8] [--fresh 3] [--encoders onnx,onnx-int8]
                        [--only embed|latency|first|ingest|mcp|backends|perdoc]
                        [--only first [--first-store FILE] [--restarts-only] [--baseline DIR] [--rounds N]]

Prints numbers; asserts nothing. Everything that embeds is measured once per encoder runtime
(``--encoders``, ONNX fp32 and int8 by default) in the same run, side by side, with the ratios. Synthetic chunks get random unit vectors (no embedding time in
the index build); query latency is reported for the search alone (query vector precomputed) and
end to end (query embedded by MiniLM). Goals from the issue: p95 ≤ 50 ms at 100k chunks,
≥ 20 pages/s ingestion without embedding, persistent MCP session ≥ 50× faster than a fresh one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("TQDM_DISABLE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")

import numpy as np  # noqa: E402

from core.hub.search import Searcher  # noqa: E402
from core.hub.store import EMBED_MODEL, HubStore  # noqa: E402

ENCODERS = ["onnx", "onnx-int8"]  # encoder runtimes measured side by side (--encoders)
QUERIES = ["What rank does LoRA use by default?", "4-bit NormalFloat double quantization memory",
           "how does DPO avoid a reward model", "Plan and execute agents replanning",
           "reflexion verbal feedback episodic memory", "attention heads scaled dot product",
           "retrieval augmented generation dense passage retriever", "tool use API calls self-supervised"]


def pct(xs: list[float], p: float) -> float:
    return float(np.percentile(np.asarray(xs), p))


def vocabulary() -> list[str]:
    import re

    words: set[str] = set()
    for f in (REPO / "core" / "hub" / "corpus").glob("*.md"):
        words |= set(re.findall(r"[a-z][a-z0-9-]{2,}", f.read_text(encoding="utf-8").lower()))
    return sorted(words)


def build_synthetic(path: Path, n: int, rng: random.Random) -> None:
    """n chunks of ~60 random corpus words, 100 per document, random unit vectors, one transaction."""
    store = HubStore(path)
    words = vocabulary()
    nrng = np.random.default_rng(0)
    with store.write() as db:
        store.ensure_collection(db, "bench")
        for d in range(n // 100):
            doc_id = f"syn{d:05d}"
            db.execute("INSERT INTO documents(doc_id, collection, path, doc_type, file_hash, version, title,"
                       " created_at, updated_at) VALUES(?, 'bench', ?, 'markdown', ?, 1, ?, 0, 0)",
                       (doc_id, f"/syn/{doc_id}.md", doc_id, f"Synthetic {d}"))
            vecs = nrng.standard_normal((100, 384)).astype(np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            for i in range(100):
                text = " ".join(rng.choices(words, k=60)) + "."
                cur = db.execute("INSERT INTO chunks(chunk_id, doc_id, collection, position, section_path, breadcrumb,"
                                 " page, text) VALUES(?, ?, 'bench', ?, '[]', ?, NULL, ?)",
                                 (f"{doc_id}_{i:04d}", doc_id, i, f"Synthetic {d} > S{i // 10}", text))
                db.execute("INSERT INTO chunks_fts(rowid, collection, title, breadcrumb, text) VALUES(?, 'bench', ?, ?, ?)",
                           (cur.lastrowid, f"Synthetic {d}", f"Synthetic {d} > S{i // 10}", text))
                db.execute("INSERT INTO embeddings(chunk_rowid, model, dim, vector) VALUES(?, ?, 384, ?)",
                           (cur.lastrowid, EMBED_MODEL, vecs[i].tobytes()))
        store.bump(db, "bench")
    store.close()


def bench_query_embedding(n: int) -> None:
    """One short query at a time, a fresh text each time (the hub caches repeated queries)."""
    from core import embeddings

    print("\n## Query embedding (MiniLM, one short query, fresh text each time), encoder runtimes side by side")
    print("(calls alternate between the runtimes, so both see the same load on a shared machine)")
    res: dict[str, list[float]] = {b: [] for b in ENCODERS}
    for b in ENCODERS:
        os.environ["PAPERPILOT_ENCODER"] = b
        t = time.perf_counter()
        embeddings.embed(["warm up"])
        print(f"{b:>10}: load {time.perf_counter() - t:5.2f} s")
    for i in range(n + 5):
        for b in ENCODERS:
            os.environ["PAPERPILOT_ENCODER"] = b
            t = time.perf_counter()
            embeddings.embed([f"{QUERIES[i % len(QUERIES)]} ({i})"])
            if i >= 5:
                res[b].append((time.perf_counter() - t) * 1e3)
    for b in ENCODERS:
        print(f"{b:>10}: p50 {pct(res[b], 50):6.2f} ms   p95 {pct(res[b], 95):6.2f} ms")
    if "torch" in res and "onnx" in res:
        print(f"torch/onnx: p50 {pct(res['torch'], 50) / pct(res['onnx'], 50):.1f}x"
              f"   p95 {pct(res['torch'], 95) / pct(res['onnx'], 95):.1f}x")


def bench_latency(sizes: list[int], n_queries: int, tmp: Path) -> None:
    from bench.hub_backends import measure
    from core.embeddings import embed

    qvecs = {q: v for q, v in zip(QUERIES, embed(QUERIES))}
    print("\n## Query latency (hybrid: in-memory BM25 (bm25s) + dense matrix scan + RRF, top_k=5)")
    print("synthetic chunks, random unit vectors for the dense matrix (no embedding time in the build)")
    print(f"{'chunks':>8} {'build s':>8} {'load s':>7} {'p50 ms':>7} {'p95 ms':>7} {'p95 lex':>8} {'p95 dense':>9}"
          + "".join(f" {'e2e ' + b:>13}" for b in ENCODERS))
    print(f"{'':>58}" + "".join(f" {'p50/p95 ms':>13}" for _ in ENCODERS))
    rng = random.Random(0)
    for n in sizes:
        db = tmp / f"bench-{n}.sqlite3"
        t = time.perf_counter()
        build_synthetic(db, n, rng)
        build = time.perf_counter() - t
        searcher = Searcher(HubStore(db), embed_query=lambda q: qvecs[q])
        t = time.perf_counter()
        searcher.matrix("bench")
        load = time.perf_counter() - t
        m = measure(searcher, QUERIES, n_queries)
        print(f"{n:>8} {build:>8.1f} {load:>7.2f} {m['p50']:>7.1f} {m['p95']:>7.1f} {m['lex95']:>8.1f}"
              f" {m['dense95']:>9.1f}", end="")
        for b in ENCODERS:
            os.environ["PAPERPILOT_ENCODER"] = b
            e2e = []
            e2e_searcher = Searcher(searcher.store)  # embeds each query with MiniLM, like the server
            e2e_searcher._matrices = searcher._matrices
            e2e_searcher._lexical = searcher._lexical
            for i in range(min(n_queries, 30)):  # fresh query text each time: MiniLM embeds it
                q = f"{QUERIES[i % len(QUERIES)]} variant {i}"
                t0 = time.perf_counter()
                e2e_searcher.search("bench", q, 5)
                e2e.append((time.perf_counter() - t0) * 1e3)
            print(f" {pct(e2e, 50):>6.1f}/{pct(e2e, 95):<6.1f}", end="")
        print()
        db.unlink(missing_ok=True)


def bench_per_doc(sizes: list[int], n_queries: int, tmp: Path) -> None:
    """A survey's first search (``per_doc=2``, top_k 8) against the plain search of 8, in one run: the
    cap reads the chunk rows of the whole fused ranking (both legs at full depth) to know their papers."""
    from core.embeddings import embed

    qvecs = {q: v for q, v in zip(QUERIES, embed(QUERIES))}
    print("\n## per_doc: a survey's first search (top_k=8, at most 2 chunks a document) against the plain top_k=8")
    print(f"{'chunks':>8} {'plain p50/p95 ms':>17} {'per_doc p50/p95 ms':>19} {'ratio p50':>9}")
    rng = random.Random(0)
    for n in sizes:
        db = tmp / f"bench-perdoc-{n}.sqlite3"
        build_synthetic(db, n, rng)
        searcher = Searcher(HubStore(db), embed_query=lambda q: qvecs[q])
        searcher.matrix("bench")
        times: dict[str, list[float]] = {"plain": [], "per_doc": []}
        for i in range(n_queries + 3):  # alternating, so both see the same machine
            q = QUERIES[i % len(QUERIES)]
            for label, cap in (("plain", None), ("per_doc", 2)):
                t0 = time.perf_counter()
                searcher.search("bench", q, 8, per_doc=cap)
                if i >= 3:
                    times[label].append((time.perf_counter() - t0) * 1e3)
        p, c = times["plain"], times["per_doc"]
        print(f"{n:>8} {pct(p, 50):>8.1f}/{pct(p, 95):<8.1f} {pct(c, 50):>9.1f}/{pct(c, 95):<9.1f}"
              f" {pct(c, 50) / pct(p, 50):>9.2f}")
        db.unlink(missing_ok=True)


FIRST_QUERY = r"""
import json, os, resource, sys, time
T0 = float(os.environ["BENCH_T0"])
from core.hub.search import Searcher
from core.hub.store import HubStore
hits = Searcher(HubStore(sys.argv[1])).search("bench", "attention heads scaled dot product", 5)
done = time.time() - T0
ru = resource.getrusage(resource.RUSAGE_SELF)
status = open("/proc/self/status").read()
kb = lambda key: int(status.split(key + ":")[1].split()[0]) // 1024
print(json.dumps({"first": done, "cpu": ru.ru_utime + ru.ru_stime, "hits": len(hits), "rss": kb("VmRSS"),
                  "peak": kb("VmHWM")}))
"""


def bench_first_query(n: int, tmp: Path, store: Path | None = None, restarts_only: bool = False,
                      baseline: Path | None = None, rounds: int = 2) -> None:
    """A hub process's first query on an existing store of ``n`` chunks: from the process's launch to
    its hits (imports, encoder load, index load, the query embedded by MiniLM), with its resident
    memory then (VmRSS, mapped file pages included) and at its peak (VmHWM). With ``baseline`` (a
    checkout of other code, e.g. ``git archive main``), every restart also runs that code, alternating,
    and the medians of both are compared: a same-run before/after."""
    import json
    import subprocess

    db = store or tmp / f"first-{n}.sqlite3"
    t = time.perf_counter()
    if not db.exists():
        build_synthetic(db, n, random.Random(0))
    print(f"\n## First query of a new hub process at {n} chunks (store {db}, ready in {time.perf_counter() - t:.0f} s)")
    print("in memory: PAPERPILOT_HUB_INDEX_FILES=off, every process reads the vectors out of SQLite and builds BM25")
    print("(as before core.hub.index_files); files, first: that process writes them; files, again: a restart maps them")
    print("CPU s: the process's CPU time (all threads) to its first hits: on a loaded machine the wall time is")
    print("mostly waiting for a core, the CPU time is the work. Restarts run once per encoder (--encoders), alternating.")
    print(f"load average at start {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'':>34} {'first query s':>13} {'CPU s':>6} {'RSS MB':>7} {'peak MB':>8}")
    codes = [("", REPO)] + ([(", baseline", baseline.resolve())] if baseline else [])

    def run(label: str, files: str, enc: str | None, cwd: Path, show: bool = True) -> dict:
        env = {**os.environ, "PAPERPILOT_HUB_INDEX_FILES": files, "BENCH_T0": f"{time.time():.6f}"}
        if enc:
            env["PAPERPILOT_ENCODER"] = enc
        out = subprocess.run([sys.executable, "-c", FIRST_QUERY, str(db)], capture_output=True, text=True,
                             env=env, cwd=cwd, timeout=1800)
        if out.returncode:
            raise SystemExit(f"first-query child failed: {out.stderr.strip()[-1000:]}")
        r = json.loads(out.stdout.strip().splitlines()[-1])
        if show:
            print(f"{label:>34} {r['first']:>13.2f} {r['cpu']:>6.2f} {r['rss']:>7} {r['peak']:>8}", flush=True)
        return r

    if not restarts_only:
        run("in memory", "off", None, REPO)
        run("files, first", "on", None, REPO)
    else:
        run("warm-up (writes missing files)", "on", ENCODERS[0], REPO, show=False)
    results: dict[str, list[dict]] = {}
    for i in range(rounds):
        order = codes if i % 2 == 0 else codes[::-1]
        for enc in ENCODERS:
            for tag, cwd in order:
                label = f"files, again, {enc}{tag}"
                results.setdefault(label, []).append(run(label, "on", enc, cwd))
    print(f"medians over {rounds} restarts:")
    for label, rs in results.items():
        med = {k: statistics.median(r[k] for r in rs) for k in ("first", "cpu", "rss", "peak")}
        print(f"{label:>34} {med['first']:>13.2f} {med['cpu']:>6.2f} {med['rss']:>7.0f} {med['peak']:>8.0f}")
    if baseline:
        for enc in ENCODERS:
            new, old = results[f"files, again, {enc}"], results[f"files, again, {enc}, baseline"]
            ratio = statistics.median(r["cpu"] for r in new) / statistics.median(r["cpu"] for r in old)
            print(f"{enc}: CPU s of a first query, this code / baseline = {ratio:.2f}")
    print(f"load average at end {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    if store is None:
        db.unlink(missing_ok=True)


def bench_backend_table(sizes: list[int], backends: list[str], n_queries: int, dsn: str | None, tmp: Path) -> None:
    """SQLite and PostgreSQL side by side (see bench/hub_backends.py); an embedded server unless ``dsn``."""
    from bench.hub_backends import bench_backends
    from core.embeddings import embed

    qvecs = {q: v for q, v in zip(QUERIES, embed(QUERIES))}
    cluster = None
    if "postgres" in backends and dsn is None:
        from core.hub.pg.embedded import Cluster

        (tmp / "pg").mkdir()
        tmp.chmod(0o711)
        (tmp / "pg").chmod(0o711)  # as root the server runs as nobody
        cluster = Cluster(tmp / "pg" / "data", user="nobody" if os.geteuid() == 0 else None)
        dsn = cluster.ensure_running().replace("/paperpilot?", "/postgres?")
    try:
        bench_backends(sizes, backends, QUERIES, qvecs, n_queries, tmp, dsn)
    finally:
        if cluster is not None:
            cluster.stop()


def bench_ingest(n_pdfs: int, tmp: Path) -> None:
    from bench.minipdf import write_pdf
    from core.hub.ingest import Ingestor

    words = vocabulary()
    rng = random.Random(1)
    folder = tmp / "pdfs"
    folder.mkdir()
    pages = 0
    for k in range(n_pdfs):
        write_pdf(folder / f"paper{k}.pdf", [f"{p + 1} Section {p + 1}\n" + " ".join(
            (" ".join(rng.choices(words, k=14)).capitalize() + ".") for _ in range(30)) for p in range(10)])
        pages += 10
    print("\n## Ingestion (generated text PDFs, 10 pages each, ~420 words a page)")
    runs = [(False, None)] + [(True, b) for b in ENCODERS]
    rates = {}
    for embed, b in runs:
        store = HubStore(tmp / f"ingest-{b}.sqlite3")
        if embed:
            os.environ["PAPERPILOT_ENCODER"] = b
            from core.embeddings import embed as warm

            warm(["warm up"])  # model load is not ingestion
        t = time.perf_counter()
        rep = Ingestor(store, embed=embed).ingest([folder], "bench")
        dt = time.perf_counter() - t
        label = f"with embedding, {b}" if embed else "without embedding"
        rates[b] = rep.pages / dt
        print(f"{label:>26}: {rep.pages} pages, {rep.chunks} chunks in {dt:.2f} s = {rep.pages / dt:.1f} pages/s"
              f" = {rep.chunks / dt:.1f} chunks/s")
    if "torch" in rates and "onnx" in rates:
        print(f"ingestion with embedding, onnx/torch: {rates['onnx'] / rates['torch']:.2f}x")

    texts = [f"{c['breadcrumb']}: {c['text']}" for c in _chunk_rows(tmp / f"ingest-{ENCODERS[0]}.sqlite3")]
    print(f"\n## Embedding throughput alone ({len(texts)} ingested chunks, batch 64, all cores)")
    tput = {}
    for b in ENCODERS:
        os.environ["PAPERPILOT_ENCODER"] = b
        from core.embeddings import embed as emb

        t = time.perf_counter()
        emb(texts)
        tput[b] = len(texts) / (time.perf_counter() - t)
        print(f"{b:>10}: {tput[b]:6.1f} texts/s")
    if "torch" in tput and "onnx" in tput:
        print(f"onnx/torch: {tput['onnx'] / tput['torch']:.2f}x")


def _chunk_rows(db: Path) -> list[dict]:
    import sqlite3

    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    rows = [dict(r) for r in conn.execute("SELECT breadcrumb, text FROM chunks")]
    conn.close()
    return rows


async def bench_sessions(n_persistent: int, n_fresh: int, home: Path) -> None:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    env = {**os.environ, "PAPERPILOT_HOME": str(home)}
    params = StdioServerParameters(command=sys.executable, args=["-m", "core.hub", "serve"], env=env, cwd=str(REPO))
    args = {"query": "What rank does LoRA use by default?", "top_k": 5}
    devnull = open(os.devnull, "w")
    print("\n## MCP: one persistent session vs a fresh server session per call (same query)")
    t = time.perf_counter()
    async with stdio_client(params, errlog=devnull) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            await s.call_tool("query_knowledge_hub", args)  # indexes the bundled notes on first start
            print(f"first start incl. indexing + model load: {time.perf_counter() - t:.1f} s")
            times = []
            for _ in range(n_persistent):
                t0 = time.perf_counter()
                await s.call_tool("query_knowledge_hub", args)
                times.append(time.perf_counter() - t0)
    fresh = []
    for _ in range(n_fresh):
        t0 = time.perf_counter()
        async with stdio_client(params, errlog=devnull) as (r, w):
            async with ClientSession(r, w) as s:
                await s.initialize()
                await s.call_tool("query_knowledge_hub", args)
        fresh.append(time.perf_counter() - t0)
    p, f = statistics.median(times), statistics.median(fresh)
    print(f"persistent session: median {p * 1e3:.1f} ms/call over {n_persistent} calls")
    print(f"fresh session:      median {f * 1e3:.0f} ms/call over {n_fresh} calls (spawn + initialize + model load)")
    print(f"persistent is {f / p:.0f}x faster")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--pdfs", type=int, default=8)
    ap.add_argument("--fresh", type=int, default=3)
    ap.add_argument("--only", choices=["embed", "latency", "first", "ingest", "mcp", "backends", "perdoc"], default=None)
    ap.add_argument("--first-size", type=int, default=100000, help="chunks in the store of the first-query table")
    ap.add_argument("--first-store", type=Path, help="keep the first-query store here (reused when it exists: "
                    "building 100k chunks takes minutes)")
    ap.add_argument("--restarts-only", action="store_true", help="first-query table: only restarts that map the files")
    ap.add_argument("--baseline", type=Path, help="first-query table: also run each restart with the code checked out"
                    " in this folder (e.g. `git archive main | tar -x -C DIR`), alternating: before/after in one run")
    ap.add_argument("--rounds", type=int, default=2, help="first-query table: restarts per encoder (medians)")
    ap.add_argument("--backend", default="sqlite",
                    help="sqlite, postgres or sqlite,postgres: with postgres, the backends table (bench/hub_backends.py)"
                         " at --sizes runs instead of the SQLite-only latency table")
    ap.add_argument("--dsn", default=None, help="PostgreSQL server for --backend postgres (default: an embedded one"
                                                " in a scratch dir, stopped at the end)")
    ap.add_argument("--encoders", default="onnx,onnx-int8",
                    help="encoder runtimes to compare (onnx, onnx-int8; torch with the train extra)")
    a = ap.parse_args()
    ENCODERS[:] = a.encoders.split(",")
    print(f"knowledge hub benchmark · {os.cpu_count()} CPUs · numpy {np.__version__}")
    with tempfile.TemporaryDirectory(prefix="pp-bench-hub-") as d:
        tmp = Path(d)
        if a.only in (None, "embed"):
            bench_query_embedding(a.queries)
        backends = a.backend.split(",")
        if a.only in (None, "latency") and backends == ["sqlite"]:
            bench_latency([int(x) for x in a.sizes.split(",")], a.queries, tmp)
        elif a.only in (None, "latency", "backends"):
            bench_backend_table([int(x) for x in a.sizes.split(",")], backends, a.queries, a.dsn, tmp)
        if a.only in (None, "perdoc"):
            bench_per_doc([int(x) for x in a.sizes.split(",")], a.queries, tmp)
        if a.only in (None, "first"):
            bench_first_query(a.first_size, tmp, a.first_store, a.restarts_only, a.baseline, a.rounds)
        if a.only in (None, "ingest"):
            bench_ingest(a.pdfs, tmp)
        if a.only in (None, "mcp"):
            os.environ["PAPERPILOT_ENCODER"] = ENCODERS[-1]  # the hub child follows this
            home = tmp / "home"
            home.mkdir()
            asyncio.run(bench_sessions(20, a.fresh, home))


if __name__ == "__main__":
    main()
