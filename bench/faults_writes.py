"""Fault experiment: SIGKILL a process in the middle of fact writes, many times; nothing acknowledged lost.

The writer is one Python process that runs the real CLI (``paperpilot_tui.cli.main.main``, in
process, so a kill lands inside SQLite work rather than inside interpreter start-up) in a loop:
``memory add``, ``memory edit``, every third fact ``memory rm``, every fourth round ``memory import``
of a three-fact JSONL file. After each command exits 0 it prints an acknowledgement line and flushes
it. The suite SIGKILLs the writer at a random moment, then checks the database (``PRAGMA
integrity_check`` and the FTS index, :func:`core.memory.db.check_integrity`) and every fact ever
acknowledged: an acknowledged add is there (with the edit's text once the edit was acknowledged)
unless an rm was acknowledged, an acknowledged rm stays gone, an acknowledged import's facts are all
there. The one op in flight at the kill may or may not have committed; both are accepted.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from bench.faults_common import CLI, ROOT, env_for, killpg, row

FIRST_ACK_BOUND_S = 90  # writer start-up on a loaded machine
WRITER = r"""
import contextlib, io, json, re, sys
from pathlib import Path
from paperpilot_tui.cli.main import main

cfg, tag, work = sys.argv[1], sys.argv[2], Path(sys.argv[3])

def cli(*argv):
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(["--config", cfg, "memory", *argv])
    if code != 0:
        raise SystemExit(f"memory {argv[0]} exited {code}")
    return buf.getvalue()

def ack(op, fid, t):  # one write per acknowledgement
    sys.stdout.write(f"{op} {fid} {t}\n")
    sys.stdout.flush()

k = 0
while True:
    k += 1
    t = f"{tag}-{k}"
    fid = int(re.match(r"fact (\d+):", cli("add", f"fault fact {t} v0")).group(1))
    ack("add", fid, t)
    cli("edit", str(fid), f"fault fact {t} v1")
    ack("edit", fid, t)
    if k % 3 == 0:
        cli("rm", str(fid))
        ack("rm", fid, t)
    if k % 4 == 0:
        f = work / f"import-{t}.jsonl"
        f.write_text("".join(json.dumps({"content": f"fault fact {t} imported {j}"}) + "\n" for j in range(3)))
        cli("import", str(f))
        ack("import", 0, t)
"""


class Ledger:
    """What was acknowledged, and what the database must therefore hold."""

    def __init__(self) -> None:
        self.facts: dict[str, tuple[int, str]] = {}  # tag -> (id, last acknowledged op)
        self.imports: list[str] = []  # contents of acknowledged imports

    def record_output(self, lines: list[str]) -> None:
        """Record the writer's stdout lines. Only a whole line (newline included) is an
        acknowledgement: a SIGKILL can cut the last one mid-write, and a cut line acknowledges nothing."""
        for line in lines:
            if line.endswith("\n"):
                self.record(line)

    def record(self, line: str) -> None:
        op, fid, tag = line.split()
        if op == "import":
            self.imports += [f"fault fact {tag} imported {j}" for j in range(3)]
        else:
            self.facts[tag] = (int(fid), op)

    def lost(self, present: dict[int, str]) -> set[str]:
        """Acknowledged writes the database does not reflect (the op in flight may have committed)."""
        bad = set()
        for tag, (fid, op) in self.facts.items():
            content, rm_follows = present.get(fid), int(tag.rsplit("-", 1)[1]) % 3 == 0
            if op == "rm":
                ok = content is None
            elif op == "edit":
                ok = content == f"fault fact {tag} v1" or (content is None and rm_follows)
            else:  # add: the edit may have committed unacknowledged
                ok = content in (f"fault fact {tag} v0", f"fault fact {tag} v1")
            if not ok:
                bad.add(f"{op} {tag}")
        contents = set(present.values())
        return bad | {f"import {c}" for c in self.imports if c not in contents}


def _one_kill(i: int, home: Path, config: Path, work: Path, rng: random.Random, ledger: Ledger) -> dict:
    err = (work / f"writer-{i}.err").open("w+")
    proc = subprocess.Popen([*CLI[:1], "-c", WRITER, str(config), f"k{i}", str(work)], cwd=ROOT,
                            env=env_for(home), stdout=subprocess.PIPE, stderr=err, text=True, start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True)
    reader.start()
    try:
        end = time.monotonic() + FIRST_ACK_BOUND_S
        while not lines and proc.poll() is None and time.monotonic() < end:
            time.sleep(0.02)
        started = bool(lines)
        if started:
            time.sleep(rng.uniform(0, 0.6))
        alive = proc.poll() is None
    finally:
        killpg(proc)
        reader.join(10)
    ledger.record_output(list(lines))
    err.seek(0)
    stderr = err.read()
    err.close()
    return {"acks": sum(ln.endswith("\n") for ln in lines), "hang": not started and alive, "died_early": not alive, "stderr": stderr}


def _check(db: Path, ledger: Ledger) -> tuple[list[str], set[str]]:
    from core.memory.db import check_integrity
    from core.memory.facts import FactStore

    problems = check_integrity(db)
    store = FactStore(db)
    try:
        present = {f.id: f.content for f in store.list()}
    finally:
        store.close()
    return problems, ledger.lost(present)


def fact_kills(kills: int = 50, seed: int = 17) -> dict:
    """SIGKILL the fact writer ``kills`` times at random moments; check after each kill. The row."""
    rng = random.Random(seed)
    home = Path(tempfile.mkdtemp(prefix="faults-writes-"))
    work = home / "work"
    work.mkdir()
    config = home / "settings.yaml"
    config.write_text("memory:\n  max_facts: 10000000\n")  # no eviction: every missing fact is a loss
    ledger, lost, corrupt, acks, traceback, hang, early = Ledger(), set(), 0, 0, 0, 0, 0
    stderr = ""  # the first writer's stderr that said anything: why a writer failed, if one did
    try:
        for i in range(kills):
            outcome = _one_kill(i, home, config, work, rng, ledger)
            acks += outcome["acks"]
            traceback += "Traceback" in outcome["stderr"]
            hang += outcome["hang"]
            early += outcome["died_early"]
            stderr = stderr or outcome["stderr"].strip()[-600:]
            problems, missing = _check(home / "paperpilot.sqlite3", ledger)
            corrupt += bool(problems)
            lost |= missing
    finally:
        shutil.rmtree(home, ignore_errors=True)
    notes = (f"{acks} acknowledged ops ({len(ledger.facts)} facts, {len(ledger.imports)} imported); "
             f"integrity_check failed after {corrupt} kill(s); writer died before its kill {early}×")
    if lost:
        notes += "; lost e.g. " + ", ".join(sorted(lost)[:3])
    return row("kill -9 during fact writes", tries=kills, survived=kills - corrupt, clear_error="n/a",
               traceback=traceback, hang=hang, lost=len(lost), notes=notes, corrupt=corrupt, acks=acks,
               died_early=early, writer_stderr=stderr)
