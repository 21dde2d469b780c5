"""The citation graph on PostgreSQL: the same edges, sentences and confidences as on SQLite, the
``get_citations``/``get_lineage`` tools over a PostgreSQL hub, the graph following a removed
document, and migration 5 adding the graph's tables to a database at step 4.

Real parts: the embedded PostgreSQL server (``pg_cluster`` skips, with the reason, where none can
be started or the postgres extra is missing), the real ingestion of the four invented papers that
cite each other (:mod:`tests.hub.lineage_papers`), the real SQLite store beside it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.hub import citegraph
from core.hub.ingest import Ingestor
from core.hub.store import HubStore
from tests.hub.lineage_papers import ARXIV_2014, draw_all
from tests.support.extras import needs

pytestmark = needs("postgres")
LIB = "lineage"


def _ingest(store, files: list[Path], embed: bool = False) -> dict[str, str]:
    """Ingest the four papers into ``store``; the doc id of each paper by its file's stem."""
    meta = {str(files[0].resolve()): {"url": f"https://arxiv.org/abs/{ARXIV_2014}"}}
    report = Ingestor(store, embed=embed).ingest(files, LIB, meta=meta)
    assert len(report.added) == 4 and not report.failed
    return {Path(d["path"]).stem: d["doc_id"] for d in store.documents(LIB)}


def _named(store, ids: dict[str, str]) -> dict[tuple[str, str], tuple]:
    name = {v: k for k, v in ids.items()}
    return {(name[e.citing], name[e.cited]): (e.confidence, e.how, e.reference, e.sentence,
                                              store.chunk(e.chunk_id).text if e.chunk_id else "")
            for e in citegraph.edges_of(store, LIB)}


def test_postgres_keeps_the_same_graph_as_sqlite(pg_dsn, tmp_path):
    from core.hub.pg.store import PgStore

    files = draw_all(tmp_path / "papers")
    sq, pg = HubStore(tmp_path / "hub.sqlite3"), PgStore(pg_dsn)
    sq_ids, pg_ids = _ingest(sq, files), _ingest(pg, files)
    # the ingest itself built the graph, at the collection's revision, with every entry counted
    row = pg.conn().execute("SELECT revision, references_parsed FROM citation_sets WHERE collection=%s",
                            (LIB,)).fetchone()
    assert row == (pg.revision(LIB), 1 + 2 + 3 + 3)
    on_pg = _named(pg, pg_ids)
    assert set(on_pg) == {("gated2016", "quokka2014"), ("deep2018", "quokka2014"), ("deep2018", "gated2016"),
                          ("nogates2020", "deep2018"), ("nogates2020", "gated2016")}
    assert on_pg == _named(sq, sq_ids)  # confidence, how, entry, sentence and its chunk's text, edge by edge
    assert on_pg[("deep2018", "quokka2014")][:2] == (1.0, "arxiv")
    assert on_pg[("deep2018", "gated2016")][3].startswith("Gated networks (Okafor, 2016) made it stable")
    assert citegraph.current(pg, LIB) == 9  # current: read back, not rebuilt
    sq.close()
    pg.close()


def test_a_hub_copied_from_sqlite_has_the_same_graph_on_postgres(pg_dsn, tmp_path):
    """``hub migrate --to postgres`` copies the reference lists (meta); the graph is derived from
    them on the first read, edge for edge the one SQLite had."""
    from core.hub.pg.store import PgStore
    from core.hub.pg.transfer import copy_hub

    sq = HubStore(tmp_path / "hub.sqlite3")
    ids = _ingest(sq, draw_all(tmp_path / "papers"))
    pg = PgStore(pg_dsn)
    copy_hub(sq, pg)
    assert citegraph.current(pg, LIB) == 9
    assert _named(pg, ids) == _named(sq, ids) and len(_named(pg, ids)) == 5
    sq.close()
    pg.close()


def test_the_graph_follows_a_removed_document_on_postgres(pg_dsn, tmp_path):
    from core.hub.pg.store import PgStore

    pg = PgStore(pg_dsn)
    files = draw_all(tmp_path / "papers")
    ids = _ingest(pg, files)
    assert len(citegraph.edges_of(pg, LIB)) == 5
    assert pg.delete_document(ids["gated2016"])  # three edges touch it
    citegraph.current(pg, LIB)  # the revision moved: the next read rebuilds
    assert {(e.citing, e.cited) for e in citegraph.edges_of(pg, LIB)} == {
        (ids["deep2018"], ids["quokka2014"]), (ids["nogates2020"], ids["deep2018"])}
    assert pg.delete_document(ids["deep2018"])  # both remaining edges touch it: none left
    assert citegraph.current(pg, LIB) == 1 + 3 and citegraph.edges_of(pg, LIB) == []
    Ingestor(pg, embed=False).ingest(files[1:3], LIB)  # back: the ingest rebuilds the graph
    assert len(citegraph.edges_of(pg, LIB)) == 5
    pg.close()


