"""Record the demo turns: real offline-brain turns over the bundled corpus, saved as JSONL traces.

    python -m tests.support.record_demo [--home DIR]

Opens the real agent (offline brain, the bundled knowledge hub over MCP, memory on) on a data
directory (a fresh one indexes the bundled corpus first, which takes a minute), asks a warm-up
question so recorded durations are warm ones, then records three turns and exports each through
the real ``TraceStore`` to ``tests/support/traces/NAME.jsonl``:

- ``compare``: a comparative question (two per-entity retrievals, a table);
- ``follow_up``: a follow-up in the same session (resolved against the comparison);
- ``hub_failure``: a factual question while the hub fails every search (a failed turn).

Snapshots, screenshots and the TUI benchmark replay these (:mod:`tests.support.recorded`).
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
from pathlib import Path

from tests.support.recorded import COMPARE_Q, FAIL_Q, FOLLOW_Q, TRACES

SESSION = "demo-session"


class FailingHub:
    """The real hub, except that every search fails the way a dead MCP server does."""

    def __init__(self, hub) -> None:
        self._hub = hub

    def __getattr__(self, name):
        return getattr(self._hub, name)

    async def search(self, *args, **kwargs):
        from core.errors import BackendUnavailable

        raise BackendUnavailable("MCP server hub (stdio) failed during query_knowledge_hub: connection closed")


async def record(home: Path) -> None:
    from core.agent import open_agent
    from core.config import load_settings

    settings = load_settings(use_user_file=False)
    settings.paths.home = str(home)
    async with open_agent(settings) as agent:
        await _turn(agent, "What does LoRA freeze?", "warm-up")  # loads the encoder and models
        await _save(agent, "compare", await _turn(agent, COMPARE_Q, SESSION))
        await _save(agent, "follow_up", await _turn(agent, FOLLOW_Q, SESSION))
        hub = agent.hub
        agent.hub = FailingHub(hub)
        try:
            await _save(agent, "hub_failure", await _turn(agent, FAIL_Q, "demo-failure"))
        finally:
            agent.hub = hub


async def _turn(agent, question: str, session: str) -> str:
    trace_id = ""
    async for ev in agent.run_turn(question, session):
        trace_id = ev.turn_id
        print(f"  {type(ev).__name__}")
    await agent.settle()  # the facts are written (and the trace saved with them) after the answer
    return trace_id


async def _save(agent, name: str, trace_id: str) -> None:
    lines = await asyncio.to_thread(agent.traces.export_lines, trace_id)
    path = TRACES / f"{name}.jsonl"
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(f"{path}: {len(lines)} events")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--home", type=Path, help="data directory (default: a fresh temporary one)")
    args = parser.parse_args()
    home = args.home or Path(tempfile.mkdtemp(prefix="pp-record-"))
    asyncio.run(record(home))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
