"""Start-up and quit benchmark: the app's first minute and its exit, with the real agent and hub.

    python bench/startup.py [--runs 1] [--question "..."]

Each run launches the app in a child process (headless, 120×40, real settings, real stdio hub,
offline brain) on a data dir: first a fresh one, then the same one again ("existing"). It reports
  ready   seconds from process launch until the status bar first says "ready"
  answer  seconds from asking, right after "ready", until the turn ended
  quit    seconds from ``app.exit()`` until the process has exited (what the user waits after ctrl+q),
          ending as ``paperpilot`` does, through ``run_app`` (BENCH_EXIT=interpreter: a plain ``App.run``)
and every distinct status-bar activity the child saw on the way, with its time.
Goals: a first question asked after "ready" is answered in ≤ 5 s; quit ≤ 1 s; a fresh data dir "ready" within
2× of an existing one. ``--index-cache both`` (the default) measures without the per-user index of the bundled
notes (``PAPERPILOT_INDEX_CACHE=off``: each fresh data dir indexes them, as before it existed) and with it (a
private cache, primed by one first data dir), in one run, and prints medians with the load average.
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

CHILD = r"""
import json, os, sys, time
T0 = float(os.environ["BENCH_T0"])
from paperpilot_tui.app import PaperPilotApp, run_app
from core.config import load_settings

report = {"activities": []}

async def auto(pilot):
    app = pilot.app
    status = lambda: app.main_screen.status.activity
    seen = None
    while True:
        if app.main_screen.is_mounted:
            act = status()
            if act != seen:
                seen = act
                report["activities"].append([round(time.time() - T0, 2), act])
            if act == "ready" and app.session.agent is not None:
                break
            if "not running" in act or "unavailable" in act:
                report["error"] = act
                break
        await pilot.pause(0.02)
    report["ready"] = time.time() - T0
    if "error" not in report:
        box = app.main_screen.query_one("#chat-input")
        box.load_text(os.environ["BENCH_Q"])
        before = app.main_screen.turns_ended
        t = time.time()
        await pilot.press("enter")
        while app.main_screen.turns_ended == before:
            act = status()
            if act != seen:
                seen = act
                report["activities"].append([round(time.time() - T0, 2), act])
            await pilot.pause(0.02)
        report["answer"] = time.time() - t
    report["exit_called"] = time.time()
    print("REPORT " + json.dumps(report), flush=True)
    app.exit()

app = PaperPilotApp(load_settings(), blink=False)
if os.environ.get("BENCH_EXIT") == "interpreter":
    app.run(headless=True, size=(120, 40), auto_pilot=auto)
else:
    run_app(app, headless=True, size=(120, 40), auto_pilot=auto)  # what `paperpilot` does
print(f"RUN_RETURNED {time.time():.6f}", flush=True)
"""


def run_once(home: str, question: str) -> dict:
    env = {**os.environ, "PAPERPILOT_HOME": home, "BENCH_T0": f"{time.time():.6f}", "BENCH_Q": question,
           "PAPERPILOT_LLM_PROVIDER": os.environ.get("PAPERPILOT_LLM_PROVIDER", "offline")}
    proc = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=600,
                          env=env, cwd=ROOT)
    ended = time.time()
    lines = proc.stdout.splitlines()
    rep = next((json.loads(x[7:]) for x in lines if x.startswith("REPORT ")), None)
    if rep is None:
        raise SystemExit(f"child failed (rc {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    returned = next((float(x.split()[1]) for x in lines if x.startswith("RUN_RETURNED")), ended)
    rep["quit"] = ended - rep["exit_called"]
    rep["quit_app"] = returned - rep["exit_called"]  # until App.run returned (the rest: interpreter exit)
    return rep


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--question", default="What rank does LoRA use by default?")
    parser.add_argument("--index-cache", choices=["off", "on", "both"], default="both",
                        help="the per-user index of the bundled notes: off (every fresh data dir indexes them, the"
                             " 'before'), on (a private cache primed by a first data dir), or both in one run")
    args = parser.parse_args()
    print(f"startup benchmark · {os.cpu_count()} CPUs · load average {load()} at start")
    modes = ["off", "on"] if args.index_cache == "both" else [args.index_cache]
    ready: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="pp-bench-cache-") as scratch:
        cache = os.path.join(scratch, "index")  # a cache folder is used only inside a private one (not /tmp)
        for mode in modes:
            os.environ["PAPERPILOT_INDEX_CACHE"] = "off" if mode == "off" else cache
            if mode == "on":  # the user's first data dir: indexes the notes and leaves the copy
                with tempfile.TemporaryDirectory(prefix="pp-bench-") as home:
                    rep = run_once(home, args.question)
                print(f"index cache on: primed by a first data dir (ready {rep['ready']:5.1f} s)")
            for n in range(args.runs):
                with tempfile.TemporaryDirectory(prefix="pp-bench-") as home:
                    for label in ("fresh", "existing"):
                        rep = run_once(home, args.question)
                        ready.setdefault((mode, label), []).append(rep["ready"])
                        ready.setdefault((mode, "quit"), []).append(rep["quit"])
                        acts = " → ".join(f"{a} @{t:g}s" for t, a in rep["activities"])
                        print(f"cache {mode:3s} run {n + 1} {label:8s} ready {rep['ready']:5.1f} s"
                              f"  answer {rep.get('answer', float('nan')):5.1f} s"
                              f"  quit {rep['quit']:4.2f} s (app {rep['quit_app']:4.2f} s)  {rep.get('error', '')}")
                        print(f"    {acts}")
    print(f"\nmedians over {args.runs} run(s) · load average {load()} at end")
    for mode in modes:
        f, e, q = (statistics.median(ready[(mode, k)]) for k in ("fresh", "existing", "quit"))
        print(f"index cache {mode:3s}: fresh ready {f:5.1f} s   existing ready {e:5.1f} s   fresh/existing {f / e:4.2f}x"
              f"   quit {q:4.2f} s")
    return 0


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    sys.exit(main())
