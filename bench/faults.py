"""The fault suite of issue 17 ("Nothing lost, nothing hung, nothing leaked"), in one run.

    python bench/faults.py [--http 30] [--stdio 10] [--rounds 10] [--kills 50] [--json] [--only NAME,...]

Experiments (each a function returning one row: experiment, tries, survived, clear_error,
traceback, hang, lost, notes; the table adds its wall time):

* ``http``, ``stdio``: SIGKILL the hub mid-query in real ``ask`` runs (``bench/faults_hub.py``).
* ``turns``: 2-4 concurrent ``ask --session S`` per round; acknowledged turns missing from history.
* ``writes``: SIGKILL a process doing ``memory add/edit/rm/import``; integrity, acknowledged facts lost.
* ``poison``: a poisoned corpus; instruction-like facts memorized.
* ``claims``: planted descriptive claims; learnt, recalled as prior knowledge, ranked by ``memory audit``.
* ``secrets``: a configured key in questions; copies of it anywhere under ``$PAPERPILOT_HOME``.
* ``strangers``: another local user against ``serve``, the HTTP hub and a planted ``ask.sock``.
* ``offline``: ``--offline`` ask and research under strace; non-loopback lookups or connections.
* ``hubmem`` (only when named in ``--only``): RSS of an HTTP hub that clients abandon.

Each row is printed as soon as its experiment ends (a table line, or a JSON line with ``--json``),
with the bound it must hold and whether it holds; an experiment that fails in itself is a row too.
It needs only the documented install (no pytest).

Everything runs on loopback in temporary data homes (removed afterwards); every wait is bounded;
every process the suite starts leads its own process group and is ended with it, so no hub outlives
the run. Exit code 1 when a row breaks a must-show property (a hang, a traceback, anything lost, a
copy of the key, a memorized instruction), so the run can gate.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.faults_claims import planted_claims
from bench.faults_common import COLUMNS, indexed_home, row
from bench.faults_data import poisoned_corpus, secrets_grep
from bench.faults_hub import hub_kills
from bench.faults_hubmem import hub_memory
from bench.faults_offline import offline_network
from bench.faults_strangers import strangers
from bench.faults_turns import concurrent_turns
from bench.faults_writes import fact_kills

DEFAULT = ("http", "stdio", "hung-http", "hung-stdio", "turns", "writes", "poison", "claims", "secrets", "strangers", "offline")
HUNG_TIMEOUT_S = 10  # mcp.call_timeout for the hung-hub rows: ×20 tries each stay a few minutes
NAMES = (*DEFAULT, "hubmem")


def hub_row(transport: str, tries: int, indexed: Path, call_timeout: float = 30, how: str = "kill") -> dict:
    """``faults_hub.hub_kills`` as a row: nothing is stored by these tries, so lost is n/a. ``how``:
    ``kill`` (a dead hub) or ``stop`` (a hung one: SIGSTOPped mid-query, alive but silent)."""
    c = hub_kills(transport, tries, indexed, call_timeout=call_timeout, how=how)
    fault = "the kill" if how == "kill" else "SIGSTOP"
    notes = (f"{c['answered']} answered, slowest exit {c['max_exit_s']} s after {fault} (bound "
             f"{call_timeout + 5:g} s)" + (f", {c['skipped']} skipped" if c["skipped"] else ""))
    if c["examples"]:
        notes += f"; e.g. {c['examples'][0][:160]}"
    label = "hub kills" if how == "kill" else "hung hub"
    extra = {} if how == "kill" else {"unnamed": c["tries"] - c["named"], "failed": c["tries"] - c["clear_error"]}
    if extra:
        notes += f"; {c['named']}/{c['tries']} name mcp.call_timeout"
    return row(f"{label} ({transport})", **extra, tries=c["tries"], survived=c["survived"], clear_error=c["clear_error"],
               traceback=c["traceback"], hang=c["hang"], lost="n/a", notes=notes, answered=c["answered"],
               skipped=c["skipped"], max_exit_s=c["max_exit_s"])


def failures(r: dict) -> list[str]:
    """The must-show properties a row breaks (empty: it holds)."""
    bad = [k for k in ("traceback", "hang") if r.get(k)]
    bad += [k for k in ("lost", "copies", "memorized_instructions", "corrupt", "skipped", "failed", "unnamed",
                        "learnt", "recalled_as_prior", "misranked", "foreign")
            if isinstance(r.get(k), int) and r[k]]
    if r.get("tries") and r["survived"] != r["tries"]:
        bad.append("survived")
    return bad


# What each experiment must show, as printed in the table's "bound" column (its check is ``failures``).
BOUNDS = {
    "http": "every exit <= mcp.call_timeout + 5 s after the kill; one line, no traceback",
    "stdio": "every exit <= mcp.call_timeout + 5 s after the kill; one line, no traceback",
    "hung-http": "every exit <= mcp.call_timeout + 5 s after SIGSTOP; one line naming the deadline, exit 3",
    "hung-stdio": "every exit <= mcp.call_timeout + 5 s after SIGSTOP; one line naming the deadline, exit 3",
    "turns": "0 acknowledged turns missing or out of order",
    "writes": "0 acknowledged facts lost; integrity ok",
    "poison": "0 instruction-like or planted facts memorized",
    "claims": "0 planted claims learnt or recalled as prior knowledge; audit ranks the 3 planted facts on top",
    "secrets": "0 copies of the key under $PAPERPILOT_HOME, 0 printed",
    "hubmem": "RSS back near its start once clients leave",
    "offline": "0 non-loopback lookups or connections from --offline ask and research (children included)",
    "strangers": "another user refused by serve, the HTTP hub and a planted ask.sock (0 let in)",
}


def run(names: list[str], sizes: dict[str, int], emit=None) -> list[dict]:
    """Run the chosen experiments on one indexed hub database; each row gains ``wall_s`` and
    ``bound``, and is passed to ``emit`` as soon as it is done (a long run loses no finished row)."""
    jobs = {
        "http": lambda ix: hub_row("http", sizes["http"], ix),
        "stdio": lambda ix: hub_row("stdio", sizes["stdio"], ix),
        "hung-http": lambda ix: hub_row("http", sizes["hung"], ix, call_timeout=HUNG_TIMEOUT_S, how="stop"),
        "hung-stdio": lambda ix: hub_row("stdio", sizes["hung"], ix, call_timeout=HUNG_TIMEOUT_S, how="stop"),
        "turns": lambda ix: concurrent_turns(ix, sizes["rounds"]),
        "writes": lambda ix: fact_kills(sizes["kills"]),
        "poison": poisoned_corpus,
        "claims": planted_claims,
        "secrets": secrets_grep,
        "hubmem": hub_memory,
        "strangers": strangers,
        "offline": offline_network,
    }
    cache = None
    if "PAPERPILOT_ONNX_CACHE" not in os.environ:  # export the encoder graph once, not once per home
        cache = tempfile.mkdtemp(prefix="faults-onnx-")
        os.environ["PAPERPILOT_ONNX_CACHE"] = cache
    indexed = indexed_home()
    rows = []
    try:
        for name in names:
            start = time.monotonic()
            try:
                r = jobs[name](indexed)
            except Exception as exc:  # noqa: BLE001 - the experiment's own failure is a row, not a lost run
                r = row(name, notes=f"the experiment itself failed: {type(exc).__name__}: {exc}", failed=1)
            r["wall_s"] = round(time.monotonic() - start, 1)
            r.setdefault("bound", BOUNDS.get(name, ""))
            rows.append(r)
            if emit is not None:
                emit(r)
    finally:
        shutil.rmtree(indexed, ignore_errors=True)
        if cache:
            shutil.rmtree(cache, ignore_errors=True)
            os.environ.pop("PAPERPILOT_ONNX_CACHE", None)
    return rows


HEAD = [*COLUMNS, "bound", "holds", "wall", "notes"]


def table_head() -> str:
    return "\n".join(["| " + " | ".join(h.replace("_", " ") for h in HEAD) + " |", "|" + "---|" * len(HEAD)])


def table_row(r: dict) -> str:
    bad = failures(r)
    cells = [str(r[c]) for c in COLUMNS] + [r.get("bound", ""), "no: " + ", ".join(bad) if bad else "yes",
                                            f"{r.get('wall_s', 0):.0f} s", r["notes"]]
    return "| " + " | ".join(c.replace("|", "/").replace("\n", " ") for c in cells) + " |"


def table(rows: list[dict]) -> str:
    """A Markdown table (the README shows it as printed)."""
    return "\n".join([table_head(), *(table_row(r) for r in rows)])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--http", type=int, default=30, help="SIGKILLs of an HTTP hub mid-query")
    p.add_argument("--stdio", type=int, default=10, help="SIGKILLs of ask's stdio hub mid-query")
    p.add_argument("--hung", type=int, default=20, help="SIGSTOPs of a hub mid-query, per transport")
    p.add_argument("--rounds", type=int, default=10, help="rounds of 2-4 concurrent asks on one session")
    p.add_argument("--kills", type=int, default=50, help="SIGKILLs of the fact writer")
    p.add_argument("--only", default=",".join(DEFAULT), help=f"comma-separated subset of {','.join(NAMES)}")
    p.add_argument("--json", action="store_true", help="print each row as a JSON line as it finishes")
    args = p.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        p.error(f"unknown experiment(s) {', '.join(unknown)}; choose from {', '.join(NAMES)}")
    start = time.monotonic()
    if args.json:  # JSON Lines: one object per experiment, printed as it finishes
        emit = lambda r: print(json.dumps(r, default=str), flush=True)  # noqa: E731
    else:
        print(table_head(), flush=True)
        emit = lambda r: print(table_row(r), flush=True)  # noqa: E731
    sizes = {"http": args.http, "stdio": args.stdio, "hung": args.hung, "rounds": args.rounds, "kills": args.kills}
    rows = run(names, sizes, emit)
    if not args.json:
        print(f"\n{time.strftime('%Y-%m-%d')}, {time.monotonic() - start:.0f} s in all")
    broken = {r["experiment"]: failures(r) for r in rows if failures(r)}
    for name, what in broken.items():
        print(f"faults: {name}: {', '.join(what)}", file=sys.stderr)
    return 1 if broken else 0

if __name__ == "__main__":
    sys.exit(main())
