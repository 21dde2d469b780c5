"""A tiny MCP server on loopback whose search never answers, for deadline tests.

``python tests/stubs/sleepy_server.py PORT`` serves streamable HTTP on 127.0.0.1:PORT with three
tools: ``query_knowledge_hub`` sleeps for an hour; ``ping`` answers ``pong``; ``inflight`` says how
many ``query_knowledge_hub`` calls are still running (a client that really cancelled its call
leaves none behind once its session is closed).
"""

from __future__ import annotations

import sys

import anyio
from mcp.server.fastmcp import FastMCP

INFLIGHT = [0]


def build(port: int) -> FastMCP:
    mcp = FastMCP("sleepy", host="127.0.0.1", port=port, log_level="WARNING")

    @mcp.tool()
    async def query_knowledge_hub(query: str, top_k: int = 5, collection: str = "default") -> str:
        INFLIGHT[0] += 1
        try:
            await anyio.sleep(3600)
        finally:
            INFLIGHT[0] -= 1
        return "never"

    @mcp.tool()
    async def ping() -> str:
        return "pong"

    @mcp.tool()
    async def inflight() -> str:
        return str(INFLIGHT[0])

    return mcp


if __name__ == "__main__":
    build(int(sys.argv[1])).run("streamable-http")
