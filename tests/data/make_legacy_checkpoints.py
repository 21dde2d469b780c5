"""Wrote tests/data/legacy_checkpoints.sqlite3 with the code before TurnState (commit 30d664e): one offline
turn in session "legacy-session", whose checkpoint names core.state types and holds a reasoning_trace.
Run from that tree: PYTHONPATH=<old tree> python tests/data/make_legacy_checkpoints.py OUT"""
import asyncio
import sys
import sqlite3
from pathlib import Path

from core.agent import Agent
from core.brains.offline.brain import OfflineBrain
from core.config import load_settings
from core.memory.checkpoints import open_checkpointer
from core.state import RetrievedContext


class Hub:
    describe = "in-process"
    notices: list = []

    async def search(self, query, top_k=5, collection=None):
        return [RetrievedContext(content="LoRA uses rank r = 8 by default in PEFT; the paper tries r = 1 to 64.",
                                 chunk_id=f"lora_{i:04d}", doc_id="lora", title="LoRA") for i in range(2)]


async def main(out: Path) -> None:
    s = load_settings(use_user_file=False)
    s.memory.enabled = False
    s.agent.router = s.agent.critic = "rules"
    async with open_checkpointer(out) as saver:
        agent = Agent(s, OfflineBrain(s), Hub(), checkpointer=saver)
        async for ev in agent.run_turn("What rank does LoRA use by default?", "legacy-session"):
            last = ev
        print(last.kind, getattr(last, "error", ""))
    conn = sqlite3.connect(out)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("VACUUM")
    conn.close()

asyncio.run(main(Path(sys.argv[1])))
