"""Fault experiment: several ``paperpilot ask --session S`` processes at once, nothing lost.

Each round starts 2-4 real ``ask`` processes (offline brain, each with its own stdio hub) on one
fresh session. In every other round the suite itself holds the session's lock while they start, so
they all meet a busy session; in the others they race as they come. A turn is acknowledged when its
process exits 0 with its JSON answer. Lost = acknowledged questions missing from the session's saved
history; the history must also be in the order the turns finished (their traces) and
``sessions show S --json`` must count and show the same turns.
"""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import time
from pathlib import Path

from bench.faults_common import home_with_hub, row, run_cli, settings_file, tally
from tests.support.ask_proc import Ask

ASK_BOUND_S = 300  # one process: start, wait for the others' turns, answer
QUESTION = "What rank does LoRA use by default? (round {r}, window {w})"


def _wait_all_blocked(asks: list[Ask], session: str, bound_s: float) -> None:
    end = time.monotonic() + bound_s
    while time.monotonic() < end:
        if all(any(f"waiting for session {session}" in ln for ln in a.err_lines) or a.proc.poll() is not None
               for a in asks):
            return
        time.sleep(0.1)


def _finish(ask: Ask) -> dict:
    try:
        code, data, err = ask.finish(timeout=ASK_BOUND_S)
        return {"code": code, "data": data, "stderr": err, "hang": False}
    except subprocess.TimeoutExpired:
        ask.kill()
        return {"code": None, "data": None, "stderr": "\n".join(ask.err_lines), "hang": True}
    finally:
        ask.kill()  # the group: a stdio hub left behind


def one_round(home: Path, config: Path, r: int, n: int, hold: bool) -> dict:
    """One session, ``n`` concurrent asks; the outcomes and what the history kept."""
    from core.memory.checkpoints import read_messages
    from core.memory.history import turns_from_messages
    from core.memory.turnlock import TurnLock
    from core.tracing.store import TraceStore

    session = f"round-{r}"
    questions = [QUESTION.format(r=r, w=w) for w in range(n)]
    holder = TurnLock(home / "locks", session)
    held = hold and holder.try_acquire()
    asks: list[Ask] = []
    try:
        asks = [Ask(home, config, q, session=session) for q in questions]
        if held:
            _wait_all_blocked(asks, session, ASK_BOUND_S / 2)
    finally:
        if held:
            holder.release()
        outcomes = [_finish(a) for a in asks]
    acked = [o["data"] for o in outcomes if o["code"] == 0 and o["data"]]
    turns = turns_from_messages(asyncio.run(read_messages(home / "checkpoints.sqlite3", session)), 10_000)
    history = [t.question for t in turns]
    traces = TraceStore(home / "paperpilot.sqlite3")
    try:
        finished = {d["question"]: traces.get(d["trace_id"]).finished for d in acked}
    finally:
        traces.close()
    shown = run_cli(home, "--config", str(config), "sessions", "show", session, "--json", timeout=120)
    view = json.loads(shown["stdout"]) if shown["code"] == 0 else {}
    users = [m["content"] for m in view.get("messages", []) if m.get("role") == "user"]
    return {
        "outcomes": outcomes,
        "lost": sum(d["question"] not in history for d in acked),
        "misordered": [q for q in history if q in finished] != sorted(finished, key=finished.get),
        "show_mismatch": view.get("turn_count") != len(history) or users != history,
        "waited": sum("waiting for session" in o["stderr"] for o in outcomes),
        "acked": len(acked),
    }


def concurrent_turns(indexed: Path, rounds: int = 10, seed: int = 17, min_n: int = 2, max_n: int = 4) -> dict:
    """``rounds`` rounds of ``min_n``..``max_n`` concurrent asks on one session each: the row."""
    import shutil

    rng = random.Random(seed)
    home = home_with_hub(indexed, "faults-turns-")
    config = settings_file(home)
    results = []
    try:
        for r in range(rounds):
            results.append(one_round(home, config, r, rng.randint(min_n, max_n), hold=r % 2 == 0))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    outcomes = [o for res in results for o in res["outcomes"]]
    c = tally(outcomes)
    misordered = sum(res["misordered"] for res in results)
    mismatched = sum(res["show_mismatch"] for res in results)
    notes = (f"{rounds} rounds, {len(outcomes)} asks, {sum(r['acked'] for r in results)} acknowledged, "
             f"{sum(r['waited'] for r in results)} waited for the session; history out of order in {misordered} "
             f"round(s), `sessions show` differing in {mismatched}")
    return row("concurrent turns", tries=len(outcomes), survived=c["survived"], clear_error=c["clear_error"],
               traceback=c["traceback"], hang=c["hang"], lost=sum(r["lost"] for r in results), notes=notes,
               answered=c["answered"], misordered=misordered, show_mismatch=mismatched)
