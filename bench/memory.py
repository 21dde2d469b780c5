"""Benchmark the state stores: fact recall at 10k facts, checkpoint write per turn, trace write per turn.

    python bench/memory.py [--facts 10000] [--turns 30]

Prints numbers only (median and p95 in milliseconds); the targets live in the issue, not here.
Filler facts get random unit vectors (the recall cost does not depend on what the vectors say) and
are inserted directly, so the run takes seconds instead of embedding 10k sentences; the queries and
a handful of real facts go through the real MiniLM encoder, once per encoder runtime (torch and
ONNX side by side in the same run, ``--encoders``).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's core, as bench/hub.py does
os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np

WORDS = ("lora adapter rank attention transformer quantization memory gradient optimizer adam dpo rlhf "
         "reward policy retrieval chunk index embedding tokenizer decoder encoder layer head dropout "
         "batch learning rate warmup scaling law perplexity benchmark dataset instruction tuning "
         "preference critic planner react rewoo chain thought reasoning agent tool vector sparse dense").split()
QUESTIONS = ["What is LoRA?", "How much memory does QLoRA save?", "How does DPO differ from RLHF?",
             "What does self-attention compute?", "Which optimizer does the paper use?",
             "How are chunks ranked in hybrid retrieval?", "What is a ReAct agent?", "Explain scaling laws."]


def ms(xs: list[float]) -> str:
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
    return f"median {statistics.median(xs) * 1000:7.2f} ms   p95 {p95 * 1000:7.2f} ms   (n={len(xs)})"


def fill(db: Path, n: int) -> None:
    """Insert n filler facts with random unit vectors in one transaction (triggers keep FTS in step)."""
    from core.memory.db import StateDB
    from core.memory.text import keywords, normalize
    from core.memory.vectors import to_blob

    rng = np.random.default_rng(0)
    rnd = random.Random(0)
    vecs = rng.standard_normal((n, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    sdb, now = StateDB(db), time.time()
    with sdb.write() as conn:
        rows = []
        for i in range(n):
            text = f"Fact {i}: " + " ".join(rnd.choice(WORDS) for _ in range(14)) + "."
            rows.append((text, normalize(text), " ".join(keywords(text)), to_blob(vecs[i]), now - n + i, now - n + i))
        conn.executemany("INSERT INTO facts (content, norm, keywords, embedding, created, updated)"
                         " VALUES (?, ?, ?, ?, ?, ?)", rows)
    sdb.close()


def side_by_side(rows: list[tuple[str, dict[str, list[float]]]], backends: list[str]) -> None:
    """One line per measurement: median (p95) in ms for each encoder runtime, and torch/onnx ratios."""
    head = "".join(f"{b:>24}" for b in backends)
    ratio = "torch/onnx" if {"torch", "onnx"} <= set(backends) else ""
    print(f"{'':44}{head}  {ratio}")
    for label, by in rows:
        cells = "".join(f"{statistics.median(by[b]) * 1e3:>11.2f} ({pct95(by[b]) * 1e3:8.2f}) ms" for b in backends)
        r = f"  {statistics.median(by['torch']) / statistics.median(by['onnx']):>6.1f}x" if ratio else ""
        print(f"{label:44}{cells}{r}")


def pct95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def bench_recall(tmp: Path, n: int, backends: list[str]) -> None:
    from core import embeddings
    from core.config import MemorySettings
    from core.memory.facts import FactStore

    db = tmp / "facts.sqlite3"
    t = time.perf_counter()
    fill(db, n)
    print(f"fill {n} facts (bench setup)              {time.perf_counter() - t:7.2f} s")
    load: dict[str, list[float]] = {}
    for b in backends:  # before anything embeds: the first use loads the runtime
        os.environ["PAPERPILOT_ENCODER"] = b
        t = time.perf_counter()
        embeddings.embed(["warm up the encoder"])
        load[b] = [time.perf_counter() - t]
    os.environ["PAPERPILOT_ENCODER"] = backends[0]
    store = FactStore(db, MemorySettings(max_facts=max(n * 2, 10)))
    store.memorize_sync(["LoRA freezes the pretrained weights and trains low-rank update matrices.",
                         "QLoRA fine-tunes a 65B model on one 48GB GPU with 4-bit NF4 quantization."], "q", "s")
    t = time.perf_counter()
    store._index.gen = -1
    with store.db.read() as conn:
        store._index.sync(conn)
    print(f"embedding matrix load at {len(store._index)} facts          {(time.perf_counter() - t) * 1000:7.2f} ms")

    qvecs = {q: embeddings.embed([q])[0] for q in QUESTIONS}
    cached = FactStore(db, store.settings, embedder=lambda texts: np.stack([qvecs[x] for x in texts]))
    cached.search_sync(QUESTIONS[0], 3)  # matrix load
    store_t, browse_t = [], []
    for i in range(200):
        q = QUESTIONS[i % len(QUESTIONS)]
        t = time.perf_counter()
        cached.search_sync(q, 3, touch=True)
        store_t.append(time.perf_counter() - t)
        t = time.perf_counter()
        cached.search_sync(q, 3, touch=False)
        browse_t.append(time.perf_counter() - t)
    print(f"recall @{n}: store (FTS+cosine+bookkeeping)  {ms(store_t)}")
    print(f"recall @{n}: store, no recall_count update  {ms(browse_t)}")
    top = cached.search_sync(QUESTIONS[0], 1, False)
    print(f"  top hit for {QUESTIONS[0]!r}: {top[0].content[:60] if top else None!r}")

    # Everything that embeds, once per encoder runtime, in this one process (PAPERPILOT_ENCODER is
    # read on every call; each runtime is loaded once).
    emb: dict[str, list[float]] = {}
    full: dict[str, list[float]] = {}
    mem: dict[str, list[float]] = {}

    async def recalls() -> list[float]:  # one event loop, as the app runs recall (to_thread inside)
        out = []
        for i in range(60):
            t = time.perf_counter()
            await store.recall(f"{QUESTIONS[i % len(QUESTIONS)]} [{i}]", 3)
            out.append(time.perf_counter() - t)
        return out

    for b in backends:
        os.environ["PAPERPILOT_ENCODER"] = b
        emb[b], mem[b] = [], []
        for i in range(60):
            q = f"{QUESTIONS[i % len(QUESTIONS)]} ({i})"  # a fresh text each time
            t = time.perf_counter()
            embeddings.embed([q])
            emb[b].append(time.perf_counter() - t)
        full[b] = asyncio.run(recalls())
        for i in range(20):
            t = time.perf_counter()
            store.memorize_sync([f"New fact {b} {i}: adapters of rank {i} cut optimizer memory by {i + 2}x."], "q", "s")
            mem[b].append(time.perf_counter() - t)
    print(f"\n## encoder runtimes side by side, same run: {', '.join(backends)}")
    side_by_side([("encoder load (first use, lazy)", load),
                  ("recall: query embedding (MiniLM, 1 text)", emb),
                  (f"recall @{n}: end to end (async, + embedding)", full),
                  (f"memorize 1 fact @{n} (embed + dedup + cap)", mem)], backends)
    store.close(), cached.close()


async def bench_checkpoints(tmp: Path, turns: int) -> None:
    """A graph over the real AgentState, with the node count of a simple turn, with and without the saver."""
    from langchain_core.messages import AIMessage
    from langgraph.graph import END, START, StateGraph

    from core.memory.checkpoints import open_checkpointer
    from core.state import AgentState, RetrievedContext, turn_input

    nodes = ["load_memory", "route", "slot_fill", "simple", "critic", "save_memory", "format_output"]
    chunks = [RetrievedContext(content="lorem ipsum " * 90, chunk_id=f"c{i}", doc_id="d", title="T") for i in range(5)]

    def make(name: str):
        def node(state: AgentState) -> dict:
            upd: dict = {"next_action": name}
            if name == "simple":
                upd.update(retrieved_contexts=chunks, draft_answer="An answer of some length. " * 20)
            if name == "format_output":
                upd.update(final_answer=state.draft_answer, messages=[AIMessage(content=state.draft_answer)])
            return upd
        return node

    g = StateGraph(AgentState)
    for name in nodes:
        g.add_node(name, make(name))
    for a, b in zip([START] + nodes, nodes + [END]):
        g.add_edge(a, b)

    async def run(graph, label: str) -> list[float]:
        out = []
        for i in range(turns):
            inp = turn_input(f"Question {i} about LoRA?", f"t{i}", max_retries=2, max_react_steps=5)
            t = time.perf_counter()
            await graph.ainvoke(inp, {"configurable": {"thread_id": label}})
            out.append(time.perf_counter() - t)
        return out

    bare = await run(g.compile(), "bare")
    async with open_checkpointer(tmp / "checkpoints.sqlite3") as saver:
        saved = await run(g.compile(checkpointer=saver), "s1")
    over = [s - b for s, b in zip(sorted(saved), sorted(bare))]
    print(f"turn ({len(nodes)} nodes) without checkpointer     {ms(bare)}")
    print(f"turn ({len(nodes)} nodes) with AsyncSqliteSaver    {ms(saved)}")
    print(f"checkpoint write overhead per turn          {ms(over)}")


def bench_traces(tmp: Path, turns: int) -> None:
    from core import events as ev
    from core.tracing.store import TraceStore

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.support.trace_turn import turn_events

    store = TraceStore(tmp / "traces.sqlite3", ["sk-benchmarksecret0123456789"])
    base = turn_events()
    tokens = [ev.TokenDelta(text=f"tok{i} ", node="simple") for i in range(150)]
    events = base[:13] + tokens + base[13:]
    times = []
    for i in range(turns):
        t = time.perf_counter()
        store.save_turn_sync(f"trace-{i}", "s1", "And how much memory does it save?", events)
        times.append(time.perf_counter() - t)
    print(f"trace write per turn ({len(events)} events)         {ms(times)}")
    t = time.perf_counter()
    for i in range(turns):
        store.get(f"trace-{i}")
    print(f"trace read (get, typed events) per trace    {(time.perf_counter() - t) / turns * 1000:7.2f} ms")
    store.close()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--facts", type=int, default=10000)
    p.add_argument("--turns", type=int, default=30)
    p.add_argument("--encoders", default="torch,onnx", help="encoder runtimes to compare (torch, onnx, onnx-int8)")
    args = p.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory(prefix="pp-bench-") as d:
        tmp = Path(d)
        # In a worker thread, as the stores' async API runs it: with torch's 2 OpenMP threads on a
        # busy 2-core machine, encoding from the main thread measured ~30x slower than from a worker.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(bench_recall, tmp, args.facts, args.encoders.split(",")).result()
        asyncio.run(bench_checkpoints(tmp, args.turns))
        bench_traces(tmp, args.turns)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
