"""A BM25 index read back from its files without bm25s (core.hub.lexical) scores exactly as bm25s does.

Real bm25s indexes built and written by bm25s; the reader and scorer under test are numpy only.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from core.hub.lexical import LexicalIndex, tokens

STOP = frozenset({"the", "of", "a"})
WORDS = ("adapter rank matrix attention quantization reward policy retrieval agent memory tool plan "
         "the of a low lora 4-bit 2023 x").split()
QUERIES = ["adapter rank", "low rank adapter lora", "policy reward the", "zzz unknown", "doc3 crumb 2023",
           "the of a", "4-bit quantization", "x"]


@pytest.fixture
def built():
    rng = random.Random(7)
    rows = [(i * 3 + 1, f"Doc{i % 9}", f"Doc{i % 9} > crumb", " ".join(rng.choices(WORDS, k=rng.randint(0, 40))))
            for i in range(400)]
    return LexicalIndex(rows, STOP)


def test_a_loaded_index_scores_what_bm25s_scores_and_ranks_as_the_built_one(built, tmp_path):
    import bm25s

    built.save(tmp_path / "i")
    loaded = LexicalIndex.load(tmp_path / "i", STOP)
    reference = bm25s.BM25.load(str(tmp_path / "i"), mmap=True, show_progress=False)
    assert isinstance(loaded._data, np.memmap) and loaded.vocab == built.vocab
    scored = 0
    for q in QUERIES:
        assert loaded.search(q, 20) == built.search(q, 20), q
        terms = [t for t in dict.fromkeys(tokens(q, STOP)) if t in loaded.vocab]
        if terms:
            assert np.array_equal(loaded.scores(terms), reference.get_scores(terms)), q
            scored += 1
    assert scored >= 5 and built.search("low rank adapter lora", 5)


def test_index_files_that_do_not_match_are_refused_so_the_index_is_rebuilt(built, tmp_path):
    built.save(tmp_path / "i")
    np.save(tmp_path / "i" / "ids.npy", built.ids[:-1], allow_pickle=False)  # one rowid short
    with pytest.raises(ValueError):
        LexicalIndex.load(tmp_path / "i", STOP)
    (tmp_path / "i" / "params.index.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError):
        LexicalIndex.load(tmp_path / "i", STOP)
    (tmp_path / "i" / "params.index.json").unlink()
    with pytest.raises(OSError):
        LexicalIndex.load(tmp_path / "i", STOP)
