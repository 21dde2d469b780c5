"""query_knowledge_hub_batch and HubClient's coalescing of concurrent searches (core.tools.batching)."""

from __future__ import annotations

import asyncio
import json
import os
import signal

import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from core.config import MCPConnection, MCPSettings
from core.errors import BackendUnavailable
from core.hub.lru import LRU
from core.hub.search import CACHED_QUERIES
from core.hub.service import HubError
from core.tools.batching import BATCH, SINGLE, SearchBatcher
from core.tools.hub_client import HubClient, ToolError, ToolResult
from tests.hub.helpers import REPO, STUB, hub_params
from tests.hub.test_upstream_and_reconnect import _hub_children

QUERIES = ["What rank does LoRA use?", "QLoRA 4-bit NormalFloat memory", "DPO preference loss",
           "LoRA low-rank adaptation", "How does ReAct interleave reasoning and acting?"]


def _ranked(hits) -> list[tuple]:
    return [(h.chunk.chunk_id, round(h.score, 6), h.lexical_rank, h.dense_rank) for h in hits]


@pytest.mark.parametrize("hub_backend", ["sqlite", "postgres"], indirect=True, scope="session")
def test_query_many_equals_query_each_with_an_empty_query_cache(hub):
    """The batch embeds its (uncached) queries in one encoder batch; the hits are those of single queries."""
    fresh = [f"{q} (batch test)" for q in QUERIES]
    hub.searcher._qcache = LRU(CACHED_QUERIES)  # nothing cached: the batch embeds all five at once
    many = hub.query_many(fresh, 20)
    hub.searcher._qcache = LRU(CACHED_QUERIES)  # each single query embeds its own
    assert [_ranked(h) for h in many] == [_ranked(hub.query(q, 20)) for q in fresh]
    scoped = hub.query_many(QUERIES[:2], 5, doc_id="lora")
    assert scoped == [hub.query(q, 5, doc_id="lora") for q in QUERIES[:2]] or \
        [_ranked(h) for h in scoped] == [_ranked(hub.query(q, 5, doc_id="lora")) for q in QUERIES[:2]]
    assert all(h.chunk.doc_id == "lora" for hits in scoped for h in hits)
    for bad, needle in [([], "1 to 32"), (["x"] * 33, "1 to 32"), (["LoRA", " "], "query 2"),
                        ("LoRA", "1 to 32")]:
        with pytest.raises(HubError, match=needle):
            hub.query_many(bad)
    with pytest.raises(HubError, match="unknown collection"):
        hub.query_many(["LoRA"], collection="nope")
    with pytest.raises(HubError, match="top_k"):
        hub.query_many(["LoRA"], top_k=21)


async def test_batch_tool_cites_each_chunk_once_and_ranks_as_single_calls(hub_home, tmp_path):
    errlog = (tmp_path / "stderr.txt").open("w")
    async with stdio_client(hub_params(hub_home), errlog=errlog) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            assert BATCH in {t.name for t in (await s.list_tools()).tools}
            batch = await s.call_tool(BATCH, {"queries": QUERIES, "top_k": 20})
            assert not batch.isError
            data = batch.structuredContent
            assert [q["query"] for q in data["queries"]] == QUERIES
            ids = [c["chunk_id"] for c in data["citations"]]
            assert len(ids) == len(set(ids)) == len({h["chunk_id"] for q in data["queries"] for h in q["hits"]})
            cited = {c["chunk_id"]: c for c in data["citations"]}
            single_size = 0
            for q, got in zip(QUERIES, data["queries"]):
                one = await s.call_tool(SINGLE, {"query": q, "top_k": 20})
                single_size += len(json.dumps(one.structuredContent)) + sum(len(c.text) for c in one.content)
                want = one.structuredContent["citations"]
                assert [(h["chunk_id"], h["score"], h.get("lexical_rank"), h.get("dense_rank")) for h in got["hits"]] == \
                    [(c["chunk_id"], c["score"], c["metadata"].get("lexical_rank"), c["metadata"].get("dense_rank"))
                     for c in want]
                for c in want:  # the same citation but for this query's index, score and ranks, and no snippet
                    skip = ("index", "score", "metadata", "text_snippet")
                    same = {k: v for k, v in cited[c["chunk_id"]].items() if k not in skip}
                    assert same == {k: v for k, v in c.items() if k not in skip and v is not None}
                    assert "text_snippet" not in cited[c["chunk_id"]]
            text = "\n".join(c.text for c in batch.content)
            assert all(c["text"] not in text for c in data["citations"] if len(c["text"]) > 300)
            assert QUERIES[0] in text and ids[0] in text
            assert len(json.dumps(data)) + len(text) < single_size / 2

            for args, needle in [({"queries": []}, "1 to 32"), ({"queries": ["LoRA"] * 33}, "1 to 32"),
                                 ({"queries": ["LoRA"], "collection": "nope"}, "unknown collection"),
                                 ({"queries": ["LoRA", ""]}, "non-empty"),
                                 ({"queries": ["LoRA"], "top_k": 50}, "top_k")]:
                bad = await s.call_tool(BATCH, args)
                assert bad.isError and needle in bad.content[0].text, (args, bad.content[0].text)


def _client(conn: MCPConnection, name: str = "hub", collection: str = "default") -> HubClient:
    return HubClient(MCPSettings(connection=name, collection=collection, call_timeout=120,
                                 connections={name: conn}))


def _hub_conn(home) -> MCPConnection:
    return MCPConnection(args=["-m", "core.hub", "serve"], cwd=str(REPO), env={"PAPERPILOT_HOME": str(home)})


