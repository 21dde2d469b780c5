"""bench/faults.py's own experiments at tiny sizes, so the fault suite cannot rot between full runs.

Each test calls the experiment function the bench runs (real processes, real SQLite, loopback only)
and asserts the issue-17 must-show properties on its row: no hang, no traceback, nothing lost, no
copy of the key, no memorized instruction. The checks themselves are covered by the tests the
experiments stand on (test_concurrent_turns, test_durability, test_memory_hygiene,
test_secrets_at_rest); here the point is the bench's code. Two small tests make sure the bench's
own checkers are not vacuous (they do see a lost fact and a copy of a key), and every test ends by
looking for any process the bench started that is still alive (an orphan hub).
"""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

import pytest

from bench.faults import failures, hub_row, table
from bench.faults_claims import planted_claims
from bench.faults_common import COLUMNS
from bench.faults_data import _copies, poisoned_corpus, secrets_grep
from bench.faults_offline import offline_network
from bench.faults_strangers import strangers
from bench.faults_turns import concurrent_turns
from bench.faults_writes import Ledger, fact_kills

pytestmark = pytest.mark.slow
MARK = "PAPERPILOT_FAULTS_TEST_MARK"


@pytest.fixture(scope="module")
def indexed(hub_db, tmp_path_factory) -> Path:
    """A data home holding a copy of the run's indexed hub database (what ``faults.indexed_home`` makes
    for a full run), shared by the module's experiments."""
    home = tmp_path_factory.mktemp("faults-indexed")
    for f in hub_db.parent.glob("hub.sqlite3*"):
        shutil.copy2(f, home / f.name)
    return home


def _marked(value: str) -> list[int]:
    needle = f"{MARK}={value}".encode()
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if needle in (entry / "environ").read_bytes():
                    pids.append(int(entry.name))
            except OSError:
                continue
    return pids


