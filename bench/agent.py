"""Per-turn overhead of the agent itself: graph + MCP + SQLite, with a zero-latency scripted LLM.

    python bench/agent.py [--turns 30]

Three configurations measured in one run, each after warm-up, so the ratios are comparable:
  graph        the compiled graph with an in-process retriever (no MCP, no SQLite)
  graph+mcp    retrieval through the bundled hub over a persistent MCP stdio session
  full         graph + MCP + SQLite checkpointer, sessions, traces and fact memory
The LLM answers instantly from a script (every brain call goes to it), so what is timed is
PaperPilot's own overhead. The fact-memory row is measured once per encoder runtime (--encoders,
torch and ONNX side by side). Goals: median ≤ 20 ms for `full` without fact memory, ≤ 25 ms with it.

Then the LLM calls per strategy under the call plan (README, "LLM calls per turn"): one question per
strategy through the brain the default settings build, with the scripted model and the upstream stub
hub (tests/support/call_plan.py). Goals when the first draft passes: factual ≤ 2, comparative ≤ 3,
multi_hop ≤ 2 + plan steps. ``--calls-only`` runs just that section.

Then save_memory's share of a warm turn, per strategy (``--save-memory-only`` runs just that): the
default settings (offline brain, the bundled hub, SQLite, memory on), the four demo questions, the
facts written inside the turn ("before") against after the answer went out (what turns do), in one run;
medians of wall time and of CPU time (this process and the hub child), with the load average.
Goal: save_memory under 10% of the turn until its answer.

Then comparative turns (``--comparative-only`` runs just that): the default settings with memory
off (the offline brain, the bundled hub, SQLite), the demo comparison and three more comparisons over
the bundled papers, each asked once to warm up and then ``--comparative-turns`` times, each in a new
session: first with the cell scorer's sentence vectors forgotten, so each turn pays what a new comparison
pays (the MiniLM embedding of its cells' candidates), then as often again with them kept (the question
asked again, as the other sections' turns are). Medians per question and over all (wall, and the
agent process's CPU for new turns; the hub child's is not counted); the load average is printed. With the
cells' cascade (``comparison.CELL_SHORTLIST``) it runs twice in one process: every candidate embedded, then
the shortlist. Run it from an older checkout's root (``PYTHONPATH=<root> python <root>/bench/agent.py``
with this file copied in) to compare.

Then simple turns (``--reader-only`` runs just that): the four factual questions of ``SIMPLE`` over the
bundled papers without the reader (the cross-encoder that reads the sentence scorer's shortlist), with
it as shipped (not run where the scorer is confident of its pick) and with it run on every turn, in one
process, its pair scores forgotten before each turn; medians of wall and of the agent process's CPU
(and the mean CPU), the turns in which the reader ran, and the CPU ratios. Prints numbers; asserts
nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("PAPERPILOT_HOME", tempfile.mkdtemp(prefix="paperpilot-bench-"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from core.agent import open_agent
from core.config import load_settings
from core.state import RetrievedContext
from tests.support.scripted_model import ScriptedChatModel, by_purpose

QUESTION = "What rank does LoRA use by default?"
REPLIES = {
    "route": '{"type": "factual", "confidence": 0.93}',
    "slots": '{"entities": ["LoRA"], "dimensions": [], "constraints": {}, '
             '"reformulated_query": "What rank does LoRA use by default?"}',
    "synthesis": "The LoRA paper defines no single default rank [1]; PEFT defaults to r = 8 [2].",
    "critic": '{"passed": true, "score": 9, "completeness": 0.9, "faithfulness": 1.0, "feedback": ""}',
    "facts": '{"facts": ["PEFT LoraConfig defaults to rank 8."]}',
}


COMPARISONS = (
    "Compare LoRA and QLoRA in memory use and accuracy",  # the demo comparison
    "How do ReAct and Reflexion differ?",
    "Compare DPO and RLHF in training stability and cost",
    "Compare ReWOO and ReAct in token use and accuracy",
)


class InProcessRetriever:
    describe = "in-process"
    notices: list[str] = []

    async def search(self, query, top_k=5, collection=None):
        return [RetrievedContext(content=f"LoRA rank fact {i}.", chunk_id=f"lora_{i:04d}", doc_id="lora",
                                 title="LoRA") for i in range(top_k)]


class TimedBrain:
    """Wraps a brain and adds up the time spent inside it (the LLM edge, LangChain included)."""

    def __init__(self, inner):
        self.inner, self.name, self.spent_ms = inner, inner.name, 0.0

    def __getattr__(self, attr):
        fn = getattr(self.inner, attr)
        if not inspect.iscoroutinefunction(fn):  # a value, or a plain call such as use_vocabulary: as it is
            return fn

        async def timed(*a, **kw):
            t0 = time.perf_counter()
            try:
                return await fn(*a, **kw)
            finally:
                self.spent_ms += (time.perf_counter() - t0) * 1000

        return timed


def brain(settings):
    from core.brains.llm.brain import LLMBrain

    return TimedBrain(LLMBrain(ScriptedChatModel(respond=by_purpose(REPLIES)), settings))


async def measure(label: str, turns: int, memory: bool = True, **kw) -> tuple[list[float], list[float]]:
    """Per-turn wall times and the same minus time inside the brain (the scripted LLM edge)."""
    settings = load_settings(use_user_file=False)
    settings.agent.router = "llm"
    settings.agent.critic = "llm"
    settings.memory.enabled = memory
    walls, overheads = [], []
    timed = brain(settings)
    async with open_agent(settings, brain=timed, **kw) as agent:
        session = agent.new_session_id()
        for i in range(turns + 3):
            timed.spent_ms = 0.0
            t0 = time.perf_counter()
            async for ev in agent.run_turn(QUESTION, session):
                last = ev
            dt = (time.perf_counter() - t0) * 1000
            assert last.kind == "turn_finished", getattr(last, "error", last)
            await agent.settle()  # the facts are written after the answer: outside the turn's time
            if i >= 3:  # warm-up: encoder load, first-run index, caches
                walls.append(dt)
                overheads.append(dt - timed.spent_ms)
    return walls, overheads


def report(label: str, walls: list[float], overheads: list[float], base: float | None) -> float:
    med = statistics.median(overheads)
    p95 = sorted(overheads)[int(0.95 * (len(overheads) - 1))]
    ratio = f"  ({med / base:.1f}× graph)" if base else ""
    print(f"{label:<22} overhead median {med:7.2f} ms  p95 {p95:7.2f} ms   "
          f"(wall median {statistics.median(walls):7.2f} ms, n={len(walls)}){ratio}")
    return med


async def calls_section() -> None:
    from tests.support.call_plan import calls_per_strategy, goal

    print("LLM calls per turn, by strategy (scripted model, default call plan, first draft judged):")
    for m in await calls_per_strategy():
        limit = goal(m.strategy, m.plan_steps)
        verdict = "no goal" if limit is None else f"goal ≤ {limit} → {'met' if m.calls <= limit else 'NOT met'}"
        steps = f", {m.plan_steps} plan steps" if m.strategy == "multi_hop" else ""
        print(f"  {m.strategy:<12} {m.calls} call(s){steps}  [{', '.join(m.purposes)}]  "
              f"first draft {'passed' if m.first_draft_passed else 'failed'}  {verdict}")


async def comparative_section(turns: int) -> None:
    try:
        from core.brains.offline import comparison
    except ImportError:  # an older checkout: the cells lived in compose
        comparison = None
    shortlist = getattr(comparison, "CELL_SHORTLIST", None)
    modes = (("every candidate embedded", None), (f"shortlist of {shortlist}", shortlist)) if shortlist else (("", None),)
    for label, value in modes:
        if label:
            comparison.CELL_SHORTLIST = value
            print(f"cells: {label}")
        await comparative_turns(turns)
    if shortlist:
        comparison.CELL_SHORTLIST = shortlist


async def comparative_turns(turns: int) -> None:
    from core.brains.offline import scorer

    print(f"comparative turns, offline brain, memory off, cell vectors forgotten before each turn "
          f"(load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})", flush=True)
    settings = load_settings(use_user_file=False)
    settings.memory.enabled = False
    every: dict[str, list[float]] = {}
    async with open_agent(settings) as agent:
        for q in COMPARISONS:
            times: dict[str, list[float]] = {"new": [], "asked again": []}
            cpu: list[float] = []
            strategy = "?"
            for i in range(2 * turns + 1):
                if i <= turns:  # what a new comparison finds: no sentence embedded
                    getattr(scorer, "_vectors", {}).clear()
                t0, c0 = time.perf_counter(), time.process_time()
                async for ev in agent.run_turn(q, agent.new_session_id()):
                    last = ev
                assert last.kind == "turn_finished", getattr(last, "error", last)
                strategy = last.result.strategy
                if i:  # the first is the warm-up: encoder and hub start, first-run index
                    times["new" if i <= turns else "asked again"].append((time.perf_counter() - t0) * 1000)
                    if i <= turns:
                        cpu.append((time.process_time() - c0) * 1000)
            times["new CPU"] = cpu
            for kind, ts in times.items():
                every[kind] = every.get(kind, []) + ts
            print(f"  {q:<54} {strategy:<12} median new {statistics.median(times['new']):8.1f} ms "
                  f"(CPU {statistics.median(cpu):7.1f} ms), asked again "
                  f"{statistics.median(times['asked again']):8.1f} ms  (n={turns} each)", flush=True)
    print("  all comparative turns: median " + ", ".join(f"{k} {statistics.median(v):8.1f} ms" for k, v in every.items())
          + f"; load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


# Factual questions over the bundled papers (the simple strategy, where the reader reads candidates).
SIMPLE = (
    "What rank does LoRA use by default?",  # the demo question
    "How much memory does QLoRA need to fine-tune a 65B model?",
    "What does DPO optimize instead of a reward model?",
    "Which benchmark does ReAct report on for question answering?",
)


async def reader_section(turns: int) -> None:
    """Simple turns without the reader, with it as shipped (not run where the scorer is confident of
    its pick, ``skip`` in ``reader.json``) and with it run on every turn, in one process: its pair
    scores forgotten before each turn, so each pays what a new question pays. Counts the turns in
    which the reader ran."""
    from core.brains.offline import reader

    print(f"simple turns, offline brain, memory off (load average {' '.join(f'{x:.2f}' for x in os.getloadavg())})",
          flush=True)
    settings = load_settings(use_user_file=False)
    settings.memory.enabled = False
    model, logits = reader._model, reader.logits
    shipped = model()
    modes = {"without the reader": lambda: None, "with the reader": model}
    if shipped is not None:
        modes["reading every turn"] = lambda: shipped._replace(skip_above=None)
    med: dict[str, float] = {}
    reads: list[int] = []

    def counted(question: str, texts: list[str]):
        reads.append(1)
        return logits(question, texts)

    reader.logits = counted
    try:
        async with open_agent(settings) as agent:
            for label, mode in modes.items():
                reader._model = mode  # the share follows it
                wall: list[float] = []
                cpu: list[float] = []
                read_turns = 0
                for q in SIMPLE:
                    for i in range(turns + 1):
                        getattr(reader, "_cache", {}).clear()
                        reads.clear()
                        t0, c0 = time.perf_counter(), time.process_time()
                        async for ev in agent.run_turn(q, agent.new_session_id()):
                            last = ev
                        assert last.kind == "turn_finished", getattr(last, "error", last)
                        if i:  # the first is the warm-up
                            wall.append((time.perf_counter() - t0) * 1000)
                            cpu.append((time.process_time() - c0) * 1000)
                            read_turns += bool(reads)
                med[label] = statistics.median(cpu)
                print(f"  {label:<20} median wall {statistics.median(wall):8.1f} ms, CPU {med[label]:8.1f} ms "
                      f"(mean {statistics.mean(cpu):6.1f} ms; n={len(wall)}, the reader ran in {read_turns})", flush=True)
    finally:
        reader._model, reader.logits = model, logits
    base = med["without the reader"]
    print("  CPU against no reader: " + ", ".join(f"{k} {v / base:.2f}x" for k, v in med.items() if k != "without the reader")
          + f"; load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


async def main(turns: int, encoders: list[str]) -> None:
    print(f"PaperPilot per-turn overhead, {turns} turns each; overhead = wall time minus time inside")
    print("the brain (a zero-latency scripted LLM behind LangChain; every brain call goes to it)")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    g = await measure("graph", turns, hub=InProcessRetriever(), persist=False)
    m = await measure("graph+mcp", turns, persist=False)
    f = await measure("graph+mcp+sqlite", turns, memory=False, persist=True)
    fm = {}
    for enc in encoders:  # fact memory embeds with MiniLM: once per encoder runtime, same run
        os.environ["PAPERPILOT_ENCODER"] = enc  # read on each embed; the hub child inherits it
        fm[enc] = await measure(f"+fact memory ({enc})", turns, memory=True, persist=True)
    base = report("graph", *g, None)
    report("graph+mcp", *m, base)
    full = report("graph+mcp+sqlite", *f, base)
    meds = {enc: report(f"+ fact memory ({enc})", *fm[enc], base) for enc in encoders}
    if {"torch", "onnx"} <= set(meds):
        print(f"fact memory turn overhead, torch/onnx: {meds['torch'] / meds['onnx']:.2f}x")
    print(f"goal: graph+mcp+sqlite median ≤ 20 ms → {'met' if full <= 20 else 'NOT met'}")
    for enc, med in meds.items():  # issue 12: the full turn, fact memory included
        print(f"goal: with fact memory ({enc}) median ≤ 25 ms → {'met' if med <= 25 else 'NOT met'}")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--encoders", default="onnx", help="encoder runtimes for the fact-memory row (torch: the "
                                                      "train extra)")
    ap.add_argument("--calls-only", action="store_true", help="only the LLM calls per strategy")
    ap.add_argument("--save-memory-only", action="store_true", help="only save_memory's share per strategy")
    ap.add_argument("--share-turns", type=int, default=3, help="warm turns per strategy and mode in that section")
    ap.add_argument("--comparative-only", action="store_true", help="only the comparative turns")
    ap.add_argument("--comparative-turns", type=int, default=3, help="timed turns per comparison in that section")
    ap.add_argument("--reader-only", action="store_true", help="only simple turns with and without the reader")
    ap.add_argument("--reader-turns", type=int, default=3, help="timed turns per question and mode in that section")
    a = ap.parse_args()
    if a.reader_only:
        asyncio.run(reader_section(a.reader_turns))
        raise SystemExit(0)
    if a.comparative_only:
        asyncio.run(comparative_section(a.comparative_turns))
        asyncio.run(reader_section(a.reader_turns))
        raise SystemExit(0)
    if not (a.calls_only or a.save_memory_only):
        asyncio.run(main(a.turns, a.encoders.split(",")))
    if not a.save_memory_only:
        asyncio.run(calls_section())
    if not a.calls_only:
        from bench.agent_memory_share import share_section

        asyncio.run(share_section(a.share_turns))
        asyncio.run(comparative_section(a.comparative_turns))
