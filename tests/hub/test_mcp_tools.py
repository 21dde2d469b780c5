"""All six tools through a real stdio session with the plain ``mcp`` client (no LangChain)."""

from __future__ import annotations

import json
import re

from mcp import ClientSession
from mcp.client.stdio import stdio_client

from tests.hub.helpers import hub_params

TOOLS = {"query_knowledge_hub", "list_collections", "get_document_summary", "keyword_search",
         "get_document_structure", "get_node_content"}


def references(res) -> dict:
    """The fenced JSON block after ``**References (JSON):**`` in the text content."""
    text = "\n".join(c.text for c in res.content if c.type == "text")
    m = re.search(r"\*\*References \(JSON\):\*\*\s*```json\s*(\{.*?\})\s*```", text, re.S)
    assert m, text[-400:]
    return json.loads(m.group(1))


async def test_plain_mcp_client_gets_structured_content_and_references(hub_home, tmp_path):
    errlog = (tmp_path / "stderr.txt").open("w")
    async with stdio_client(hub_params(hub_home), errlog=errlog) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            listed = await s.list_tools()
            assert TOOLS <= {t.name for t in listed.tools}
            assert all(t.outputSchema for t in listed.tools if t.name in TOOLS)

            cols = await s.call_tool("list_collections", {"include_stats": True})
            default = next(c for c in cols.structuredContent["collections"] if c["name"] == "default")
            assert default["document_count"] >= 4 and default["chunk_count"] > 0
            assert {"doc_id": "qlora", "title": "QLoRA: Efficient Finetuning of Quantized LLMs", "year": 2023} \
                in default["documents"]  # each document with its year, where known (a library answer orders by it)

            res = await s.call_tool("query_knowledge_hub", {"query": "What rank does LoRA use?", "top_k": 3})
            assert not res.isError
            cits = res.structuredContent["citations"]
            assert len(cits) == 3 and cits[0]["metadata"]["doc_id"] == "lora"
            assert cits[0]["text"].startswith(cits[0]["text_snippet"].rstrip("…"))
            refs = references(res)
            assert [c["chunk_id"] for c in refs["citations"]] == [c["chunk_id"] for c in cits]
            assert "text" not in refs["citations"][0] and refs["metadata"]["result_count"] == 3
            assert set(refs["citations"][0]["metadata"]) >= {"title", "chunk_index", "doc_type", "doc_id", "breadcrumb"}

            chunk_id = cits[0]["chunk_id"]
            node = await s.call_tool("get_node_content", {"chunk_id": chunk_id})
            assert node.structuredContent["text"] == cits[0]["text"]
            assert node.structuredContent["breadcrumb"].startswith("LoRA")
            summ = await s.call_tool("get_document_summary", {"doc_id": "lora"})
            assert summ.structuredContent["summary"] and summ.structuredContent["sections"]
            by_chunk = await s.call_tool("get_document_summary", {"doc_id": chunk_id})  # chunk id names its doc
            assert by_chunk.structuredContent["doc_id"] == "lora"
            tree = await s.call_tool("get_document_structure", {"doc_id": "qlora"})
            titles = [c["title"] for c in tree.structuredContent["root"]["children"]]
            assert "Method" in titles
            kw = await s.call_tool("keyword_search", {"keywords": ["NF4"], "mode": "exact"})
            assert kw.structuredContent["citations"] and references(kw)["citations"]

            # No hits: a successful, empty result.
            none = await s.call_tool("keyword_search", {"keywords": ["qqzzxx"]})
            assert not none.isError and none.structuredContent["citations"] == []
            assert references(none)["citations"] == []

            # Bad arguments, unknown collection / ids: isError with a clear message.
            for tool, args, needle in [
                ("query_knowledge_hub", {"query": "LoRA", "top_k": 50}, "top_k"),
                ("query_knowledge_hub", {"query": "LoRA", "top_k": 0}, "top_k"),
                ("query_knowledge_hub", {"query": "   "}, "query"),
                ("query_knowledge_hub", {"query": "LoRA", "collection": "nope"}, "unknown collection"),
                ("get_document_summary", {"doc_id": "no-such-doc"}, "unknown doc_id"),
                ("get_document_structure", {"doc_id": "no-such-doc"}, "unknown doc_id"),
                ("get_node_content", {"chunk_id": "lora_9999"}, "unknown chunk_id"),
                ("keyword_search", {"keywords": ["x"], "mode": "regex"}, "mode"),
            ]:
                bad = await s.call_tool(tool, args)
                assert bad.isError, (tool, args)
                assert needle in bad.content[0].text and "Traceback" not in bad.content[0].text

            # A query never creates a collection.
            after = await s.call_tool("list_collections", {"include_stats": False})
            assert "nope" not in {c["name"] for c in after.structuredContent["collections"]}
    errlog.close()
    assert (tmp_path / "stderr.txt").read_text().strip() == ""  # stderr stays quiet