@pytest.fixture(scope="module")
def pg_library(pg_cluster, tmp_path_factory) -> tuple[str, Path, dict[str, str]]:
    """(dsn, home, doc id by paper): a PostgreSQL hub whose ``lineage`` collection holds the four
    papers with vectors (get_lineage's topic search is hybrid)."""
    from core.hub.pg.store import PgStore
    from tests.hub.conftest import new_database

    dsn, home = new_database(pg_cluster), tmp_path_factory.mktemp("pg-lineage-home")
    store = PgStore(dsn)
    ids = _ingest(store, draw_all(home / "papers"), embed=True)
    store.close()
    return dsn, home, ids


def test_get_citations_and_get_lineage_answer_on_a_postgres_hub(pg_library, tmp_path):
    from core.hub.service import Hub

    dsn, _, ids = pg_library
    hub = Hub(tmp_path / "unused.sqlite3", sync=False, dsn=dsn)
    hub.start(background=False)
    res = hub.citations(ids["gated2016"], LIB)
    assert (res.title, res.year, res.references_parsed) == ("Gated Quokka Attention Networks", 2016, 2)
    assert [p.doc_id for p in res.cites] == [ids["quokka2014"]]
    assert {p.doc_id for p in res.cited_by} == {ids["deep2018"], ids["nogates2020"]}
    assert all(p.sentence and 0 < p.confidence <= 1 for p in res.cited_by)
    line = hub.lineage("how did quokka attention evolve", collection=LIB)
    assert [p.doc_id for p in line.papers] == [ids[n] for n in ("quokka2014", "gated2016", "deep2018", "nogates2020")]
    assert [p.year for p in line.papers] == [2014, 2016, 2018, 2020]
    assert all(p.chunk_id and p.passage for p in line.papers) and len(line.edges) == 5
    chosen = hub.lineage(doc_ids=[ids["deep2018"], ids["quokka2014"]], collection=LIB)
    assert [p.year for p in chosen.papers] == [2014, 2018]
    assert [(e.citing, e.cited) for e in chosen.edges] == [(ids["deep2018"], ids["quokka2014"])]
    hub.store.close()


async def test_the_hub_process_on_postgres_serves_citations_and_lineage(pg_library, monkeypatch):
    from mcp import ClientSession
    from mcp.client.stdio import stdio_client

    from tests.hub.helpers import hub_params

    dsn, home, ids = pg_library
    monkeypatch.setenv("PAPERPILOT_HUB_BACKEND", "postgres")  # the hub process reads its backend from here
    monkeypatch.setenv("PAPERPILOT_HUB_DSN", dsn)
    async with stdio_client(hub_params(home)) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            res = await s.call_tool("get_lineage", {"topic": "quokka attention", "collection": LIB})
            assert not res.isError, res.content[0].text
            assert [p["year"] for p in res.structuredContent["papers"]] == [2014, 2016, 2018, 2020]
            assert len(res.structuredContent["edges"]) == 5
            cites = await s.call_tool("get_citations", {"doc_id": ids["deep2018"], "collection": LIB})
            assert not cites.isError, cites.content[0].text
            assert {p["doc_id"] for p in cites.structuredContent["cites"]} == {ids["quokka2014"], ids["gated2016"]}


def test_migration_5_adds_the_graph_to_a_database_at_step_4(pg_dsn, tmp_path):
    import psycopg

    from core.hub.pg.migrations import MIGRATIONS, current_version
    from core.hub.pg.store import PgStore

    with psycopg.connect(pg_dsn, autocommit=True) as db:  # a hub migrated before the graph existed
        db.execute("CREATE TABLE schema_version(version INTEGER PRIMARY KEY, name TEXT NOT NULL,"
                   " applied_at TIMESTAMPTZ NOT NULL DEFAULT now())")
        for version, name, sql in MIGRATIONS[:4]:
            db.execute(sql)
            db.execute("INSERT INTO schema_version(version, name) VALUES(%s, %s)", (version, name))
        assert current_version(db) == 4
        assert db.execute("SELECT to_regclass('citation_edges')").fetchone()[0] is None
    files = draw_all(tmp_path / "papers")
    pg = PgStore(pg_dsn)  # opening it applies step 5
    with psycopg.connect(pg_dsn, autocommit=True) as db:
        assert current_version(db) == 5
    assert len(_ingest(pg, files)) == 4 and len(citegraph.edges_of(pg, LIB)) == 5
    pg.close()


@pytest.fixture(autouse=True)
def _no_hub_env(monkeypatch):
    """These tests open their stores directly; a backend named in the environment plays no part."""
    monkeypatch.delenv("PAPERPILOT_HUB_BACKEND", raising=False)
    monkeypatch.delenv("PAPERPILOT_HUB_DSN", raising=False)
