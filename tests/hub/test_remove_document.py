"""``remove_document`` through a real stdio hub: the document's chunks, vectors and keyword entries go,
the other documents stay, and bad requests are tool errors. The two papers are invented here."""

from __future__ import annotations

import shutil
import sqlite3

from mcp import ClientSession
from mcp.client.stdio import stdio_client

from tests.hub.helpers import hub_params

PAPERS = {
    "glimmerbeam.md": "# Glimmerbeam: Sparse Attention over Star Catalogues\n\n## Abstract\nGlimmerbeam attends "
                      "only to the sixteen nearest stars of each star and cuts catalogue memory sevenfold.\n",
    "thistlenet.md": "# Thistlenet: Spiky Convolutions for Pollen Images\n\n## Abstract\nThistlenet classifies "
                     "pollen grains with spiky convolutions shaped like the grain outline.\n",
}


def _home(tmp_path, sqlite_hub_home):
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    shutil.copy(sqlite_hub_home / "hub.sqlite3", home / "hub.sqlite3")
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in PAPERS.items():
        (docs / name).write_text(text)
    store = HubStore(home / "hub.sqlite3")
    assert Ingestor(store).ingest(sorted(docs.iterdir()), "mine").ok
    store.close()
    return home


def _rows(db, doc_id: str) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        ids = [r[0] for r in conn.execute("SELECT id FROM chunks WHERE doc_id=?", (doc_id,))]
        marks = ",".join("?" * len(ids)) or "NULL"
        return {"documents": conn.execute("SELECT count(*) FROM documents WHERE doc_id=?", (doc_id,)).fetchone()[0],
                "chunks": len(ids),
                "embeddings": conn.execute(f"SELECT count(*) FROM embeddings WHERE chunk_rowid IN ({marks})",
                                           ids).fetchone()[0],
                "fts": conn.execute(f"SELECT count(*) FROM chunks_fts WHERE rowid IN ({marks})", ids).fetchone()[0]}
    finally:
        conn.close()


async def test_remove_document_drops_its_chunks_vectors_and_keyword_entries(tmp_path, sqlite_hub_home):
    home = _home(tmp_path, sqlite_hub_home)
    db = home / "hub.sqlite3"
    before = _rows(db, "glimmerbeam")
    assert before["documents"] == 1 and before["chunks"] >= 1
    assert before["embeddings"] == before["chunks"] and before["fts"] == before["chunks"]
    errlog = (tmp_path / "stderr.txt").open("w")
    async with stdio_client(hub_params(home), errlog=errlog) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            hit = await s.call_tool("keyword_search", {"keywords": ["Glimmerbeam"], "collection": "mine"})
            assert hit.structuredContent["citations"]
            for args, needle in [({"doc_id": "nosuch", "collection": "mine"}, "unknown doc_id"),
                                 ({"doc_id": "glimmerbeam", "collection": "default"}, "unknown doc_id"),
                                 ({"doc_id": "glimmerbeam_0", "collection": "mine"}, "unknown doc_id"),
                                 ({"doc_id": "glimmerbeam", "collection": "nope"}, "unknown collection")]:
                bad = await s.call_tool("remove_document", args)
                assert bad.isError and needle in bad.content[0].text, (args, bad.content[0].text)
            assert _rows(db, "glimmerbeam") == before  # refused requests removed nothing

            res = await s.call_tool("remove_document", {"doc_id": "glimmerbeam", "collection": "mine"})
            assert not res.isError, res.content[0].text
            assert res.structuredContent == {"doc_id": "glimmerbeam", "collection": "mine",
                                             "title": "Glimmerbeam: Sparse Attention over Star Catalogues",
                                             "chunk_count": before["chunks"], "document_count": 1}
            gone = await s.call_tool("keyword_search", {"keywords": ["Glimmerbeam"], "collection": "mine"})
            assert not gone.isError and gone.structuredContent["citations"] == []
            found = await s.call_tool("query_knowledge_hub", {"query": "sparse attention over stars",
                                                              "collection": "mine", "top_k": 5})
            assert {c["metadata"]["doc_id"] for c in found.structuredContent["citations"]} == {"thistlenet"}
            cols = await s.call_tool("list_collections", {"include_stats": True})
            mine = next(c for c in cols.structuredContent["collections"] if c["name"] == "mine")
            assert [d["doc_id"] for d in mine["documents"]] == ["thistlenet"] and mine["document_count"] == 1
            again = await s.call_tool("remove_document", {"doc_id": "glimmerbeam", "collection": "mine"})
            assert again.isError and "unknown doc_id" in again.content[0].text
    assert _rows(db, "glimmerbeam") == {"documents": 0, "chunks": 0, "embeddings": 0, "fts": 0}
    assert _rows(db, "thistlenet")["chunks"] >= 1
