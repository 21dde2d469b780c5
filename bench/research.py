"""Deep-research benchmark: wall time per stage, hub calls, and parallel against sequential retrieval.

In one run, in a temporary data home (nothing of yours is touched):

1. the bundled corpus (indexed first; the index time is reported apart) and the real-paper dev
   abstracts (``../shared/eval/realpapers/dev/docs``, ingested into collection ``realpapers``):
   one ``--no-clarify`` research run each with the offline brain over the stdio hub; seconds per
   stage (outline, searching, review) and the hub calls each stage made;
2. the same 6 knowledge points retrieved one point after another and all at once, alternating,
   ``--rounds`` times each, on one hub session; and all at once over ``--sessions`` hub sessions
   (one stdio hub process each). Medians and the speed-ups are printed.

    python bench/research.py [--rounds 5] [--sessions 3] [--skip-realpapers]
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


class Counting:
    """A hub client that counts its calls (search and every other tool)."""

    def __init__(self, hub) -> None:
        self._hub, self.stamps = hub, []  # when each call was made (time.time(), as events' ts)

    def __getattr__(self, name):
        return getattr(self._hub, name)

    async def search(self, *a, **kw):
        self.stamps.append(time.time())
        return await self._hub.search(*a, **kw)

    async def call(self, *a, **kw):
        self.stamps.append(time.time())
        return await self._hub.call(*a, **kw)


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
        hub = agent.hub = Counting(agent.hub)
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
        return marks[b] - marks[a], sum(1 for t in hub.stamps if marks[a] <= t < marks[b])

    return {"outline": span("initial", "confirmation"), "searching": span("searching", "review"),
            "review": span("review", "end"), "total": span("initial", "end"),
            "points": len(review.points), "sources": len(review.sources)}


async def parallel_vs_sequential(settings, rounds: int, sessions: int) -> dict:
    from core.agent import _vocabulary
    from core.research import outline as outlines
    from core.research.search import CANDIDATES, search_all
    from core.tools.hub_client import HubClient
    from core.vocabulary import active

    async with HubClient(settings.mcp) as hub:
        vocab = await _vocabulary(hub, "default", None)
        with active(vocab):
            parts = outlines.facets(BUNDLED_TOPIC)
            hits = await asyncio.gather(*(hub.search(f, CANDIDATES, "default") for f in parts))
            points = outlines.build_outline(BUNDLED_TOPIC, dict(zip(parts, hits)), vocab,
                                            answers={"4": "6"}, questions=outlines.clarifying_questions(
                                                BUNDLED_TOPIC, vocab)).knowledge_points[:6]
            seq, par = [], []
            await search_all(hub, points, "default")  # warm both paths' caches alike
            for _ in range(rounds):
                t = time.perf_counter()
                await search_all(hub, points, "default", parallel=False)
                seq.append(time.perf_counter() - t)
                t = time.perf_counter()
                await search_all(hub, points, "default", parallel=True)
                par.append(time.perf_counter() - t)
        extra = [HubClient(settings.mcp) for _ in range(sessions - 1)]
        for h in extra:
            await h.__aenter__()
        try:
            pool = RoundRobin([hub, *extra])
            with active(vocab):
                await search_all(pool, points, "default")
                multi = []
                for _ in range(rounds):
                    t = time.perf_counter()
                    await search_all(pool, points, "default", parallel=True)
                    multi.append(time.perf_counter() - t)
        finally:
            for h in extra:
                await h.__aexit__(None, None, None)
    return {"points": len(points), "sequential": statistics.median(seq), "parallel": statistics.median(par),
            "parallel_sessions": statistics.median(multi), "sessions": sessions}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--sessions", type=int, default=3)
    ap.add_argument("--skip-realpapers", action="store_true")
    ap.add_argument("--hub-db", metavar="FILE", help="start from a copy of this indexed hub.sqlite3 (skips indexing)")
    args = ap.parse_args()
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
        p = asyncio.run(parallel_vs_sequential(settings, args.rounds, args.sessions))
        print(f"\nretrieval of {p['points']} points (median of {args.rounds}):")
        print(f"  sequential, 1 session      {p['sequential']:.3f} s")
        print(f"  parallel,   1 session      {p['parallel']:.3f} s   {p['sequential'] / p['parallel']:.2f}x")
        print(f"  parallel,   {p['sessions']} sessions     {p['parallel_sessions']:.3f} s   "
              f"{p['sequential'] / p['parallel_sessions']:.2f}x   ({os.cpu_count()} CPU cores)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
