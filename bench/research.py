"""Deep-research benchmark: wall time per stage, hub calls, and concurrent against sequential retrieval.

In one run, in a temporary data home (nothing of yours is touched):

1. the bundled corpus (indexed first; the index time is reported apart) and the real-paper dev
   abstracts (``../shared/eval/realpapers/dev/docs``, ingested into collection ``realpapers``):
   one ``--no-clarify`` research run each with the offline brain over the stdio hub; seconds per
   stage (outline, searching, review) and the hub calls each stage made;
2. the same 6 knowledge points (18 searches) retrieved one query at a time (every hub call awaited
   alone), one point at a time (its 3 queries at once) and all at once, ``--rounds`` times each in
   a rotating order, on one hub session with warm caches; and all at once over ``--sessions`` hub
   sessions (one stdio hub process each). Medians, hub calls per mode and the speed-up of all at
   once over the other two are printed. Searches issued at once go out as one
   ``query_knowledge_hub_batch`` call (:mod:`core.tools.batching`);
3. unless ``--skip-cold``, one round of each mode on a fresh hub process (an empty query-embedding
   cache: all at once embeds its queries in one encoder batch).

    python bench/research.py [--rounds 5] [--sessions 3] [--skip-realpapers] [--skip-cold]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEV_DOCS = REPO.parent / "shared" / "eval" / "realpapers" / "dev" / "docs"
if not DEV_DOCS.is_dir():
    DEV_DOCS = Path("/work/shared/eval/realpapers/dev/docs")
BUNDLED_TOPIC = "Parameter-efficient fine-tuning and alignment of large language models"
REAL_TOPIC = "Vision transformers and self-supervised pretraining"


class RoundRobin:
    """Several hub sessions behind one ``search``: each query goes to the next session."""

    def __init__(self, hubs) -> None:
        self.hubs, self.n = hubs, 0

    async def search(self, *a, **kw):
        self.n += 1
        return await self.hubs[self.n % len(self.hubs)].search(*a, **kw)


async def one_run(settings, topic: str, collection: str) -> dict:
    from core.agent import open_agent
    from core.brains.offline.brain import OfflineBrain

    async with open_agent(settings, brain=OfflineBrain(settings), collection=collection) as agent:
        hub_calls = count_calls(agent.hub)  # every tool call on the wire (a batch of searches is one)
        marks: dict[str, float] = {}  # stage → when the graph entered it (the event's own ts)
        review = None
        async for ev in agent.run_research(topic, clarify=False, confirm=True, collection=collection):
            if ev.kind == "research_started":
                marks["initial"] = ev.ts
            elif ev.kind == "research_stage":
                marks[ev.stage] = ev.ts
            elif ev.kind == "review_finished":
                review, marks["end"] = ev.review, ev.ts
            elif ev.kind == "turn_failed":
                raise SystemExit(f"research failed: {ev.error}")

    def span(a: str, b: str) -> tuple[float, int]:
        return marks[b] - marks[a], sum(1 for t, _ in hub_calls if marks[a] <= t < marks[b])

    return {"outline": span("initial", "confirmation"), "searching": span("searching", "review"),
            "review": span("review", "end"), "total": span("initial", "end"),
            "points": len(review.points), "sources": len(review.sources)}


MODES = {"query": "one query at a time", "point": "one point at a time", "all": "all at once"}


def count_calls(hub) -> list[tuple[float, str]]:
    """(time.time(), tool) of each call ``hub`` (a HubClient) makes from now on: a batch of searches is one."""
    calls, call = [], hub.call

    async def counted(tool, args, timeout=None):
        calls.append((time.time(), tool))
        return await call(tool, args, timeout)

    hub.call = counted
    return calls


async def wait_ready(hub) -> None:
    """Until the hub process has loaded its indexes and encoder (so a timed round measures queries)."""
    while (await hub.call("hub_status", {})).structured.get("phase") not in ("ready", "failed"):
        await asyncio.sleep(0.1)


async def concurrency_modes(settings, rounds: int, sessions: int, cold: bool) -> dict:
    from core.agent import _vocabulary
    from core.research import outline as outlines
    from core.research.search import CANDIDATES, search_all
    from core.tools.hub_client import HubClient

    times: dict[str, list[float]] = {m: [] for m in MODES}
    calls: dict[str, int] = {}
    async with HubClient(settings.mcp) as hub:
        vocab = await _vocabulary(hub, "default", None)
        parts = outlines.facets(BUNDLED_TOPIC)
        hits = await asyncio.gather(*(hub.search(f, CANDIDATES, "default") for f in parts))
        points = outlines.build_outline(BUNDLED_TOPIC, dict(zip(parts, hits)), vocab,
                                        answers={"4": "6"}, questions=outlines.clarifying_questions(
                                            BUNDLED_TOPIC, vocab)).knowledge_points[:6]
        searches = sum(len(queries) for queries in map(_queries, points))
        log = count_calls(hub)
        for mode in MODES:  # warm every path's caches alike; count each mode's hub calls
            log.clear()
            await search_all(hub, points, "default", concurrency=mode, vocab=vocab)
            calls[mode] = len(log)
        order = list(MODES)
        for r in range(rounds):  # a different mode goes first each round
            for mode in order[r % 3:] + order[: r % 3]:
                t = time.perf_counter()
                await search_all(hub, points, "default", concurrency=mode, vocab=vocab)
                times[mode].append(time.perf_counter() - t)
        extra = [HubClient(settings.mcp) for _ in range(sessions - 1)]
        for h in extra:
            await h.__aenter__()
        try:
            pool = RoundRobin([hub, *extra])
            await search_all(pool, points, "default", vocab=vocab)
            multi = []
            for _ in range(rounds):
                t = time.perf_counter()
                await search_all(pool, points, "default", vocab=vocab)
                multi.append(time.perf_counter() - t)
        finally:
            for h in extra:
                await h.__aexit__(None, None, None)
    first: dict[str, float] = {}
    for mode in MODES if cold else ():  # a fresh hub process each: its query-embedding cache is empty
        async with HubClient(settings.mcp) as fresh:
            await wait_ready(fresh)
            t = time.perf_counter()
            await search_all(fresh, points, "default", concurrency=mode, vocab=vocab)
            first[mode] = time.perf_counter() - t
    return {"points": len(points), "searches": searches, "calls": calls, "cold": first,
            "median": {m: statistics.median(v) for m, v in times.items()},
            "sessions_median": statistics.median(multi), "sessions": sessions}


def _queries(point) -> list[str]:
    from core.research.search import queries

    return queries(point)


def print_modes(p: dict, rounds: int) -> None:
    med, all_ = p["median"], p["median"]["all"]
    print(f"\nretrieval of {p['points']} points, {p['searches']} searches, 1 hub session, warm caches "
          f"(median of {rounds}; {os.cpu_count()} CPU cores):")
    print(f"  {'':<30}{'seconds':>8}{'hub calls':>11}   all at once is")
    for mode, label in MODES.items():
        gain = f"{med[mode] / all_:.2f}x faster" if mode != "all" else ""
        print(f"  {label:<30}{med[mode]:>8.3f}{p['calls'][mode]:>11}   {gain}")
    print(f"  {'all at once, ' + str(p['sessions']) + ' sessions':<30}{p['sessions_median']:>8.3f}"
          f"{'':>11}   ({p['sessions_median'] / all_:.2f}x the time of 1 session)")
    if p["cold"]:
        cold, c_all = p["cold"], p["cold"]["all"]
        print("first round with a cold query-embedding cache (a fresh hub process per mode):")
        for mode, label in MODES.items():
            gain = f"{cold[mode] / c_all:.2f}x faster" if mode != "all" else ""
            print(f"  {label:<30}{cold[mode]:>8.3f}{'':>11}   {gain}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--skip-realpapers", action="store_true")
    ap.add_argument("--skip-cold", action="store_true", help="no cold-cache round (3 fresh hub processes)")
    ap.add_argument("--hub-db", metavar="FILE", help="start from a copy of this indexed hub.sqlite3 (skips indexing)")
    args = ap.parse_args()
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory(prefix="pp-research-bench-") as home:
        os.environ["PAPERPILOT_HOME"] = home
        os.chmod(home, 0o700)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        from core.config import load_settings

        settings = load_settings(use_user_file=False)
        settings.agent.router, settings.agent.critic, settings.memory.enabled = "rules", "rules", False
        if args.hub_db:
            import shutil

            shutil.copy(args.hub_db, settings.paths.resolve(settings.paths.hub_db))
        t = time.perf_counter()
        from core.hub.service import Hub

        hub = Hub(settings.paths.resolve(settings.paths.hub_db))
        hub.start(background=False)
        hub.wait_ready()
        hub.store.close()
        print(f"index bundled corpus: {time.perf_counter() - t:.1f} s")
        runs = [("bundled", BUNDLED_TOPIC, "default")]
        if not args.skip_realpapers and DEV_DOCS.is_dir():
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "--offline", "ingest", str(DEV_DOCS),
                            "--collection", "realpapers"], cwd=REPO, check=True, capture_output=True)
            print(f"ingest {DEV_DOCS} ({len(list(DEV_DOCS.glob('*.md')))} docs): {time.perf_counter() - t:.1f} s")
            runs.append(("realpapers dev", REAL_TOPIC, "realpapers"))
        print(f"\n{'corpus':<16}{'stage':<11}{'seconds':>9}{'hub calls':>11}")
        for name, topic, collection in runs:
            r = asyncio.run(one_run(settings, topic, collection))
            for stage in ("outline", "searching", "review", "total"):
                secs, calls = r[stage]
                print(f"{name:<16}{stage:<11}{secs:>9.2f}{calls:>11}")
            print(f"{'':<16}{r['points']} points, {r['sources']} sources")
        p = asyncio.run(concurrency_modes(settings, args.rounds, args.sessions, not args.skip_cold))
        print_modes(p, args.rounds)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
