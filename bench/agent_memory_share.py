"""save_memory's share of a warm turn, per strategy: facts written inside the turn against after the answer.

Run by ``python bench/agent.py`` (``--save-memory-only`` for just this). Default settings as a user
has them: the offline brain, the bundled hub as a stdio process, SQLite stores, memory on. Each mode
opens its own agent, asks each demo question once to warm up, then ``turns`` times, each in a new
session. Per turn:

- **answer**: from the call until TurnFinished (what the user waits for);
- **save_memory**: the node inside the turn (its NodeFinished duration; CPU between its
  NodeStarted and NodeFinished as they arrive);
- **write after**: from TurnFinished until the write after the answer is done (``Agent.settle``);
  inside-the-turn mode has none left but the turn's own bookkeeping.

CPU time is this process's plus its children's (the hub), read with psutil when it is installed
(a test extra); without it only wall times are shown. Medians; the load average is printed.
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass

from core.agent import open_agent
from core.config import load_settings

DEMO = {
    "simple": "What rank does LoRA use by default?",
    "comparative": "Compare LoRA and QLoRA in memory use and accuracy",
    "multi_hop": "How does QLoRA build on LoRA to fine-tune a 65B model on a single GPU?",
    "exploratory": "Trace how alignment methods evolved from RLHF to DPO",
}
MODES = {"inside the turn (before)": False, "after the answer (now)": True}


def _cpu_clock():
    """Seconds of CPU used so far by this process and its children; None without psutil."""
    try:
        import psutil
    except ImportError:
        return None
    me = psutil.Process()

    def used() -> float:
        total = sum(me.cpu_times()[:2])
        for child in me.children(recursive=True):
            try:
                total += sum(child.cpu_times()[:2])
            except psutil.Error:
                pass
        return total

    return used


@dataclass
class Sample:
    strategy: str
    answer_ms: float
    save_ms: float
    write_ms: float
    answer_cpu: float | None
    save_cpu: float | None
    write_cpu: float | None


async def timed_turn(agent, question: str, cpu) -> Sample:
    clock = cpu or (lambda: 0.0)
    t0, c0 = time.perf_counter(), clock()
    save_ms = save_cpu = 0.0
    started_cpu = answered = answered_cpu = None
    strategy = "?"
    async for ev in agent.run_turn(question, agent.new_session_id()):
        if ev.kind == "node_started" and ev.node == "save_memory":
            started_cpu = clock()
        elif ev.kind == "node_finished" and ev.node == "save_memory" and started_cpu is not None:
            save_ms += ev.duration_ms
            save_cpu += clock() - started_cpu
        elif ev.kind == "turn_finished":
            answered, answered_cpu = time.perf_counter(), clock()
            strategy = ev.result.strategy
        elif ev.kind == "turn_failed":
            raise RuntimeError(f"the turn failed: {ev.error}")
    await agent.settle()
    done, done_cpu = time.perf_counter(), clock()
    ms = 1000.0
    return Sample(strategy, (answered - t0) * ms, save_ms, (done - answered) * ms,
                  (answered_cpu - c0) * ms if cpu else None, save_cpu * ms if cpu else None,
                  (done_cpu - answered_cpu) * ms if cpu else None)


def _med(xs: list[float | None]) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def _fmt(x: float | None, unit: str = "ms") -> str:
    return "   n/a" if x is None else f"{x:6.0f} {unit}"


async def share_section(turns: int = 3) -> dict:
    """Print and return {mode: {strategy: (wall share, cpu share)}} of save_memory in the turn until its answer."""
    cpu = _cpu_clock()
    print(f"\nsave_memory's share of a warm turn until its answer (default settings, offline brain, "
          f"{turns} warm turns per strategy; load average {os.getloadavg()[0]:.1f})")
    print(f"{'mode':<26}{'strategy':<13}{'answer':>10}{'save_memory':>13}{'share':>7}"
          f"{'answer CPU':>12}{'save CPU':>10}{'share':>7}{'write after':>13}{'its CPU':>10}")
    shares: dict = {}
    for mode, after in MODES.items():
        settings = load_settings(use_user_file=False)
        async with open_agent(settings) as agent:
            agent.write_after_answer = after
            for question in DEMO.values():
                await timed_turn(agent, question, cpu)  # warm-up: encoder, caches, first recall
                rows = [await timed_turn(agent, question, cpu) for _ in range(turns)]
                strategy = rows[0].strategy
                answer, save = _med([r.answer_ms for r in rows]), _med([r.save_ms for r in rows])
                a_cpu, s_cpu = _med([r.answer_cpu for r in rows]), _med([r.save_cpu for r in rows])
                share = save / answer if answer else 0.0
                cpu_share = s_cpu / a_cpu if a_cpu and s_cpu is not None else None
                shares.setdefault(mode, {})[strategy] = (share, cpu_share)
                print(f"{mode:<26}{strategy:<13}{_fmt(answer):>10}{_fmt(save):>13}{share:>7.0%}"
                      f"{_fmt(a_cpu):>12}{_fmt(s_cpu):>10}"
                      f"{'   n/a' if cpu_share is None else f'{cpu_share:6.0%}':>7}"
                      f"{_fmt(_med([r.write_ms for r in rows])):>13}{_fmt(_med([r.write_cpu for r in rows])):>10}")
    print(f"load average at the end {os.getloadavg()[0]:.1f}; goal: save_memory under 10% of the turn until "
          "its answer")
    return shares
