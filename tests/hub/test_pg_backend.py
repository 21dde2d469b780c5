"""The PostgreSQL backend beside SQLite: settings, migrations, store parity, both legs, the copy, the CLI.

Needs the embedded server (``pg_cluster`` skips, with the reason, where none can be started);
the settings tests need nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from core.config import ConfigError, load_settings
from core.hub.store import HubStore, NewChunk
from tests.hub.helpers import REPO, server_env
from tests.support.extras import needs


def _vec(seed: int) -> np.ndarray:
    v = np.random.default_rng(seed).standard_normal(384).astype(np.float32)
    return v / np.linalg.norm(v)


def _doc(doc_id: str, title: str = "Paper", collection: str = "c1") -> dict:
    return {"doc_id": doc_id, "collection": collection, "path": f"/papers/{doc_id}.md", "doc_type": "markdown",
            "file_hash": f"h-{doc_id}", "file_size": 10, "title": title, "authors": ["A. Author"], "year": 2024,
            "pages": 2, "summary": "s"}


def _chunks(n: int, seed: int = 0) -> list[NewChunk]:
    return [NewChunk(section_path=["Paper", f"S{i}"], text=f"chunk {i} about adapters and rank {i}", page=i + 1,
                     vector=_vec(seed + i)) for i in range(n)]


# -- settings ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("key,value,needle", [
    ("backend", "mongo", "hub.backend: Input should be 'sqlite' or 'postgres'"),
    ("dsn", "mysql://u@h/db", "hub.dsn: Value error, must be a postgresql:// URL"),
    ("dsn", "postgresql://u@h:notaport/db", "hub.dsn: Value error, the port"),
    ("dsn", "just words", "hub.dsn: Value error, must be a postgresql:// URL or libpq key=value pairs"),
])
def test_malformed_hub_settings_name_the_key(tmp_path, monkeypatch, key, value, needle):
    monkeypatch.delenv("PAPERPILOT_HUB_BACKEND", raising=False)
    monkeypatch.delenv("PAPERPILOT_HUB_DSN", raising=False)
    cfg = tmp_path / "settings.yaml"
    cfg.write_text(f"hub:\n  {key}: {value}\n")
    with pytest.raises(ConfigError) as err:
        load_settings(cfg)
    assert needle in str(err.value) and f"{cfg}:2" in str(err.value)


def test_hub_settings_from_file_and_environment(tmp_path, monkeypatch):
    monkeypatch.delenv("PAPERPILOT_HUB_BACKEND", raising=False)
    monkeypatch.delenv("PAPERPILOT_HUB_DSN", raising=False)
    cfg = tmp_path / "settings.yaml"
    cfg.write_text("hub:\n  backend: postgres\n  dsn: postgresql://me:s3cret@db.local:5433/hub\n")
    s = load_settings(cfg)
    assert (s.hub.backend, s.hub.dsn) == ("postgres", "postgresql://me:s3cret@db.local:5433/hub")
    assert "s3cret" in s.secrets()  # scrubbed from traces like every configured secret
    monkeypatch.setenv("PAPERPILOT_HUB_BACKEND", "sqlite")  # the environment wins, as for llm.*
    monkeypatch.setenv("PAPERPILOT_HUB_DSN", "host=/run/pg dbname=hub")
    s = load_settings(cfg)
    assert (s.hub.backend, s.hub.dsn) == ("sqlite", "host=/run/pg dbname=hub")


def test_settings_from_config_reach_the_hub_processes(tmp_path, monkeypatch):
    import argparse

    from paperpilot_tui.cli.common import load_settings_or_exit

    for var in ("PAPERPILOT_HUB_BACKEND", "PAPERPILOT_HUB_DSN"):  # set, then unset: restored after the test
        monkeypatch.setenv(var, "")
        monkeypatch.delenv(var)
    cfg = tmp_path / "settings.yaml"
    cfg.write_text("hub:\n  backend: postgres\n  dsn: host=/run/pg dbname=hub\n")
    load_settings_or_exit(argparse.Namespace(config=str(cfg)))
    assert os.environ["PAPERPILOT_HUB_BACKEND"] == "postgres" and os.environ["PAPERPILOT_HUB_DSN"] == "host=/run/pg dbname=hub"
    from core.tools.mcp_session import child_env

    env = child_env({})  # a stdio hub's environment
    assert env["PAPERPILOT_HUB_BACKEND"] == "postgres" and env["PAPERPILOT_HUB_DSN"] == "host=/run/pg dbname=hub"
    child = load_settings(use_user_file=False)  # what the hub process reads without --config
    assert (child.hub.backend, child.hub.dsn) == ("postgres", "host=/run/pg dbname=hub")


# -- migrations and store ---------------------------------------------------------------------------

def test_migrations_are_recorded_and_idempotent(pg_dsn):
    import psycopg

    from core.hub.pg.migrations import MIGRATIONS, current_version, migrate
    from core.hub.pg.store import PgStore

    PgStore(pg_dsn)
    PgStore(pg_dsn)  # a second open applies nothing
    with psycopg.connect(pg_dsn, autocommit=True) as db:
        assert migrate(db) == []
        assert current_version(db) == MIGRATIONS[-1][0]
        assert [r[0] for r in db.execute("SELECT version FROM schema_version")] == [m[0] for m in MIGRATIONS]
        indexes = {r[0]: r[1] for r in db.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname='public'")}
    assert "USING gin (tsv)" in indexes["chunks_tsv"]
    assert "USING hnsw (vector vector_cosine_ops)" in indexes["embeddings_hnsw"]


def test_store_matches_sqlite_row_for_row(pg_dsn, tmp_path):
    from core.hub.pg.store import PgStore

    sq, pg = HubStore(tmp_path / "hub.sqlite3"), PgStore(pg_dsn)
    for store in (sq, pg):
        store.put_document(_doc("lora", "LoRA"), _chunks(3))
        store.put_document(_doc("dpo", "DPO"), _chunks(2, seed=10))
        store.put_document(_doc("lora", "LoRA v2"), _chunks(4, seed=20))  # replaced: version 2, 4 chunks
        store.set_meta("k", "v1")
        store.set_meta("k", "v2")
    assert pg.collections() == sq.collections() == ["c1"]
    assert pg.revision("c1") == sq.revision("c1") == 3 and pg.get_meta("k") == "v2"
    assert pg.stats("c1") == sq.stats("c1") == {"document_count": 2, "chunk_count": 6, "embedded_chunks": 6}
    drop = ("created_at", "updated_at")
    assert [{k: v for k, v in d.items() if k not in drop} for d in pg.documents("c1")] == \
        [{k: v for k, v in d.items() if k not in drop} for d in sq.documents("c1")]
    assert pg.document("lora")["version"] == 2 and pg.document_by_path("c1", "/papers/dpo.md")["doc_id"] == "dpo"

    def shape(rows):
        return [(c.chunk_id, c.position, c.section_path, c.breadcrumb, c.page, c.text, c.title, c.authors)
                for c in rows]

    assert shape(pg.doc_chunks("lora")) == shape(sq.doc_chunks("lora"))
    one = pg.chunk("lora_0001")
    assert shape(pg.neighbours("lora", 1)) == shape(sq.neighbours("lora", 1))
    assert pg.chunks_by_rowid([one.rowid])[one.rowid].chunk_id == "lora_0001"
    ids, mat = pg.embedding_matrix("c1")
    sids, smat = sq.embedding_matrix("c1")
    assert mat.shape == smat.shape == (6, 384) and np.allclose(np.sort(mat, axis=0), np.sort(smat, axis=0))

    assert pg.delete_document("lora") and not pg.delete_document("lora")
    assert pg.stats("c1") == {"document_count": 1, "chunk_count": 2, "embedded_chunks": 2}
    orphans = pg.conn().execute("SELECT count(*) FROM embeddings e LEFT JOIN chunks c ON c.id = e.chunk_rowid"
                                " WHERE c.id IS NULL").fetchone()[0]
    assert orphans == 0 and pg.revision("c1") == 4


def test_nul_characters_are_dropped_not_fatal(pg_dsn):
    from core.hub.pg.store import PgStore

    pg = PgStore(pg_dsn)
    pg.put_document(_doc("nul", "Title\x00"), [NewChunk(section_path=["A"], text="te\x00xt")])
    assert pg.chunk("nul_0000").text == "text" and pg.document("nul")["title"] == "Title"


def test_embeddings_backfill_and_missing(pg_dsn):
    from core.hub.pg.store import PgStore

    pg = PgStore(pg_dsn)
    pg.put_document(_doc("raw"), [NewChunk(section_path=["A"], text=f"t{i}") for i in range(3)])
    missing = pg.missing_embeddings("c1")
    assert [m[2] for m in missing] == ["t0", "t1", "t2"]
    rev = pg.revision("c1")
    pg.put_embeddings("c1", [(rid, _vec(rid)) for rid, _, _ in missing])
    assert pg.missing_embeddings("c1") == [] and pg.revision("c1") == rev + 1


# -- search -----------------------------------------------------------------------------------------

def _hub(db, dsn: str | None = None):
    from core.hub.service import Hub

    hub = Hub(db, sync=False, dsn=dsn)
    hub.start(background=False)
    return hub


QUERIES = ["What rank does LoRA use?", "4-bit NormalFloat double quantization", "reward model free preference",
           "verbal feedback episodic memory", "scaled dot product attention"]


def test_dense_leg_ranks_exactly_as_the_sqlite_matrix_scan(pg_hub, sqlite_hub_home):
    sq, pg = _hub(sqlite_hub_home / "hub.sqlite3"), _hub(None, pg_hub[1])
    for q in QUERIES:
        a = [(c.chunk_id, round(s.dense_score, 4)) for s, c in ((h, h.chunk) for h in sq.searcher.search(
            "default", q, 10, legs="dense"))]
        b = [(c.chunk_id, round(s.dense_score, 4)) for s, c in ((h, h.chunk) for h in pg.searcher.search(
            "default", q, 10, legs="dense"))]
        assert a == b, q


def test_hnsw_path_uses_the_index_and_finds_the_same_top_hits(pg_hub, monkeypatch):
    from core.hub.pg import search as pg_search
    hub = _hub(None, pg_hub[1])
    exact = {q: [rid for rid, _ in hub.searcher.dense("default", q, 5)] for q in QUERIES}
    monkeypatch.setattr(pg_search, "EXACT_MAX", 0)  # every collection now walks the HNSW graph
    approx = {q: [rid for rid, _ in hub.searcher.dense("default", q, 5)] for q in QUERIES}
    assert approx == exact  # 172 vectors, ef_search 100: the graph search is exhaustive here
    assert "embeddings_hnsw" in hub.searcher.dense_plan("default", QUERIES[0])
    monkeypatch.setattr(pg_search, "EXACT_MAX", 20_000)
    assert "embeddings_hnsw" not in hub.searcher.dense_plan("default", QUERIES[0])


def test_lexical_leg_uses_the_gin_index_and_ranks_the_named_paper_first(pg_hub):
    hub = _hub(None, pg_hub[1])
    top = hub.searcher.search("default", "QLoRA NormalFloat NF4", 3, legs="lexical")
    assert top[0].chunk.doc_id == "qlora" and top[0].lexical_rank == 1 and top[0].dense_rank is None
    assert hub.searcher.lexical("default", "the of and") == []  # stop words only
    assert hub.searcher.lexical("default", "qqzzxx") == []
    db = hub.store.conn()
    with db.transaction():
        db.execute("SET LOCAL enable_seqscan = off")
        plan = "\n".join(r[0] for r in db.execute(
            "EXPLAIN SELECT id FROM chunks WHERE tsv @@ to_tsquery('english', 'lora')"))
    assert "chunks_tsv" in plan


def test_mcp_output_has_the_same_shape_on_both_backends(pg_hub, sqlite_hub_home):
    from core.hub import render
    sq, pg = _hub(sqlite_hub_home / "hub.sqlite3"), _hub(None, pg_hub[1])
    q = "What rank does LoRA use?"
    a = render.search_result(sq.query(q, 3), q, "default")
    b = render.search_result(pg.query(q, 3), q, "default")
    sa, sb = a.structuredContent, b.structuredContent
    assert sa.keys() == sb.keys() and len(sa["citations"]) == len(sb["citations"]) == 3
    assert [c.keys() for c in sa["citations"]] == [c.keys() for c in sb["citations"]]
    assert sa["citations"][0]["metadata"]["doc_id"] == sb["citations"][0]["metadata"]["doc_id"] == "lora"
    assert "**References (JSON):**" in "\n".join(c.text for c in b.content if c.type == "text")
    a, b = sq.summary("lora"), pg.summary("lora")  # the two hubs were indexed at different times
    assert a.model_dump(exclude={"versions"}) == b.model_dump(exclude={"versions"})
    assert [v.version for v in a.versions] == [v.version for v in b.versions] == [1]
    assert sq.structure("qlora") == pg.structure("qlora")
    assert sq.node("lora_0003") == pg.node("lora_0003")
    assert [t.name for t in sq.vocabulary("default").terms] == [t.name for t in pg.vocabulary("default").terms]



def test_list_topics_gives_the_same_topics_on_both_backends(pg_hub, sqlite_hub_home):
    sq, pg = _hub(sqlite_hub_home / "hub.sqlite3"), _hub(None, pg_hub[1])
    a, b = sq.list_topics("default"), pg.list_topics("default")
    assert len(a.topics) == 5, [t.label for t in a.topics]  # the README's five
    # the two hubs were indexed at different times: everything but the revision is the same
    assert a.model_dump(exclude={"revision"}) == b.model_dump(exclude={"revision"})
    assert b.revision == pg.store.revision("default")
    first = a.topics[0].topic_id
    assert sq.topic_documents(first, "default") == pg.topic_documents(first, "default")
    q = "How is the reward model trained?"
    reward = next(t for t in b.topics if "dpo" in {d.doc_id for d in t.documents})
    members = {d.doc_id for d in reward.documents}
    hits = pg.query(q, 3, "default", topic=reward.topic_id)  # lexical legs differ: same scope, not same order
    assert hits and {h.chunk.doc_id for h in hits} <= members
    assert {h.chunk.doc_id for h in sq.query(q, 3, "default", topic=reward.topic_id)} <= members

# -- migrate, CLI, errors -----------------------------------------------------------------------------

def test_copy_from_sqlite_is_complete_and_rerunnable(sqlite_hub_home, pg_dsn, tmp_path):
    import shutil

    from core.hub.pg.store import PgStore, as_array
    from core.hub.pg.transfer import copy_hub

    db = tmp_path / "hub.sqlite3"
    shutil.copy(sqlite_hub_home / "hub.sqlite3", db)
    src, dst = HubStore(db), PgStore(pg_dsn)
    first = copy_hub(src, dst)
    assert len(first.copied) == src.stats("default")["document_count"] and not first.skipped
    assert dst.stats("default") == src.stats("default")
    assert dst.meta_items() == list(src.conn().execute("SELECT key, value FROM meta ORDER BY key"))
    for doc in src.documents():
        assert dst.document(doc["doc_id"]) == doc
    a = src.chunk("lora_0003")
    b = dst.chunk("lora_0003")
    assert (a.text, a.breadcrumb, a.section_path) == (b.text, b.breadcrumb, b.section_path)
    va = np.frombuffer(src.conn().execute("SELECT vector FROM embeddings WHERE chunk_rowid=?", (a.rowid,)).fetchone()[0],
                       dtype=np.float32)
    vb = as_array(dst.conn().execute("SELECT vector FROM embeddings WHERE chunk_rowid=%s", (b.rowid,)).fetchone()[0])
    assert np.array_equal(va, vb)

    again = copy_hub(src, dst)
    assert again.copied == [] and len(again.skipped) == len(first.copied)
    src.put_document(_doc("extra", collection="default"), _chunks(2))  # a new SQLite document: only it is copied
    third = copy_hub(src, dst)
    assert third.copied == ["extra"] and dst.stats("default") == src.stats("default")
    src.put_document(_doc("late", collection="default"), [NewChunk(section_path=["A"], text="later embedded")])
    assert copy_hub(src, dst).copied == ["late"] and dst.stats("default")["embedded_chunks"] == \
        src.stats("default")["embedded_chunks"]
    rid = src.missing_embeddings("default")[0][0]
    src.put_embeddings("default", [(rid, _vec(99))])  # embedded in SQLite after the copy: copied again
    assert copy_hub(src, dst).copied == ["late"] and dst.stats("default") == src.stats("default")


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    code = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=str(REPO), capture_output=True,
                          text=True, timeout=300)


def test_cli_migrate_then_status_reads_postgres(sqlite_hub_home, pg_dsn, tmp_path):
    import shutil

    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(sqlite_hub_home / "hub.sqlite3", home / "hub.sqlite3")
    env = server_env(home)
    env.pop("PAPERPILOT_HUB_BACKEND", None)
    env.pop("PAPERPILOT_HUB_DSN", None)
    out = _cli(["hub", "migrate", "--to", "postgres", "--dsn", pg_dsn], env)
    assert out.returncode == 0, out.stderr
    assert "documents copied" in out.stdout and "default: 14 documents" in out.stdout
    assert "14/14 documents" in out.stdout  # progress
    again = _cli(["hub", "migrate", "--to", "postgres", "--dsn", pg_dsn], env)
    assert "0 documents copied" in again.stdout and "14 already there" in again.stdout
    status = _cli(["hub", "status"], env | {"PAPERPILOT_HUB_BACKEND": "postgres", "PAPERPILOT_HUB_DSN": pg_dsn})
    assert status.returncode == 0, status.stderr
    assert "database: postgresql://" in status.stdout and "default: 14 documents" in status.stdout


@needs("postgres")
def test_unreachable_server_is_one_clear_line(tmp_path):
    env = server_env(tmp_path) | {"PAPERPILOT_HUB_BACKEND": "postgres",
                                  "PAPERPILOT_HUB_DSN": f"postgresql://u:pw@/hub?host={tmp_path}&connect_timeout=3"}
    out = _cli(["hub", "status"], env)
    assert out.returncode == 1 and "Traceback" not in out.stderr
    assert out.stderr.startswith("paperpilot: hub.dsn postgresql://u:***@/hub") and "pw" not in out.stderr
    served = subprocess.run([sys.executable, "-m", "core.hub", "serve"], env=env, cwd=str(REPO), input="",
                            capture_output=True, text=True, timeout=60)
    assert served.returncode == 2 and "Traceback" not in served.stderr and "hub.dsn" in served.stderr


def test_embedded_cluster_start_is_idempotent(pg_cluster):
    pid = pg_cluster.running_pid()
    assert pid and pg_cluster.ensure_running() == pg_cluster.dsn() and pg_cluster.running_pid() == pid
    assert "host=" in pg_cluster.dsn() and os.path.exists(os.path.join(pg_cluster.socket_dir, ".s.PGSQL.5432"))


def test_document_versions_behave_as_on_sqlite(pg_dsn, tmp_path):
    from core.hub.ingest import Ingestor

    note = tmp_path / "glimmer.md"
    results = {}
    for name, dsn in (("sqlite", None), ("postgres", pg_dsn)):
        hub = _hub(tmp_path / f"{name}.sqlite3", dsn)
        ing = Ingestor(hub.store, embed=False, keep_versions=2)
        for text in ("Glimmer uses rank 4 adapters.", "Glimmer uses rank 16 adapters.", "Glimmer uses rank 64."):
            note.write_text(f"# Glimmer Notes\n\n## Method\n{text}\n")
            ing.ingest([note], "c1", force=True)
        old = hub.query("glimmer rank adapters", 3, collection="c1", version=2)
        retired = hub.store.retire_document("glimmer")
        results[name] = (
            [v["version"] for v in hub.store.versions("glimmer")],  # keep_versions=2: version 1 pruned
            [c.text for c in hub.store.doc_chunks("glimmer", version=2)],
            [(h.chunk.chunk_id, h.chunk.version, h.chunk.current) for h in old],
            retired, hub.store.stats("c1"), hub.store.documents("c1"),
            [c.chunk_id for c in hub.store.doc_chunks("glimmer", version=3)])
    assert results["postgres"] == results["sqlite"]
    versions, v2, old, retired, stats, live, v3 = results["postgres"]
    assert versions == [2, 3] and "rank 16" in v2[0] and old and all(v == 2 and not cur for _, v, cur in old)
    assert retired and stats["document_count"] == 0 and live == [] and v3[0].endswith("@v3")
