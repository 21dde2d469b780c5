"""The upstream-format stub parsed by core.tools.parse; HubClient reconnect after the hub dies."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from mcp import ClientSession
from mcp.client.stdio import stdio_client

from core.config import MCPConnection, MCPSettings
from core.tools.hub_client import HubClient, ToolError
from core.tools.parse import find_json_block, parse_markdown, parse_search_result
from tests.hub.helpers import REPO, STUB, stub_params

import pytest


def _texts(res) -> list[str]:
    return [c.text for c in res.content if c.type == "text"]


async def test_stub_speaks_upstream_format_and_parse_reads_it():
    async with stdio_client(stub_params()) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            res = await s.call_tool("query_knowledge_hub", {"query": "DPO preference loss reference policy"})
            assert not res.isError and res.structuredContent is None
            texts = _texts(res)
            assert texts[0].startswith("## 检索结果") and "### [1] 结果 1" in texts[0]
            assert "**相关度:**" in texts[0] and "## 引用来源" in texts[0]
            block = find_json_block(texts)
            assert block and all("doc_id" not in c["metadata"] for c in block["citations"])

            ctxs = parse_search_result(texts, None, query="q")
            assert len(ctxs) == len(block["citations"]) and ctxs[0].source.endswith("dpo.md")
            scores = [c.relevance_score for c in ctxs]
            assert min(scores) < 0.1 < max(scores)  # mixed scales carried as given, no threshold
            assert all(c.doc_id and c.chunk_id.startswith(c.doc_id + "_") for c in ctxs)
            summ = await s.call_tool("get_document_summary", {"doc_id": ctxs[0].doc_id})
            assert not summ.isError and "dpo" in summ.content[0].text.lower()

            # Markdown fallback alone (the JSON block stripped) still yields the hits.
            md_only = [texts[0].split("**References (JSON):**")[0]]
            fallback = parse_markdown(md_only, query="q")
            assert [round(c.relevance_score, 4) for c in fallback] == [round(c.relevance_score, 4) for c in ctxs]
            assert [c.source for c in fallback] == [c.source for c in ctxs]
            assert fallback[0].content and len(fallback[0].content) <= 300
            assert parse_search_result(md_only, None)[0].chunk_id == fallback[0].chunk_id

            none = await s.call_tool("query_knowledge_hub", {"query": "tungsten boiling"})
            assert not none.isError and _texts(none)[0].startswith("## 未找到相关结果")
            assert parse_search_result(_texts(none), None) == []
            assert parse_markdown([_texts(none)[0].split("**References")[0]]) == []
            bad = await s.call_tool("query_knowledge_hub", {"query": "x", "top_k": 50})
            assert bad.isError and _texts(bad)[0].startswith("## 查询失败")


def _settings(name: str, conn: MCPConnection, collection: str) -> MCPSettings:
    return MCPSettings(connection=name, collection=collection, call_timeout=120, connections={name: conn})


async def test_hub_client_against_stub():
    conn = MCPConnection(args=[str(STUB)], cwd=str(REPO))
    async with HubClient(_settings("upstream", conn, "knowledge_hub")) as client:
        ctxs = await client.search("QLoRA 4-bit NormalFloat", top_k=3)
        assert ctxs and ctxs[0].source.endswith("qlora.md")
        with pytest.raises(ToolError, match="查询失败"):
            await client.search("x", top_k=50)


async def test_upstream_hits_group_into_documents_with_their_chunk_counts():
    """Upstream chunk ids are <doc hash>_<index>_<content hash>: hits of one file are one document,
    whose summary counts all its chunks (not one, as when the id kept the chunk index); the
    ``[Source: …]`` labels are not evidence text, and heading-only chunks are not evidence."""
    import re

    from tests.stubs.upstream_server import CHUNKS

    conn = MCPConnection(args=[str(STUB)], cwd=str(REPO))
    async with HubClient(_settings("upstream", conn, "knowledge_hub")) as client:
        ctxs = await client.search("LoRA low-rank adaptation rank method", top_k=20)
        assert len({c.source for c in ctxs}) == len({c.doc_id for c in ctxs}) >= 1
        lora = [c for c in ctxs if Path(c.source).name == "lora.md"]
        assert len(lora) > 1 and len({c.doc_id for c in lora}) == 1
        summary = (await client.get_document_summary(lora[0].doc_id)).text
        count = int(re.search(r"\*\*块数量:\*\*\s*(\d+)", summary).group(1))
        assert count == sum(1 for c in CHUNKS if c["source"] == lora[0].source) > 1
        assert not any(c.content.lstrip().startswith("[Source:") for c in ctxs)
        assert all(re.search(r"[a-z]{3,}.*\s.*[a-z]{3,}", c.content) and not c.content.lstrip().startswith("#")
                   for c in ctxs)
        headings = await client.call("query_knowledge_hub", {"query": "Method Results", "top_k": 20})
        assert "] ## " in headings.text  # the stub does serve heading-only chunks


def test_document_ids_come_from_document_fields_then_source():
    from core.tools.parse import citation_to_context

    assert citation_to_context({"chunk_id": "a1b2c3d4_0026_367f4a30"}).doc_id == "a1b2c3d4"
    assert citation_to_context({"chunk_id": "x_1", "metadata": {"source_ref": "docA"}}).doc_id == "docA"
    one = citation_to_context({"chunk_id": "c-1", "source": "/p/a.pdf"}).doc_id
    assert one == citation_to_context({"chunk_id": "c-2", "source": "/p/a.pdf"}).doc_id
    assert one != citation_to_context({"chunk_id": "c-3", "source": "/p/b.pdf"}).doc_id


def _hub_children() -> list[int]:
    """Pids of this process's children running the hub server."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == os.getpid() and "core.hub" in cmd:
            out.append(int(entry.name))
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the server pid through /proc")
async def test_reconnect_after_hub_process_killed(hub_home):
    conn = MCPConnection(args=["-m", "core.hub", "serve"], cwd=str(REPO), env={"PAPERPILOT_HOME": str(hub_home)})
    async with HubClient(_settings("hub", conn, "default")) as client:
        first = await client.search("LoRA rank", top_k=2)
        assert first and client.reconnects == 0
        pids = _hub_children()
        assert len(pids) == 1
        os.kill(pids[0], signal.SIGKILL)
        again = await client.search("LoRA rank", top_k=2)
        assert [c.chunk_id for c in again] == [c.chunk_id for c in first]
        assert client.reconnects == 1
        assert len(client.notices) == 1 and "reconnected" in client.notices[0]
        assert _hub_children() and _hub_children() != pids
