"""Bibliographic metadata per document (issue 29, item 3): venue, DOI, arXiv id, citation key, tags and
source kind are stored (SQLite, migrated in place; PostgreSQL, its own step), returned by the hub's
tools (search citations and ``get_document_summary``), carried into the answer's sources and shown
by the sources pane."""

from __future__ import annotations

import json
import sqlite3
import time

from core.hub.ingest import Ingestor
from core.hub.library.metadata import find_arxiv, normalize_doi
from core.hub.render import citation, library_line
from core.hub.service import Hub
from core.hub.store import SCHEMA, HubStore
from core.tools.parse import citation_to_context
from core.types import DocMeta

NOTE = ("# Attention Is All You Need\n\n## Abstract\n\nThe Transformer relies entirely on self-attention, "
        "dispensing with recurrence and convolutions entirely.\n")
META = {"title": "Attention Is All You Need", "authors": ["Ashish Vaswani", "Noam Shazeer", "Niki Parmar"],
        "year": 2017, "venue": "Advances in Neural Information Processing Systems", "doi": "10.5555/3295222.3295349",
        "arxiv_id": "1706.03762", "citation_key": "vaswani2017attention", "tags": ["transformers", "attention"],
        "source_kind": "bib"}


def test_a_store_from_before_the_metadata_columns_is_migrated_and_keeps_its_documents(tmp_path):
    db = tmp_path / "hub.sqlite3"
    with sqlite3.connect(db) as old:  # the documents table as it was: no venue, DOI, key, tags, source kind
        old.executescript(SCHEMA)
        old.execute("INSERT INTO documents(doc_id, collection, path, doc_type, file_hash, title, authors, year,"
                    " created_at, updated_at) VALUES('lora', 'c', '/p/lora.md', 'markdown', 'h', 'LoRA', '[]', 2021,"
                    " ?, ?)", (time.time(), time.time()))
    store = HubStore(db)
    cols = {r[1] for r in store.conn().execute("PRAGMA table_info(documents)")}
    assert {"venue", "doi", "arxiv_id", "citation_key", "tags", "source_kind"} <= cols
    kept = store.document("lora")
    assert (kept["title"], kept["year"], kept["tags"], kept["doi"], kept["citation_key"]) == ("LoRA", 2021, [], None, None)
    HubStore(db).close()  # opening again changes nothing
    store.close()


def _ingest_with_metadata(tmp_path) -> HubStore:
    note = tmp_path / "attention.md"
    note.write_text(NOTE)
    store = HubStore(tmp_path / "hub.sqlite3")
    Ingestor(store, embed=False).ingest([note], "lib", meta={str(note.resolve()): META})
    return store


def test_the_hub_tools_return_a_documents_metadata(tmp_path):
    store = _ingest_with_metadata(tmp_path)
    (doc,) = store.documents("lib")
    assert {k: doc[k] for k in META} == META
    store.close()

    hub = Hub(tmp_path / "hub.sqlite3", sync=False)
    hub.start(background=False)
    hit = citation(1, hub.keyword(["recurrence"], collection="lib", top_k=1)[0]).metadata
    assert (hit.venue, hit.doi, hit.arxiv_id, hit.citation_key, hit.year) == (
        META["venue"], META["doi"], "1706.03762", "vaswani2017attention", 2017)
    summary = hub.summary(doc["doc_id"], "lib")
    assert (summary.venue, summary.doi, summary.citation_key, summary.tags, summary.source_kind) == (
        META["venue"], META["doi"], "vaswani2017attention", ["transformers", "attention"], "bib")
    assert not summary.abstract_only
    line = library_line(summary)  # the summary's Markdown text says it too
    assert "**DOI:** 10.5555/3295222.3295349" in line and "`@vaswani2017attention`" in line


def test_the_metadata_rides_from_the_hits_json_into_the_answers_source(tmp_path):
    store = _ingest_with_metadata(tmp_path)
    hub = Hub(tmp_path / "hub.sqlite3", sync=False)
    hub.start(background=False)
    wire = citation(1, hub.keyword(["recurrence"], collection="lib", top_k=1)[0]).model_dump(mode="json")
    ctx = citation_to_context(json.loads(json.dumps(wire)))
    assert ctx.meta == DocMeta(authors=META["authors"], year=2017, venue=META["venue"], doi=META["doi"],
                               arxiv_id="1706.03762", citation_key="vaswani2017attention")
    plain = citation_to_context({"chunk_id": "x_0001", "text": "t", "metadata": {"title": "T"}})
    assert plain.meta is None  # a server that sends no metadata: none invented
    store.close()


def test_the_sources_pane_line_names_authors_year_venue_ids_and_key():
    from paperpilot_tui.widgets.sources import citation_line

    meta = DocMeta(authors=META["authors"], year=2017, venue="NeurIPS", doi="10.5555/1", citation_key="vaswani2017")
    assert citation_line(meta) == "Vaswani, Shazeer et al. 2017 · NeurIPS · doi:10.5555/1 · @vaswani2017"
    assert citation_line(DocMeta(arxiv_id="2106.09685")) == "arXiv:2106.09685"
    assert citation_line(None) == ""


def test_dois_and_arxiv_ids_are_found_in_their_usual_spellings():
    assert normalize_doi("https://doi.org/10.18653/V1/N19-1423.") == "10.18653/v1/n19-1423"
    assert normalize_doi("no doi here") is None
    assert find_arxiv("https://arxiv.org/abs/2106.09685v2") == "2106.09685"
    assert find_arxiv("arXiv: 1706.03762", None) == "1706.03762"
    assert find_arxiv("pages 1234.5678") is None  # a number without arXiv named is not an id


def test_postgres_stores_the_metadata_too(pg_dsn, tmp_path):
    from core.hub.pg.store import PgStore

    sq = _ingest_with_metadata(tmp_path)
    (doc,) = sq.documents("lib")
    pg = PgStore(pg_dsn)
    pg.put_document(doc, [])
    got = pg.document(doc["doc_id"])
    assert {k: got[k] for k in META} == META
    sq.close()


def test_a_markdown_notes_front_matter_gives_venue_arxiv_id_and_tags(tmp_path):
    note = tmp_path / "dpo.md"
    note.write_text('---\ntitle: "Direct Preference Optimization"\nauthors: "Rafael Rafailov, Archit Sharma"\n'
                    'year: 2023\nvenue: "NeurIPS 2023"\narxiv: "2305.18290"\ntags: [alignment, preference learning]\n'
                    "---\n\n# Direct Preference Optimization\n\nDPO fits the policy to preferences directly.\n")
    store = HubStore(tmp_path / "hub.sqlite3")
    Ingestor(store, embed=False).ingest([note], "c")
    (doc,) = store.documents("c")
    assert (doc["venue"], doc["arxiv_id"], doc["tags"], doc["year"]) == (
        "NeurIPS 2023", "2305.18290", ["alignment", "preference learning"], 2023)
    store.close()
