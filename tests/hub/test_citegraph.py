"""The library's citation graph: reference entries matched to documents (by id, then title and year),
edges built at ingest with the citing sentence and rebuilt when documents come and go, the
``get_citations``/``get_lineage`` tools in process and through the real hub process, and the
schema added to an older store. The library is four invented papers that cite each other
(:mod:`tests.hub.lineage_papers`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from core.hub import citegraph
from core.hub.ingest import Ingestor
from core.hub.refmatch import LibraryIndex, norm_title
from core.hub.service import Hub, HubError
from core.hub.store import HubStore
from tests.hub.helpers import hub_params
from tests.hub.lineage_papers import ARXIV_2014, draw_all

LIB = "lineage"


def _doc(doc_id: str, title: str, year: int | None = None, **extra) -> dict:
    return {"doc_id": doc_id, "title": title, "year": year, **extra}


def test_an_entry_names_a_library_document_by_its_id_before_its_title():
    index = LibraryIndex([
        _doc("a", "Quokka Attention for Sequence Labelling", 2014, url=f"https://arxiv.org/abs/{ARXIV_2014}v2"),
        _doc("b", "Gated Quokka Attention Networks", 2016, doi="10.5555/GQAN.2016"),
        _doc("c", "Deep Quokka Attention at Scale", 2018),
        _doc("d", "Wombats", 2019),
    ])
    by_doi = index.match({"title": "A garbled title", "doi": "10.5555/gqan.2016", "year": 2016}, "x")
    assert (by_doi.doc_id, by_doi.confidence, by_doi.how) == ("b", 1.0, "doi")
    assert index.match({"title": "Something else", "arxiv": ARXIV_2014}, "x").how == "arxiv"
    exact = index.match({"title": "Deep quokka attention at scale", "year": 2018}, "x")
    assert (exact.doc_id, exact.how) == ("c", "title") and exact.confidence > index.match(
        {"title": "Deep quokka attention at scale"}, "x").confidence  # an unknown year is less certain
    # the parse glued the title to its venue: the library title is found inside the entry
    glued = index.match({"authors": "T. Brandt", "title": "Deep Quokka Attention at Scale. In Proc. of WOMB"}, "x")
    assert (glued.doc_id, glued.how) == ("c", "title_in_entry")


def test_a_title_match_whose_years_disagree_or_that_is_the_citing_paper_is_no_match():
    index = LibraryIndex([_doc("c", "Deep Quokka Attention at Scale", 2018), _doc("d", "Wombats", 2019)])
    assert index.match({"title": "Deep quokka attention at scale", "year": 2009}, "x") is None
    assert index.match({"title": "Deep quokka attention at scale", "year": 2019}, "x").doc_id == "c"  # preprint year
    assert index.match({"title": "Deep quokka attention at scale", "year": 2018}, "c") is None  # itself
    assert index.match({"authors": "Z. Wombats", "title": "Wombats of the world"}, "x") is None  # a short title is exact only
    assert norm_title("BERT: Pre-training of Déep  Nets") == "bert pre training of deep nets"


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> tuple[Hub, dict[str, str]]:
    """A hub whose ``lineage`` collection holds the four papers (the 2014 one fetched from arXiv),
    and the doc id of each paper by its name."""
    home = tmp_path_factory.mktemp("lineage-home")
    files = draw_all(home / "papers")
    store = HubStore(home / "hub.sqlite3")
    meta = {str(files[0].resolve()): {"url": f"https://arxiv.org/abs/{ARXIV_2014}"}}
    report = Ingestor(store).ingest(files, LIB, meta=meta)
    assert len(report.added) == 4 and not report.failed
    ids = {Path(d["path"]).stem: d["doc_id"] for d in store.documents(LIB)}
    store.close()
    hub = Hub(home / "hub.sqlite3", sync=False)
    hub.start(background=False)
    return hub, ids


def _edges(hub: Hub, ids: dict[str, str]) -> dict[tuple[str, str], citegraph.Edge]:
    name = {v: k for k, v in ids.items()}
    return {(name[e.citing], name[e.cited]): e for e in citegraph.edges_of(hub.store, LIB)}


def test_ingest_builds_the_edges_with_the_sentences_that_cite(library):
    hub, ids = library
    row = hub.store.conn().execute("SELECT revision, references_parsed FROM citation_sets WHERE collection=?",
                                   (LIB,)).fetchone()
    assert row == (hub.store.revision(LIB), 1 + 2 + 3 + 3)  # built by the ingest itself, every entry counted
    # the author-year list (no labels, one entry a line) is split and parsed like the numbered ones
    refs = json.loads(hub.store.get_meta(f"references:{ids['deep2018']}"))
    assert [(r.get("label"), r["year"], r["title"]) for r in refs] == [
        (None, 2014, "Quokka attention for sequence labelling"), (None, 2016, "Gated quokka attention networks"),
        (None, 2003, "Sparse models for parsing")]
    assert refs[0]["arxiv"] == ARXIV_2014 and refs[0]["authors"] == "Castellanos, M. and Ferreira, O"
    edges = _edges(hub, ids)
    assert set(edges) == {("gated2016", "quokka2014"), ("deep2018", "quokka2014"), ("deep2018", "gated2016"),
                          ("nogates2020", "deep2018"), ("nogates2020", "gated2016")}  # no edge to outside work
    assert edges[("deep2018", "quokka2014")].how == "arxiv" and edges[("deep2018", "quokka2014")].confidence == 1.0
    assert edges[("gated2016", "quokka2014")].how == "title"
    # numbered: the sentence holding the entry's marker; author-year: the surname and the year
    assert edges[("gated2016", "quokka2014")].sentence.startswith("Castellanos and Ferreira introduced quokka attention")
    assert edges[("nogates2020", "gated2016")].sentence.startswith("We remove the gates of Okafor")
    assert edges[("deep2018", "gated2016")].sentence.startswith("Gated networks (Okafor, 2016) made it stable")
    assert edges[("deep2018", "quokka2014")].sentence.startswith("The original quokka attention of Castellanos")
    e = edges[("nogates2020", "deep2018")]
    assert e.reference.startswith("[1] T. Brandt and Y. Nakamura. Deep quokka attention at scale")
    assert hub.store.chunk(e.chunk_id).doc_id == ids["nogates2020"] and "Brandt and Nakamura showed" in \
        hub.store.chunk(e.chunk_id).text


def test_get_citations_lists_what_a_paper_cites_and_what_cites_it(library):
    hub, ids = library
    res = hub.citations(ids["gated2016"], LIB)
    assert (res.title, res.year, res.references_parsed) == ("Gated Quokka Attention Networks", 2016, 2)
    assert [p.doc_id for p in res.cites] == [ids["quokka2014"]]
    assert {p.doc_id for p in res.cited_by} == {ids["deep2018"], ids["nogates2020"]}
    assert all(p.sentence and 0 < p.confidence <= 1 for p in res.cited_by)
    with pytest.raises(HubError, match="unknown doc_id"):
        hub.citations("no-such-paper", LIB)


def test_get_lineage_orders_the_topics_papers_by_year_with_their_edges(library):
    hub, ids = library
    res = hub.lineage("how did quokka attention evolve", collection=LIB)
    assert [p.year for p in res.papers] == [2014, 2016, 2018, 2020]
    assert [p.doc_id for p in res.papers] == [ids[n] for n in ("quokka2014", "gated2016", "deep2018", "nogates2020")]
    assert all(p.chunk_id and p.passage for p in res.papers)
    assert len(res.edges) == 5 and all(e.citing != e.cited for e in res.edges)
    chosen = hub.lineage(doc_ids=[ids["nogates2020"], ids["quokka2014"]], collection=LIB)
    assert [p.year for p in chosen.papers] == [2014, 2020] and chosen.edges == []
    for bad in ({}, {"topic": "x", "doc_ids": [ids["quokka2014"]]}, {"doc_ids": "not a list"}):
        with pytest.raises(HubError):
            hub.lineage(collection=LIB, **bad)


def test_edges_follow_the_library_when_a_document_goes_and_comes_back(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    files = draw_all(tmp_path / "papers")
    Ingestor(store, embed=False).ingest(files, LIB)
    assert len(citegraph.edges_of(store, LIB)) == 5
    gone = store.document_by_path(LIB, str(files[1].resolve()))["doc_id"]  # the 2016 paper: 3 edges
    assert store.delete_document(gone)
    citegraph.current(store, LIB)  # the revision moved: the next read rebuilds
    assert len(citegraph.edges_of(store, LIB)) == 2
    assert not [e for e in citegraph.edges_of(store, LIB) if gone in (e.citing, e.cited)]
    Ingestor(store, embed=False).ingest([files[1]], LIB)  # back: the ingest itself rebuilds the graph
    assert len(citegraph.edges_of(store, LIB)) == 5
    store.close()


def test_an_older_store_gets_the_citation_tables(tmp_path):
    db = tmp_path / "hub.sqlite3"
    HubStore(db).close()
    with sqlite3.connect(db) as raw:
        raw.execute("DROP TABLE citation_edges")
        raw.execute("DROP TABLE citation_sets")
    store = HubStore(db)
    tables = {r[0] for r in store.conn().execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"citation_edges", "citation_sets"} <= tables
    store.close()


async def test_the_hub_process_serves_citations_and_lineage(library):
    hub, ids = library
    home = Path(hub.store.path).parent
    async with stdio_client(hub_params(home)) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            listed = {t.name: t for t in (await s.list_tools()).tools}
            assert listed["get_citations"].outputSchema and listed["get_lineage"].outputSchema
            res = await s.call_tool("get_lineage", {"topic": "quokka attention", "collection": LIB})
            assert not res.isError
            papers = res.structuredContent["papers"]
            assert [p["year"] for p in papers] == [2014, 2016, 2018, 2020]
            assert "2014 · Quokka Attention for Sequence Labelling" in res.content[0].text
            cites = await s.call_tool("get_citations", {"doc_id": ids["deep2018"], "collection": LIB})
            assert {p["doc_id"] for p in cites.structuredContent["cites"]} == {ids["quokka2014"], ids["gated2016"]}
            bad = await s.call_tool("get_lineage", {"collection": LIB})
            assert bad.isError and "topic or doc_ids" in bad.content[0].text
