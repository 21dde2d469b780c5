"""The current chunks' dense matrix and BM25 index are files beside the store, memory-mapped by the
next process (core.hub.index_files): same hits, nothing rebuilt, new files when the collection moves.

Real SQLite stores and real bm25s indexes; vectors are random unit vectors and the query vector is
given, so no encoder is loaded.
"""

from __future__ import annotations

import numpy as np
import pytest

from core.hub.search import Searcher
from core.hub.store import HubStore, NewChunk

WORDS = "adapter rank matrix attention quantization reward policy retrieval agent memory tool plan".split()


def _doc(store: HubStore, n: int, rng: np.random.Generator, doc_id: str | None = None) -> None:
    doc_id = doc_id or f"doc{n}"
    chunks = []
    for i in range(6):
        v = rng.standard_normal(384).astype(np.float32)
        chunks.append(NewChunk([f"Doc {n}", f"S{i}"], " ".join(rng.choice(WORDS, 12)), vector=v / np.linalg.norm(v)))
    store.put_document({"doc_id": doc_id, "collection": "c", "path": f"/notes/{doc_id}.md", "doc_type": "markdown",
                        "file_hash": f"{doc_id}-{n}", "title": f"Doc {n}"}, chunks)


@pytest.fixture
def store(tmp_path):
    s = HubStore(tmp_path / "hub.sqlite3")
    rng = np.random.default_rng(0)
    for n in range(20):
        _doc(s, n, rng)
    yield s
    s.close()


def _searcher(store: HubStore) -> Searcher:
    q = np.random.default_rng(1).standard_normal(384).astype(np.float32)
    return Searcher(store, embed_query=lambda _: q / np.linalg.norm(q))


def _hits(searcher: Searcher) -> list[tuple[str, float]]:
    return [(h.chunk.chunk_id, round(h.score, 6)) for h in searcher.search("c", "adapter rank attention", 8)]


def test_a_second_process_maps_the_indexes_the_first_wrote(store, tmp_path, monkeypatch):
    first = _searcher(store)
    want = _hits(first)
    files = sorted(p.name.split(".", 1)[1] for p in (tmp_path / "hub-index").iterdir())
    assert files == ["bm25", "ids.npy", "vec.npy"]

    again = HubStore(tmp_path / "hub.sqlite3")  # what a restarted hub opens
    monkeypatch.setattr(again, "embedding_snapshot", lambda *_: pytest.fail("the matrix was read from SQLite"))
    monkeypatch.setattr(again, "lexical_rows", lambda *_: pytest.fail("the BM25 index was rebuilt"))
    second = _searcher(again)
    assert _hits(second) == want
    ids, mat = second.matrix("c")
    assert isinstance(mat, np.memmap) and mat.shape == (120, 384)
    assert np.array_equal(ids, store.embedding_matrix("c")[0])
    again.close()


def test_the_files_follow_the_collection_when_it_moves(store, tmp_path):
    s = _searcher(store)
    _hits(s)
    before = {p.name for p in (tmp_path / "hub-index").iterdir()}
    _doc(store, 99, np.random.default_rng(5))  # a new document: a new revision
    fresh = _searcher(HubStore(tmp_path / "hub.sqlite3"))
    got = _hits(fresh)
    assert got == _hits(_searcher_in_memory(store))
    after = {p.name for p in (tmp_path / "hub-index").iterdir()}
    assert len(after) == 3 and not after & before  # the old revision's files are gone
    assert fresh.matrix("c")[1].shape == (126, 384)


def _searcher_in_memory(store: HubStore) -> Searcher:
    import os

    os.environ["PAPERPILOT_HUB_INDEX_FILES"] = "off"
    try:
        s = _searcher(store)
        _hits(s)
        s.matrix("c")
        return s
    finally:
        del os.environ["PAPERPILOT_HUB_INDEX_FILES"]


def test_a_new_database_at_the_same_path_never_reads_the_old_files(store, tmp_path):
    _hits(_searcher(store))
    store.close()
    for f in tmp_path.glob("hub.sqlite3*"):
        if f.is_file():
            f.unlink()
    other = HubStore(tmp_path / "hub.sqlite3")
    rng = np.random.default_rng(7)
    for n in range(20):  # same collection, same number of writes: the same revision number
        _doc(other, n + 100, rng, doc_id=f"doc{n}")
    try:
        assert _hits(_searcher(other)) == _hits(_searcher_in_memory(other))
    finally:
        other.close()


def test_a_damaged_file_is_rebuilt(store, tmp_path):
    want = _hits(_searcher(store))
    vec = next((tmp_path / "hub-index").glob("*.vec.npy"))
    vec.write_bytes(vec.read_bytes()[:200])
    assert _hits(_searcher(HubStore(tmp_path / "hub.sqlite3"))) == want
    assert vec.stat().st_size > 120 * 384 * 4


def test_files_are_private(store, tmp_path):
    _hits(_searcher(store))
    folder = tmp_path / "hub-index"
    assert folder.stat().st_mode & 0o777 == 0o700
    files = [*folder.glob("*.npy"), *folder.glob("*.bm25/*")]
    assert len(files) > 3 and all(p.stat().st_mode & 0o077 == 0 for p in files)
