"""Long-term facts against a real SQLite file and the real MiniLM encoder."""

from __future__ import annotations

import json
import sqlite3

import pytest

from core.config import MemorySettings
from core.memory.db import SCHEMA_VERSION, SchemaTooNew, StateDB, check_integrity
from core.memory.facts import FactNotFound, FactStore

LORA = "LoRA freezes the pretrained weights and trains low-rank update matrices [1]."
QLORA = "QLoRA fine-tunes a 65B model on a single 48GB GPU using 4-bit NF4 quantization."
ATTN = "The Transformer relies entirely on self-attention, dispensing with recurrence."


@pytest.fixture
def db(tmp_path):
    return tmp_path / "state.sqlite3"


@pytest.fixture
def store(db):
    s = FactStore(db, MemorySettings())
    yield s
    s.close()


async def test_memorize_then_recall_semantic_and_lexical(store):
    res = await store.memorize([LORA, QLORA, ATTN], source_question="What is LoRA?", session_id="s1")
    assert (res.added, res.updated) == (3, 0)
    assert res.facts[0] == "LoRA freezes the pretrained weights and trains low-rank update matrices."  # no citation
    got = await store.recall("What is LoRA?", 2)
    assert got[0].content.startswith("LoRA freezes")
    # No keyword overlap with the fact ("self-attention" vs "attention mechanism in transformers").
    got = await store.recall("how does the attention mechanism in transformers work", 1)
    assert got and got[0].content == ATTN
    assert await store.recall("best pizza in Naples", 3) == []
    fact = store.get(got[0].id)
    assert fact.recall_count == 1 and fact.last_recalled is not None
    assert fact.source_question == "What is LoRA?" and fact.session_id == "s1"


async def test_search_does_not_count_as_recall(store):
    await store.memorize([QLORA], source_question="q", session_id="s")
    hits = await store.search("4-bit quantization of large models", 3)
    assert hits and store.get(hits[0].id).recall_count == 0


async def test_near_duplicates_update_instead_of_append(store):
    await store.memorize([LORA, ATTN], source_question="q1", session_id="s1")
    res = await store.memorize(
        ["LoRA freezes pretrained weights and trains low-rank update matrices.",  # near duplicate
         "lora freezes the pretrained weights, and trains low-rank update matrices!",  # same normalized
         QLORA],
        source_question="q2", session_id="s2")
    assert store.count() == 3
    assert res.added == 1 and res.updated == 2  # both LoRA variants land on the one old fact
    lora = [f for f in store.list() if f.content.lower().startswith("lora")]
    assert len(lora) == 1 and lora[0].source_question == "q2"


async def test_pinned_fact_keeps_user_wording_on_dedup(store):
    fact = store.add("LoRA trains low-rank update matrices while freezing pretrained weights.", pinned=True)
    res = await store.memorize([LORA], source_question="q", session_id="s")
    assert res.updated == 1 and store.count() == 1
    assert store.get(fact.id).content == fact.content


async def test_cap_evicts_least_recently_recalled_never_pinned(db):
    store = FactStore(db, MemorySettings(max_facts=10))
    pinned = store.add("Pinned: the Adam optimizer keeps first and second moment estimates.", pinned=True)
    base = [store.add(f"Filler fact number {i} about topic {i * 7} in obscure subfield {i}.") for i in range(9)]
    await store.recall(base[0].content, 1)  # base[0] recalled recently -> kept
    res = await store.memorize([LORA, QLORA, ATTN], source_question="q", session_id="s")
    assert res.added == 3 and res.evicted == 3
    ids = {f.id for f in store.list()}
    assert store.count() == 10 and pinned.id in ids and base[0].id in ids
    assert not {base[1].id, base[2].id, base[3].id} & ids  # the oldest never-recalled ones went
    store.close()


async def test_crud_round_trip_and_recall_sees_edits(store):
    fact = store.add("Adam uses bias-corrected moment estimates.")
    assert store.add("adam uses bias-corrected moment estimates").id == fact.id  # same normalized text
    edited = store.edit(fact.id, "Adam keeps bias-corrected first and second moment estimates.")
    assert edited.content.startswith("Adam keeps") and edited.updated >= fact.updated
    got = await store.recall("Adam optimizer moment estimates", 1)
    assert got[0].id == fact.id and got[0].content == edited.content
    assert store.pin(fact.id).pinned and not store.unpin(fact.id).pinned
    assert [f.id for f in store.list(query="moment")] == [fact.id]
    assert store.delete(fact.id) and not store.delete(fact.id)
    assert store.get(fact.id) is None
    with pytest.raises(FactNotFound):
        store.edit(fact.id, "x y z")
    with pytest.raises(FactNotFound):
        store.pin(999)
    with pytest.raises(ValueError):
        store.add("   ")


async def test_export_import_round_trip(store, tmp_path):
    store.add(LORA, pinned=True)
    store.add(QLORA)
    out = tmp_path / "facts.jsonl"
    assert store.export(out) == 2
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["content"] for r in rows} == {store.list()[0].content, store.list()[1].content}
    other = FactStore(tmp_path / "other.sqlite3")
    assert other.import_(out) == 2 and other.import_(out) == 0  # dedup on re-import
    assert [f.pinned for f in other.list()] == [True, False]
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "ok fact here"}\nnot json\n')
    with pytest.raises(ValueError, match="bad.jsonl:2"):
        other.import_(bad)
    other.close()


async def test_second_store_on_same_file_sees_changes(db):
    a, b = FactStore(db), FactStore(db)
    await a.memorize([LORA], source_question="q", session_id="s")
    assert (await b.recall("what is LoRA", 1))[0].content.startswith("LoRA")
    await b.memorize([ATTN], source_question="q", session_id="s")  # a's matrix must reload
    assert (await a.recall("self-attention without recurrence", 1))[0].content == ATTN
    a.delete((await a.recall("self-attention without recurrence", 1))[0].id)
    assert all(f.content != ATTN for f in await b.recall("self-attention without recurrence", 3))
    a.close(), b.close()


def test_schema_is_versioned_and_wal(db):
    StateDB(db).close()
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(SchemaTooNew):
        StateDB(db)
    assert check_integrity(db) == []


def test_fts_integrity_check_catches_drift(db):
    s = FactStore(db)
    s.add("A fact that will drift from its index.")
    s.close()
    conn = sqlite3.connect(db)
    conn.execute("DROP TRIGGER facts_au")
    conn.execute("UPDATE facts SET content = 'changed behind the index', keywords = 'changed'")
    conn.commit()
    conn.close()
    assert check_integrity(db)
