"""Several ``paperpilot ask --session S`` processes at once: one turn at a time, none lost.

Real subprocesses, the offline brain, the bundled hub as a real MCP stdio server. The test holds the
session's lock itself while the processes start, so every one of them meets a busy session (without
that, whether two turns overlap would depend on the machine's timing); then it lets them go.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time

from core.memory.checkpoints import read_messages
from core.memory.history import turns_from_messages
from core.memory.turnlock import TurnLock
from core.tracing.store import TraceStore
from tests.support.ask_proc import REPO, Ask, write_settings
from tests.support.cli import cli

N = 4


def _wait_for(cond, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return cond()


def test_concurrent_asks_in_one_session_keep_every_turn_in_order(home, hub_db, capsys):
    cfg = write_settings(home / "settings.yaml", hub_db)
    questions = [f"What rank does LoRA use by default? (window {i})" for i in range(N)]
    holder = TurnLock(home / "locks", "S")
    assert holder.try_acquire()
    asks = [Ask(home, cfg, q, session="S") for q in questions]
    try:  # every process reaches the busy session (or, without a lock, has already run its turn)
        _wait_for(lambda: all(any("waiting for session S" in ln for ln in a.err_lines) or a.proc.poll() is not None
                              for a in asks), 90)
    finally:
        holder.release()
    results = [a.finish() for a in asks]
    assert [rc for rc, _, _ in results] == [0] * N, [err[-800:] for _, _, err in results]

    turns = turns_from_messages(asyncio.run(read_messages(home / "checkpoints.sqlite3", "S")), 1000)
    assert sorted(t.question for t in turns) == sorted(questions), "acknowledged turns are missing from history"
    answers = {data["question"]: data["final_answer"] for _, data, _ in results}
    assert all(t.answer == answers[t.question] for t in turns)  # each question followed by its own answer

    traces = TraceStore(home / "paperpilot.sqlite3")
    finished = {data["question"]: traces.get(data["trace_id"]).finished for _, data, _ in results}
    assert [t.question for t in turns] == sorted(questions, key=finished.get)  # in the order they finished

    code, out, _ = cli(capsys, "sessions", "show", "S", "--json")
    shown = json.loads(out)
    assert code == 0 and shown["turn_count"] == N
    assert [m["content"] for m in shown["messages"] if m["role"] == "user"] == [t.question for t in turns]
    # every process met the busy session and said so on stderr (stdout stayed one JSON object)
    assert all("waiting for session S" in err for _, _, err in results)


def test_session_busy_fail_exits_1_with_one_line_and_writes_nothing(home, hub_db):
    cfg = write_settings(home / "settings.yaml", hub_db, extra="  session_busy: fail\n")
    holder = TurnLock(home / "locks", "S")
    assert holder.try_acquire()
    try:
        rc, data, err = Ask(home, cfg, "What is LoRA?", session="S").finish()
    finally:
        holder.release()
    assert rc == 1 and data is None
    assert err.strip().splitlines() == [
        "paperpilot: session S is busy: another window is running a turn in it (agent.session_busy: fail)"], err
    assert asyncio.run(read_messages(home / "checkpoints.sqlite3", "S")) == []


HOLD = """
import sys, time
from pathlib import Path
from core.memory.turnlock import TurnLock
lock = TurnLock(Path(sys.argv[1]), "S")
assert lock.try_acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_a_killed_holder_frees_the_session(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        busy = TurnLock(tmp_path, "S", busy="wait", wait_s=0.3)
        assert not asyncio.run(busy.wait()) and busy.waited_s >= 0.3
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        assert asyncio.run(busy.wait())  # the kernel dropped the dead process's lock
        busy.release()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
