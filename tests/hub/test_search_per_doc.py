"""``per_doc``: a search that takes at most N hits of any one document. A survey question's words
("tidal ledgers") fill a long paper's every section, so a plain search of its top chunks returns that
paper alone and hides the short papers that bear on it too; capped per document, the same search
names them all, each by its best chunks. Invented papers, a real SQLite hub, the real MCP server."""

from __future__ import annotations

import pytest

from core.hub.ingest import Ingestor
from core.hub.server import build_server
from core.hub.service import Hub, HubError
from core.hub.store import HubStore
from core.tools.hub_client import search_params

LIB = "ledgers"
LONG = "# Tidal Ledgers at Scale\n\n" + "\n\n".join(
    f"## {n} Tidal ledger part {n}\n\nThe tidal ledger keeps shard {n} of the harbour log; each tidal ledger "
    f"entry records a tide, and a tidal ledger replica copies entry {n} to the quay." for n in range(1, 13))
SHORT = {
    "kelp.md": "# Kelp Indexes\n\nA kelp index sits beside a tidal ledger and answers range scans over the tides.",
    "gull.md": "# Gull Caches\n\nGull caches keep the hottest tidal ledger pages in memory near the quay.",
}


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    root = tmp_path_factory.mktemp("perdoc")
    (root / "long.md").write_text(LONG)
    for name, text in SHORT.items():
        (root / name).write_text(text)
    store = HubStore(root / "hub.sqlite3")
    report = Ingestor(store).ingest([root / "long.md", *(root / n for n in SHORT)], LIB)
    assert len(report.added) == 3, report
    store.close()
    h = Hub(root / "hub.sqlite3", sync=False)
    h.start(background=False)
    return h


def _docs(hits):
    return [h.chunk.doc_id for h in hits]


def test_a_plain_search_is_filled_by_the_long_paper_and_per_doc_names_the_others(hub):
    plain = hub.query("tidal ledger", 6, LIB)
    long_id = plain[0].chunk.doc_id
    assert set(_docs(plain)) == {long_id}, _docs(plain)  # what the cap is for
    capped = hub.query("tidal ledger", 6, LIB, per_doc=2)
    assert len(set(_docs(capped))) == 3, _docs(capped)
    assert all(_docs(capped).count(d) <= 2 for d in _docs(capped))
    # each paper by its best chunks: the long paper's two are the plain search's first two
    assert [h.chunk.chunk_id for h in capped if h.chunk.doc_id == long_id] == [h.chunk.chunk_id for h in plain[:2]]
    [batch] = hub.query_many(["tidal ledger"], 6, LIB, per_doc=2)
    assert [h.chunk.chunk_id for h in batch] == [h.chunk.chunk_id for h in capped]


@pytest.mark.parametrize("bad", [0, 21, True, "2", 1.5])
def test_a_per_doc_out_of_range_is_one_clear_error(hub, bad):
    with pytest.raises(HubError, match="per_doc must be an integer from 1 to 20"):
        hub.query("tidal ledger", 5, LIB, per_doc=bad)


async def test_the_bundled_hubs_search_tools_take_per_doc(hub):
    tools = await build_server(hub).list_tools()
    assert "per_doc" in search_params(tools)
    batch = next(t for t in tools if t.name == "query_knowledge_hub_batch")
    assert "per_doc" in batch.inputSchema["properties"]
    result = await build_server(hub).call_tool("query_knowledge_hub",
                                               {"query": "tidal ledger", "top_k": 6, "collection": LIB, "per_doc": 1})
    text = str(result)
    assert "Kelp Indexes" in text and "Gull Caches" in text
    batch = await build_server(hub).call_tool("query_knowledge_hub_batch", {
        "queries": ["tidal ledger"], "top_k": 6, "collection": LIB, "per_doc": 1})
    text = str(batch)
    assert "Kelp Indexes" in text and "Gull Caches" in text


async def test_the_tool_schema_states_the_range(hub):
    tools = {t.name: t for t in await build_server(hub).list_tools()}
    for name in ("query_knowledge_hub", "query_knowledge_hub_batch"):
        prop = tools[name].inputSchema["properties"]["per_doc"]
        assert (prop["minimum"], prop["maximum"]) == (1, 20), prop
