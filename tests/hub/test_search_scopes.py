"""The client learns which scopes the server's search takes from its input schema, and a comparison
scopes a side to its own paper only on a hub whose search takes ``doc_id`` (upstream servers and
stand-ins without it are never sent one)."""

from __future__ import annotations

from types import SimpleNamespace

from mcp.types import Tool

from core.hub.server import build_server
from core.nodes.common import hub_takes
from core.tools.hub_client import search_params


async def test_the_bundled_hubs_search_takes_doc_id_and_topic(hub):
    tools = await build_server(hub).list_tools()
    params = search_params(tools)
    assert {"query", "top_k", "collection", "doc_id", "topic"} <= params


def test_an_upstream_search_with_only_a_query_takes_no_scope():
    upstream = [Tool(name="query_knowledge_hub", inputSchema={"type": "object", "properties": {
        "query": {"type": "string"}, "top_k": {"type": "integer"}}}),
                Tool(name="list_collections", inputSchema={"type": "object", "properties": {"doc_id": {}}})]
    assert search_params(upstream) == {"query", "top_k"}
    assert search_params([]) == frozenset()


def test_a_comparison_scopes_only_where_the_search_takes_doc_id():
    assert hub_takes(SimpleNamespace(searches_by=lambda p: p == "doc_id"), "doc_id")
    assert not hub_takes(SimpleNamespace(searches_by=lambda p: False), "doc_id")
    assert not hub_takes(SimpleNamespace(), "doc_id")  # a stand-in hub without the question is never sent a doc_id
