"""Cold vs warm ``paperpilot ask``: wall time of the whole command, without and with the hub daemon.

    python bench/ask_warm.py [--runs 5] [--question "..."] [--home DIR]

On one data dir (a temporary one, indexed by a first untimed ask, unless --home is given), the same
question is asked ``--runs`` times with no daemon (cold: each ask starts its own stdio hub), then
``paperpilot hub start`` and ``--runs`` times again (warm: each ask connects to the daemon), then
``hub stop``. The warm series runs twice: with the warm ask server off (``PAPERPILOT_NO_WARM=1``:
the daemon alone) and on (``ask`` runs in a forked child of a process that imported the agent).
Each ask is a fresh process, timed from launch to exit; the hub each one used is read from
``ask --json``. Reports the median and all runs. Goals (issue 12): warm ≤ 1.5 s, cold ≤ 5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"


def cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", CLI, *args], cwd=ROOT, capture_output=True, text=True,
                          env={**os.environ, "PAPERPILOT_HOME": str(home)}, timeout=900)


def ask(home: Path, question: str) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = cli(home, "ask", "--json", question)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise SystemExit(f"ask failed ({out.returncode}): {out.stderr.strip()[-500:]}")
    return wall, json.loads(out.stdout).get("hub", "?")


def series(home: Path, question: str, runs: int, label: str) -> float:
    walls, hubs = [], set()
    for _ in range(runs):
        wall, hub = ask(home, question)
        walls.append(wall)
        hubs.add(hub)
    med = statistics.median(walls)
    print(f"{label:26} median {med:6.2f} s   runs {' '.join(f'{w:.2f}' for w in walls)}   via {', '.join(sorted(hubs))}")
    return med


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--question", default="What rank does LoRA use by default?")
    p.add_argument("--home", type=Path, default=None, help="data dir (default: a fresh temporary one)")
    args = p.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    home = args.home or Path(tempfile.mkdtemp(prefix="paperpilot-bench-ask-"))
    cli(home, "hub", "stop")
    print(f"data dir {home}; preparing it (one untimed ask) ...", flush=True)
    ask(home, args.question)
    cold = series(home, args.question, args.runs, "cold")
    t0 = time.perf_counter()
    started = cli(home, "hub", "start")
    if started.returncode != 0:
        raise SystemExit(f"hub start failed: {started.stderr.strip()}")
    print(f"hub start took {time.perf_counter() - t0:.2f} s: {started.stdout.strip()}")
    try:
        ask(home, args.question)  # the daemon's first query loads its encoder: not a between-commands cost
        os.environ["PAPERPILOT_NO_WARM"] = "1"
        hub_only = series(home, args.question, args.runs, "daemon, no warm ask")
        del os.environ["PAPERPILOT_NO_WARM"]
        warm = series(home, args.question, args.runs, "warm (daemon + warm ask)")
    finally:
        cli(home, "hub", "stop")
    print(f"goals: warm ≤ 1.5 s ({'met' if warm <= 1.5 else 'NOT met'}), cold ≤ 5 s "
          f"({'met' if cold <= 5 else 'NOT met'}); the daemon alone saves {cold - hub_only:.2f} s a command, "
          f"with the warm ask {cold - warm:.2f} s ({cold / warm:.1f}x faster than cold)")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