@pytest.fixture(autouse=True)
def no_orphans(monkeypatch):
    """Every process the experiment starts inherits a mark; none may be alive once it returns."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARK, value)
    yield
    assert _marked(value) == [], "the experiment left processes running"


def _holds(r: dict) -> None:
    assert set(COLUMNS) | {"notes"} <= set(r), r
    assert r["experiment"] in table([r])
    assert r["tries"] > 0 and r["survived"] == r["tries"], r
    assert r["hang"] == 0 and r["traceback"] == 0, r
    assert failures(r) == [], r


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_hub_kill_ends_clearly(indexed, transport):
    r = hub_row(transport, 1, indexed)
    _holds(r)
    if transport == "http":  # nothing restarts it: one line, exit 3
        assert r["clear_error"] == 1 and "unreachable" in r["notes"], r
    else:  # ask replaces its killed stdio hub once and answers
        assert r["answered"] == 1, r


@pytest.mark.parametrize("transport", ["http", "stdio"])
def test_a_hung_hub_ends_the_turn_within_its_deadline(indexed, transport):
    """SIGSTOP (alive, silent) rather than SIGKILL: the turn still ends within mcp.call_timeout + 5 s,
    in one line that names the deadline."""
    r = hub_row(transport, 1, indexed, call_timeout=5, how="stop")
    _holds(r)
    assert r["clear_error"] == 1 and r["unnamed"] == 0 and r["max_exit_s"] <= 10, r


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/bin/python3").exists(),
                    reason="acting as a second local account needs root and the system python3")
def test_another_local_user_is_refused_everywhere(indexed):
    r = strangers(indexed)
    _holds(r)
    assert r["tries"] == 5 and r["failed"] == 0, r


def test_concurrent_turns_keep_every_acknowledged_turn(indexed):
    r = concurrent_turns(indexed, rounds=1, min_n=2, max_n=2)  # round 0 holds the lock: both wait
    _holds(r)
    assert r["lost"] == 0 and r["answered"] == 2 and r["misordered"] == 0 and r["show_mismatch"] == 0, r
    assert "2 waited" in r["notes"], r


def test_fact_kills_lose_nothing_acknowledged():
    r = fact_kills(3)
    _holds(r)
    assert r["lost"] == 0 and r["corrupt"] == 0 and r["died_early"] == 0, r
    assert r["acks"] >= 3, r  # the writer really wrote before each kill


def test_a_line_cut_by_the_kill_acknowledges_nothing():
    # The clean CI run once killed the writer between "edit" and the rest of its line.
    ledger = Ledger()
    ledger.record_output(["add 1 k0-1\n", "edit"])
    assert ledger.facts == {"k0-1": (1, "add")}
    assert ledger.lost({1: "fault fact k0-1 v1"}) == set()  # the cut edit may have committed


def test_the_fact_ledger_sees_a_loss():
    ledger = Ledger()
    for line in ("add 1 k0-1", "edit 1 k0-1", "add 2 k0-2", "add 3 k0-3", "edit 3 k0-3", "rm 3 k0-3",
                 "import 0 k0-4"):
        ledger.record(line)
    imported = {10 + j: f"fault fact k0-4 imported {j}" for j in range(3)}
    whole = {1: "fault fact k0-1 v1", 2: "fault fact k0-2 v0", **imported}
    assert ledger.lost(whole) == set()
    assert ledger.lost({**whole, 1: "fault fact k0-1 v0"}) == {"edit k0-1"}  # an acknowledged edit undone
    assert ledger.lost({k: v for k, v in whole.items() if k != 2}) == {"add k0-2"}
    assert ledger.lost({**whole, 3: "fault fact k0-3 v1"}) == {"rm k0-3"}  # an acknowledged rm undone
    assert ledger.lost({k: v for k, v in whole.items() if k != 11}) == {"import fault fact k0-4 imported 1"}


def test_poisoned_corpus_memorizes_no_instruction(indexed):
    r = poisoned_corpus(indexed, attacks=1)
    _holds(r)
    assert r["memorized_instructions"] == 0, r
    # the attack reached the poisoned notes, its answer quotes none of the planted text, and the notes (which
    # hold instructions) teach nothing, ordinary sentences included
    assert r["reached"] >= 1 and r["quoted"] == 0 and r["facts"] == 0, r


def test_planted_claims_are_neither_learnt_nor_recalled_and_rank_first_in_the_audit(indexed):
    r = planted_claims(indexed)
    _holds(r)
    assert r["learnt"] == 0 and r["recalled_as_prior"] == 0 and r["misranked"] == 0, r


def test_offline_commands_reach_nothing_but_loopback(indexed):
    from tests.support import netwatch

    if netwatch.available():
        pytest.skip(netwatch.available())
    r = offline_network(indexed, asks=1)
    _holds(r)
    assert r["tries"] == 2 and r["foreign"] == 0, r


def test_secrets_grep_finds_no_copy(indexed):
    r = secrets_grep(indexed, quick=True)
    _holds(r)
    assert r["answered"] == r["tries"], r
    assert r["copies"] == 0 and r["printed"] == 0, r


def test_the_grep_sees_a_copy_in_binary_and_wal_files(tmp_path):
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "state.sqlite3-wal").write_bytes(b"\x00\x01pp-fault-abc\x00pp-fault-abc")
    (tmp_path / "clean.bin").write_bytes(b"\x00pp-fault-ab\x00")
    assert _copies(tmp_path, [b"pp-fault-abc"]) == {"sub/state.sqlite3-wal": 2}


def test_the_fault_suite_runs_where_pytest_is_absent():
    """The documented install has no pytest: every module the suite imports, at the top or inside a
    function (where a missing one crashed a full run after 49 minutes), imports without it."""
    import ast
    import subprocess
    import sys

    bench = Path(__file__).resolve().parents[2] / "bench"
    names: set[str] = set()
    for path in bench.glob("faults*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
    assert "tests.support.poisoned" in names  # the walk does see imports inside functions
    code = ("import importlib, sys\nsys.modules['pytest'] = None  # import pytest now raises ImportError\n"
            f"for name in {sorted(names)!r}:\n    importlib.import_module(name)\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=bench.parent, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_rows_stream_with_their_bound():
    """Each row is printed as one table line with the bound it must hold and whether it holds."""
    from bench.faults import BOUNDS, table_head, table_row
    from bench.faults_common import row

    good = {**row("hub kills (http)", tries=2, survived=2, clear_error=2), "bound": BOUNDS["http"], "wall_s": 3}
    bad = {**row("hub kills (stdio)", tries=2, survived=1, hang=1), "bound": BOUNDS["stdio"], "wall_s": 9}
    head = table_head().splitlines()[0]
    assert head.count("|") == table_row(good).count("|")
    assert BOUNDS["http"] in table_row(good) and "| yes |" in table_row(good)
    assert "| no: hang, survived |" in table_row(bad)
