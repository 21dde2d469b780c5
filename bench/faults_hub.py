"""Fault driver: SIGKILL the knowledge hub in the middle of a real ``paperpilot ask``, many times.

    python bench/faults_hub.py [--http 30] [--stdio 10] [--home DIR] [--json]

Each try is real processes on loopback only. The hub runs with a rerank step that holds the query
open (``tests.stubs.slow_rerank``) and drops a marker file as the query enters it; once the marker
is there the driver waits a random 0-0.5 s and SIGKILLs the hub:

* ``http``: a ``hub serve --transport http`` on a free loopback port; ``ask`` is pointed at it.
  Nothing restarts the hub, so the expected end is one clear line and exit code 3.
* ``stdio``: the bundled stdio hub that ``ask`` starts itself (the warm daemon off); the killed
  child is replaced once, and the expected end is an answer (exit 0).

:func:`hub_kills` is the API (``bench/faults.py`` may fold it in): it returns counts per outcome,
tries, survived (``ask`` exited by itself within the bound), answered (exit 0), clear_error (a
failure told in exactly one stderr line, no traceback), traceback, hang (killed at the bound), and
the slowest exit after the kill. Every wait is bounded: ``ask`` gets ``call_timeout + 5`` s after
the kill; no try takes more than about two minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
SLOW = "tests.stubs.slow_rerank:rerank"
QUESTION = "What rank does LoRA use by default?"
START_BOUND_S = 90  # the hub to listen, the query to reach it


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(home: Path, mark: Path, hold_s: float) -> dict[str, str]:
    return {**os.environ, "PAPERPILOT_HOME": str(home), "PYTHONPATH": str(ROOT), "SLOW_RERANK_MARK": str(mark),
            "SLOW_RERANK_S": str(hold_s), "PAPERPILOT_HUB_RERANK": SLOW}


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


def _child_hub(parent: int) -> int | None:
    """The pid of ``parent``'s child running the hub (Linux /proc)."""
    for entry in Path("/proc").iterdir():
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (entry / "cmdline").read_bytes().decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == parent and "core.hub" in cmd:
            return int(entry.name)
    return None


def _wait(cond, bound_s: float, proc: subprocess.Popen) -> bool:
    deadline = time.monotonic() + bound_s
    while time.monotonic() < deadline:
        if cond():
            return True
        if proc.poll() is not None:
            return False
        time.sleep(0.05)
    return False


def _kill(proc: subprocess.Popen | None) -> None:
    if proc is not None and proc.poll() is None:
        proc.kill()
    if proc is not None:
        proc.wait(10)


