"""TUI benchmark: time to first paint, input lag while an answer streams at 200 tokens/s, and quit.

    python bench/tui.py [--tokens 1000] [--rate 200] [--quit-runs 2]

First paint is measured from process launch (interpreter start included) to the first completed
refresh of the main screen, with the real settings and the real agent starting in the background.
Input lag is the time from a key event being posted to the question box showing it, sampled
every 40 ms while a recorded comparison turn (tests/support/traces) streams its Markdown answer,
repeated to the requested length (tables included).
Quit is measured from ``app.exit()`` to the end of the process, after a real offline turn over the
bundled hub (so torch is loaded in the app and in the hub), through ``run_app`` (what
``paperpilot`` runs) beside a plain ``App.run`` in the same run.
Goals: first paint ≤ 1 s, input lag p95 ≤ 50 ms, quit ≤ 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the recorded turns in tests/support

FIRST_PAINT_CHILD = r"""
import sys, time
from paperpilot_tui.app import PaperPilotApp
from core.config import load_settings

async def auto(pilot):
    while pilot.app.first_paint_at is None:
        await pilot.pause(0.005)
    print(f"PAINTED {pilot.app.first_paint_at:.6f}", flush=True)
    mods = HEAVY_AT_PAINT
    print("HEAVY " + ",".join(mods), flush=True)
    pilot.app.exit()

class App(PaperPilotApp):
    def _painted(self):
        global HEAVY_AT_PAINT
        HEAVY_AT_PAINT = [m for m in ("torch", "transformers", "langgraph") if m in sys.modules]
        super()._painted()

HEAVY_AT_PAINT = []
App(load_settings()).run(headless=True, size=(120, 40), auto_pilot=auto)
"""


def first_paint(runs: int = 3) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.time()
        proc = subprocess.run([sys.executable, "-c", FIRST_PAINT_CHILD], capture_output=True, text=True, timeout=120)
        painted = [line for line in proc.stdout.splitlines() if line.startswith("PAINTED")]
        heavy = [line for line in proc.stdout.splitlines() if line.startswith("HEAVY")]
        if not painted:
            raise SystemExit(f"first-paint child failed: {proc.stderr.strip().splitlines()[-1:]}")
        out.append(float(painted[0].split()[1]) - t0)
        if heavy and heavy[0].strip() != "HEAVY":
            print(f"  warning: heavy modules loaded before first paint: {heavy[0][6:]}")
    return out


QUIT_CHILD = r"""
import sys, time
from paperpilot_tui.app import PaperPilotApp, run_app
from core.config import load_settings

async def auto(pilot):
    app = pilot.app
    while app.session.agent is None:
        await pilot.pause(0.05)
    box = app.main_screen.query_one("#chat-input")
    box.load_text("What rank does LoRA use by default?")
    await pilot.press("enter")
    while app.main_screen.turns_ended < 1:
        await pilot.pause(0.05)
    print(f"EXIT {time.time():.6f}", flush=True)
    app.exit()

app = PaperPilotApp(load_settings())
if sys.argv[1] == "run_app":
    run_app(app, headless=True, size=(120, 40), auto_pilot=auto)
else:
    app.run(headless=True, size=(120, 40), auto_pilot=auto)
"""


def quit_times(how: str, runs: int) -> list[float]:
    """Seconds from ``app.exit()`` to the end of the process (``how``: run_app or plain run)."""
    out = []
    for _ in range(runs):
        proc = subprocess.Popen([sys.executable, "-c", QUIT_CHILD, how], stdout=subprocess.PIPE, text=True,
                                stderr=subprocess.DEVNULL)
        exited = None
        for line in proc.stdout:
            if line.startswith("EXIT"):
                exited = float(line.split()[1])
        proc.wait(300)
        if exited is None:
            raise SystemExit("quit child did not finish its turn")
        out.append(time.time() - exited)
    return out


def long_answer(n_tokens: int):
    """Stretch a recorded turn's token stream to ``n_tokens`` by repeating its answer."""
    from core.events import TokenDelta

    def transform(events):
        first = next(i for i, e in enumerate(events) if isinstance(e, TokenDelta))
        last = max(i for i, e in enumerate(events) if isinstance(e, TokenDelta))
        toks = [e.text for e in events[first:last + 1]]
        body = (toks + ["\n\n"]) * (n_tokens // len(toks) + 1)
        stream = [events[first].model_copy(update={"text": t}) for t in body[:n_tokens]]
        return events[:first] + stream + events[last + 1:]

    return transform


async def input_lag(n_tokens: int, rate: float) -> list[float]:
    from textual import events

    from tests.support.recorded import RecordedAgent, demo_settings, demo_stores, recorded_factory
    from paperpilot_tui.app import PaperPilotApp

    settings = demo_settings()
    stores = demo_stores(settings)
    agent = RecordedAgent(stores.traces, token_rate=rate, transform=long_answer(n_tokens))
    app = PaperPilotApp(settings, session="bench", agent_factory=recorded_factory(agent),
                        stores_factory=lambda s: stores)
    lags: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        while app.session.agent is None:
            await pilot.pause(0.05)
        box = app.main_screen.query_one("#chat-input")
        box.load_text("Compare LoRA and QLoRA in memory use and accuracy")
        await pilot.press("enter")
        while not app.main_screen.query("Answer"):
            await asyncio.sleep(0.01)
        while app.session.busy:
            before = len(box.text)
            t0 = time.perf_counter()
            app.post_message(events.Key("x", "x"))
            while len(box.text) == before:
                await asyncio.sleep(0.0005)
                if time.perf_counter() - t0 > 2:
                    break
            lags.append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.04)
    return lags


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(p / 100 * (len(values) - 1))))
    return values[k]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tokens", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quit-runs", type=int, default=2)
    args = parser.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    paints = first_paint(args.runs)
    print(f"first paint: median {statistics.median(paints) * 1000:.0f} ms  "
          f"(runs: {', '.join(f'{p * 1000:.0f}' for p in paints)} ms; goal ≤ 1000 ms)")
    lags = asyncio.run(input_lag(args.tokens, args.rate))
    print(f"input lag while streaming {args.tokens} tokens at {args.rate:g} tok/s: {len(lags)} samples, "
          f"p50 {pct(lags, 50):.1f} ms, p95 {pct(lags, 95):.1f} ms, max {max(lags):.1f} ms (goal p95 ≤ 50 ms)")
    if args.quit_runs:
        fast, plain = quit_times("run_app", args.quit_runs), quit_times("run", args.quit_runs)
        print(f"quit after a real turn: run_app median {statistics.median(fast):.2f} s, plain App.run "
              f"{statistics.median(plain):.2f} s, ratio {statistics.median(plain) / statistics.median(fast):.1f}x "
              f"(goal ≤ 1 s)")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
