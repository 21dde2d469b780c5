"""The hub refuses a tool call over ``limits.request_bytes`` with a tool error, before any search,
and keeps serving: a real stdio server with a small configured limit, and the default in-process."""

from __future__ import annotations

import os
import shutil

import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client
from mcp.server.fastmcp.exceptions import ToolError

from core.config import LimitsSettings
from core.hub.server import build_server
from tests.hub.helpers import hub_params


@pytest.fixture
def small_limit_home(hub_home, tmp_path):
    """A copy of the indexed hub home whose settings allow tool calls of 2,000 bytes."""
    for name in os.listdir(hub_home):
        if name.startswith("hub.sqlite3"):
            shutil.copy2(hub_home / name, tmp_path / name)
    (tmp_path / "settings.yaml").write_text("limits:\n  request_bytes: 2000\n", encoding="utf-8")
    return tmp_path


async def test_a_call_over_the_configured_limit_is_a_tool_error_and_the_hub_keeps_serving(small_limit_home, tmp_path):
    errlog = (tmp_path / "stderr.txt").open("w")
    async with stdio_client(hub_params(small_limit_home), errlog=errlog) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            for tool, args in [("query_knowledge_hub", {"query": "LoRA rank " * 300}),
                               ("keyword_search", {"keywords": ["LoRA"] * 500}),
                               ("get_node_content", {"chunk_id": "é" * 1001})]:  # 2,002 bytes in UTF-8
                res = await s.call_tool(tool, args)
                text = res.content[0].text
                assert res.isError and "limits.request_bytes" in text and "2.0 kB" in text, (tool, text)
                assert "Traceback" not in text
            ok = await s.call_tool("query_knowledge_hub", {"query": "What rank does LoRA use?", "top_k": 2})
            assert not ok.isError and ok.structuredContent["citations"]
    errlog.close()


async def test_the_default_limit_refuses_a_5_mb_query(hub):
    assert LimitsSettings().request_bytes == 100_000
    server = build_server(hub)
    with pytest.raises(ToolError, match=r"5\.0 MB, over the limit of 100\.0 kB \(raise limits\.request_bytes"):
        await server.call_tool("query_knowledge_hub", {"query": "x" * 5_000_000})
    hits = await server.call_tool("query_knowledge_hub", {"query": "LoRA rank " * 1000, "top_k": 1})
    assert hits  # 10 kB is well within the default