def _count(client: HubClient) -> list[str]:
    calls, call = [], client.call

    async def counted(tool, args, timeout=None):
        calls.append(tool)
        return await call(tool, args, timeout)

    client.call = counted  # type: ignore[method-assign]
    return calls


def _dump(results) -> list[list[dict]]:
    return [[c.model_dump() for c in hits] for hits in results]


async def test_concurrent_searches_are_one_batch_call_with_single_call_results(hub_home):
    async with _client(_hub_conn(hub_home)) as client:
        calls = _count(client)
        alone = [await client.search(q, 20) for q in QUERIES]
        assert calls == [SINGLE] * len(QUERIES)  # a lone search is still query_knowledge_hub
        calls.clear()
        together = await asyncio.gather(*(client.search(q, 20) for q in [*QUERIES, QUERIES[0]]))
        assert calls == [BATCH]
        assert _dump(together) == _dump(alone + alone[:1])
        assert together[0][0] is not together[-1][0]  # fresh objects per caller: callers set .query
        calls.clear()
        other = await asyncio.gather(client.search(QUERIES[0], 3), client.search(QUERIES[1], 3, doc_id="qlora"),
                                     client.search(QUERIES[2], 3))
        assert sorted(calls) == sorted([BATCH, SINGLE])  # different arguments: not in one batch
        assert [c.chunk_id for c in other[0]] == [c.chunk_id for c in alone[0][:3]]
        assert all(c.doc_id == "qlora" for c in other[1])
        calls.clear()
        with pytest.raises(ToolError, match="unknown collection"):
            await client.search("LoRA", 3, "nope")
        errors = await asyncio.gather(*(client.search(q, 3, "nope") for q in QUERIES[:3]), return_exceptions=True)
        assert all(isinstance(e, ToolError) and "unknown collection" in str(e) for e in errors)
        mixed = await asyncio.gather(client.search("LoRA", 3), client.search("  ", 3), return_exceptions=True)
        assert [c.chunk_id for c in mixed[0]] == [c.chunk_id for c in await client.search("LoRA", 3)]
        assert isinstance(mixed[1], ToolError) and "query" in str(mixed[1])  # only the bad query fails


async def test_concurrent_searches_reconnect_once_after_the_hub_died(hub_home):
    async with _client(_hub_conn(hub_home)) as client:
        first = await client.search(QUERIES[0], 2)
        (pid,) = _hub_children()
        os.kill(pid, signal.SIGKILL)
        calls = _count(client)
        again = await asyncio.gather(*(client.search(q, 2) for q in QUERIES))
        assert calls == [BATCH] and client.reconnects == 1
        assert [c.chunk_id for c in again[0]] == [c.chunk_id for c in first]


async def test_concurrent_searches_on_a_hub_without_the_batch_tool_are_single_calls():
    conn = MCPConnection(args=[str(STUB)], cwd=str(REPO))
    async with _client(conn, "upstream", "knowledge_hub") as client:
        calls = _count(client)
        qs = ["QLoRA 4-bit NormalFloat", "LoRA rank", "DPO"]
        alone = [await client.search(q, 3) for q in qs]
        together = await asyncio.gather(*(client.search(q, 3) for q in qs))
        assert calls == [SINGLE] * 6 and alone[0]
        assert _dump(together) == _dump(alone)


# -- the batcher on its own, with a scripted hub -----------------------------------------------------
def _result(queries: list[str]) -> ToolResult:
    cits = [{"chunk_id": f"{q}_0", "source": "a.md", "score": 0.5, "text_snippet": q, "text": f"text of {q}",
             "metadata": {"title": "A", "chunk_index": 0, "doc_type": "md", "doc_id": "a", "breadcrumb": "A"}}
            for q in queries]
    return ToolResult(texts=[], structured={
        "collection": "c", "citations": cits,
        "queries": [{"query": q, "result_count": 1, "hits": [{"chunk_id": f"{q}_0", "score": 0.5}]} for q in queries]})


async def test_an_unreachable_hub_reaches_every_waiter_with_one_call():
    calls = []

    async def call(tool, args):
        calls.append(tool)
        await asyncio.sleep(0)
        raise BackendUnavailable("hub down")

    b = SearchBatcher(call, lambda: True)
    out = await asyncio.gather(*(b.search((("top_k", 3),), q) for q in "abc"), return_exceptions=True)
    assert calls == [BATCH] and all(isinstance(e, BackendUnavailable) for e in out)


async def test_a_cancelled_waiter_leaves_the_others_their_results():
    release, calls = asyncio.Event(), []

    async def call(tool, args):
        calls.append((tool, list(args["queries"])))
        await release.wait()
        return _result(args["queries"])

    b = SearchBatcher(call, lambda: True)
    tasks = [asyncio.ensure_future(b.search((("top_k", 3),), q)) for q in "abc"]
    await asyncio.sleep(0.01)
    tasks[1].cancel()
    release.set()
    a, _, c = await asyncio.gather(*tasks, return_exceptions=True)
    assert calls == [(BATCH, ["a", "b", "c"])]
    assert [x.chunk_id for x in a] == ["a_0"] and [x.chunk_id for x in c] == ["c_0"] and tasks[1].cancelled()

    release.clear()
    lone = [asyncio.ensure_future(b.search((("top_k", 3),), q)) for q in "de"]
    await asyncio.sleep(0.01)
    for t in lone:
        t.cancel()
    await asyncio.sleep(0.01)
    assert not b._sending  # every caller gone: the batch call was cancelled too