def one_try(transport: str, home: Path, rng: random.Random, call_timeout: float = 30, how: str = "kill") -> dict:
    """One fault; the outcome of ``ask``: code, stderr, seconds from the fault to its exit, hang.
    ``how``: ``kill`` (SIGKILL: the hub is dead) or ``stop`` (SIGSTOP: alive, never answering)."""
    work = Path(tempfile.mkdtemp(prefix="faults-", dir=home))
    mark, config = work / "in-rerank", work / "settings.yaml"
    hub = ask = None
    victim: int | None = None
    try:
        if transport == "http":
            port = _free_port()
            hub = subprocess.Popen([sys.executable, "-m", "core.hub", "serve", "--transport", "http", "--port",
                                    str(port)], cwd=ROOT, env=_env(home, mark, 60), stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
            if not _wait(lambda: _listening(port), START_BOUND_S, hub):
                return {"skipped": "the HTTP hub did not start"}
            config.write_text(f"mcp:\n  connection: remote\n  call_timeout: {call_timeout}\n  connections:\n"
                              f"    remote: {{transport: streamable_http, url: 'http://127.0.0.1:{port}/mcp'}}\n")
            hold = 60
        else:
            config.write_text(f"mcp:\n  use_daemon: false\n  call_timeout: {call_timeout}\n")
            hold = 1  # the replacement hub answers after holding the query 1 s
        ask = subprocess.Popen([sys.executable, "-c", CLI, "ask", "--llm", "offline", "--config", str(config),
                                QUESTION], cwd=ROOT, env=_env(home, mark, hold), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        if not _wait(mark.exists, START_BOUND_S, ask):
            return {"skipped": "the query never reached the hub", "stderr": (ask.stderr.read() if ask.poll()
                                                                          is not None else "")}
        time.sleep(rng.uniform(0, 0.5))
        victim = hub.pid if hub is not None else _child_hub(ask.pid)
        if victim is None:
            return {"skipped": "no hub child to kill"}
        os.kill(victim, signal.SIGKILL if how == "kill" else signal.SIGSTOP)
        killed = time.monotonic()
        try:
            _, err = ask.communicate(timeout=call_timeout + 5)
            return {"code": ask.returncode, "stderr": err, "exit_s": time.monotonic() - killed, "hang": False}
        except subprocess.TimeoutExpired:
            ask.kill()
            _, err = ask.communicate()
            return {"code": None, "stderr": err, "exit_s": time.monotonic() - killed, "hang": True}
    finally:
        _kill(ask)
        _kill(hub)
        if how == "stop" and victim is not None:  # a stopped stdio child outlives ask: SIGKILL ends it stopped or not
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(work, ignore_errors=True)


def classify(outcome: dict) -> dict[str, bool]:
    err = outcome.get("stderr", "")
    lines = [ln for ln in err.splitlines() if ln.strip()]
    code = outcome.get("code")
    return {"survived": not outcome.get("hang") and code is not None, "answered": code == 0,
            "clear_error": code not in (0, None) and len(lines) == 1 and "Traceback" not in err,
            "traceback": "Traceback" in err, "hang": bool(outcome.get("hang"))}


def indexed_home() -> Path:
    """A temporary data dir whose hub database holds the bundled corpus with vectors."""
    from core.hub.service import Hub

    home = Path(tempfile.mkdtemp(prefix="faults-home-"))
    os.chmod(home, 0o700)
    hub = Hub(home / "hub.sqlite3")
    hub.start(background=False)
    hub.wait_ready()
    hub.store.close()
    return home


def hub_kills(transport: str, tries: int, home: Path | None = None, call_timeout: float = 30,
              seed: int = 17, how: str = "kill") -> dict:
    """Kill (or, ``how="stop"``, hang) the hub mid-query ``tries`` times over ``transport`` (``http``
    or ``stdio``); the counts."""
    assert how in ("kill", "stop"), how
    assert transport in ("http", "stdio"), transport
    own = home is None
    home = indexed_home() if own else home
    rng = random.Random(seed)
    counts = {"tries": 0, "survived": 0, "answered": 0, "clear_error": 0, "traceback": 0, "hang": 0,
              "skipped": 0, "max_exit_s": 0.0, "examples": [], "named": 0}
    try:
        for _ in range(tries):
            outcome = one_try(transport, home, rng, call_timeout, how)
            if "skipped" in outcome:
                counts["skipped"] += 1
                continue
            counts["tries"] += 1
            for key, hit in classify(outcome).items():
                counts[key] += hit
            counts["named"] += "call_timeout" in outcome.get("stderr", "")  # the line names the deadline
            counts["max_exit_s"] = round(max(counts["max_exit_s"], outcome["exit_s"]), 2)
            line = re.sub(r":\d+", ":PORT", (outcome["stderr"].strip().splitlines()[-1:] or [""])[0])[:300]
            if line and line not in counts["examples"] and len(counts["examples"]) < 3:
                counts["examples"].append(line)
    finally:
        if own:
            shutil.rmtree(home, ignore_errors=True)
    return counts


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--http", type=int, default=30, help="kills of an HTTP hub")
    p.add_argument("--stdio", type=int, default=10, help="kills of the stdio hub")
    p.add_argument("--home", type=Path, default=None, help="an indexed data dir (default: a fresh temporary one)")
    p.add_argument("--json", action="store_true")
    args = p.parse_args()
    home = args.home or indexed_home()
    try:
        report = {t: hub_kills(t, n, home) for t, n in (("http", args.http), ("stdio", args.stdio)) if n}
    finally:
        if args.home is None:
            shutil.rmtree(home, ignore_errors=True)
    if args.json:
        print(json.dumps(report, indent=2))
        return
    keys = ["tries", "survived", "answered", "clear_error", "traceback", "hang", "skipped", "max_exit_s"]
    print(f"| transport | {' | '.join(keys)} |\n|---|{'---|' * len(keys)}")
    for t, c in report.items():
        print(f"| {t} | {' | '.join(str(c[k]) for k in keys)} |")
    for t, c in report.items():
        for ex in c["examples"]:
            print(f"{t}: {ex}")


if __name__ == "__main__":
    main()
