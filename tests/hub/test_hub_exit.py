"""The hub ends itself as soon as its client closes stdin, even after a query loaded the encoder;
the MCP client would otherwise wait its grace period and then kill it (which made quitting the
app take seconds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from mcp.client.stdio import PROCESS_TERMINATION_TIMEOUT

from tests.hub.helpers import REPO


def test_hub_exits_on_stdin_eof_within_the_clients_grace_period(tmp_path):
    env = dict(os.environ, PAPERPILOT_HOME=str(tmp_path))
    proc = subprocess.Popen([sys.executable, "-m", "core.hub", "serve"], cwd=REPO, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def call(message: dict) -> dict | None:
        proc.stdin.write((json.dumps({"jsonrpc": "2.0", **message}) + "\n").encode())
        proc.stdin.flush()
        return json.loads(proc.stdout.readline()) if "id" in message else None

    call({"id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                                      "clientInfo": {"name": "test", "version": "1"}}})
    call({"method": "notifications/initialized"})
    found = call({"id": 2, "method": "tools/call",
                  "params": {"name": "query_knowledge_hub", "arguments": {"query": "LoRA rank", "top_k": 2}}})
    assert not found["result"].get("isError"), found  # the encoder is loaded now
    proc.stdin.close()
    try:
        code = proc.wait(PROCESS_TERMINATION_TIMEOUT / 2)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise AssertionError("the hub was still running after its client closed stdin") from None
    assert code == 0
