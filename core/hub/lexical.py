"""The lexical leg: an in-memory BM25 index per collection (bm25s to build, numpy to score; Snowball stems).

Built from the stored chunks the first time a collection is queried and rebuilt only when the
collection's revision changes, like the dense matrix. A chunk is indexed as its document's words
(title, file name, authors' surnames: :func:`core.hub.store.document_words`), its breadcrumb and its
text; on the labelled set this fused better with the dense leg than FTS5's column-weighted bm25
(hybrid recall@5 0.974 vs 0.962 at equal weights). Scoring is a sparse column lookup, so a query
stays fast at 100k chunks where SQLite FTS5's ``ORDER BY bm25`` must score every matching row. FTS5
still serves the keyword-browsing tool.

bm25s builds and writes the index; reading it back and scoring need only numpy. bm25s's top-level
import pulls in ``scipy.sparse`` (over 0.1 CPU-s), so a restarted hub's first query, which loads the
saved files (:mod:`core.hub.index_files`), never imports bm25s: :meth:`LexicalIndex.load` reads
bm25s's on-disk format (a CSC matrix of precomputed BM25 weights, documents × terms, its vocabulary
and its parameters) and :meth:`LexicalIndex.search` sums the query terms' columns, as bm25s's numpy
backend does.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from core.text import SEARCH_TOKEN, snowball
# bm25s's file names (BM25.save / BM25.load defaults).
_DATA, _INDICES, _INDPTR = "data.csc.index.npy", "indices.csc.index.npy", "indptr.csc.index.npy"
_VOCAB, _PARAMS = "vocab.index.json", "params.index.json"
# BM25 variants whose score also needs bm25s's non-occurrence array; this index never builds them.
_NEEDS_NONOCCURRENCE = ("bm25l", "bm25+")


def tokens(text: str, stop: frozenset[str] = frozenset()) -> list[str]:
    """The BM25 terms of ``text``: search tokens not in ``stop`` (one letter only as a digit), Snowball-stemmed."""
    words = [w for w in SEARCH_TOKEN.findall(text.lower()) if w not in stop and (len(w) > 1 or w.isdigit())]
    return snowball(words)


class LexicalIndex:
    """BM25 over one collection's chunks; ``search`` returns (rowid, score) best first."""

    def __init__(self, rows: list[tuple[int, str, str, str]], stop: frozenset[str]):
        import bm25s

        self.stop = stop
        self.ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        self._retriever = bm25s.BM25(k1=1.2, b=0.75)  # kept to write the index in bm25s's format
        self._vocab: dict[str, int] = {}
        if rows:
            self._retriever.index([tokens(f"{title} {crumb} {text}", stop) or ["\x00"]
                                   for _, title, crumb, text in rows], show_progress=False)
            s = self._retriever.scores
            self._set(s["data"], s["indices"], s["indptr"], int(s["num_docs"]), self._retriever.vocab_dict,
                      np.dtype(self._retriever.dtype))

    def _set(self, data, indices, indptr, num_docs: int, vocab: dict[str, int], dtype: np.dtype) -> None:
        self._data, self._indices, self._indptr = data, indices, indptr
        self._num_docs, self._vocab, self._dtype = num_docs, vocab, dtype

    @property
    def vocab(self) -> set[str]:
        return set(self._vocab)

    def save(self, folder: Path) -> None:
        """Write the index into the new folder ``folder`` (the rowids last: a folder without them is incomplete)."""
        if self._retriever is None:
            raise ValueError("a loaded index is already saved")
        folder.mkdir(mode=0o700)
        self._retriever.save(str(folder), show_progress=False)
        np.save(folder / "ids.npy", self.ids, allow_pickle=False)
        for f in folder.iterdir():  # the index holds the user's words: private like the store
            f.chmod(0o600)

    @classmethod
    def load(cls, folder: Path, stop: frozenset[str]) -> LexicalIndex:
        """An index written by :meth:`save` (with the same ``stop`` words), its matrix memory-mapped.

        OSError for a missing file, ValueError for one that is not what :meth:`save` writes."""
        params = json.loads((folder / _PARAMS).read_text(encoding="utf-8"))
        vocab = json.loads((folder / _VOCAB).read_text(encoding="utf-8"))
        if not isinstance(params, dict) or not isinstance(vocab, dict):
            raise ValueError(f"{folder}: not a BM25 index")
        if params.get("method") in _NEEDS_NONOCCURRENCE or not isinstance(params.get("num_docs"), int):
            raise ValueError(f"{folder}: unsupported BM25 parameters")
        self = cls.__new__(cls)
        self.stop = stop
        self._retriever = None
        self.ids = np.load(folder / "ids.npy", allow_pickle=False)
        load = lambda name: np.load(folder / name, allow_pickle=False, mmap_mode="r")  # noqa: E731
        self._set(load(_DATA), load(_INDICES), load(_INDPTR), params["num_docs"], vocab,
                  np.dtype(params.get("dtype", "float32")))
        if not len(self._indptr) or int(self._indptr[-1]) != len(self._data) or self._num_docs != len(self.ids):
            raise ValueError(f"{folder}: BM25 index files do not match")
        return self

    def scores(self, terms: list[str]) -> np.ndarray:
        """Every document's BM25 score for ``terms`` (stemmed, in the vocabulary): their columns summed."""
        out = np.zeros(self._num_docs, dtype=self._dtype)
        for t in terms:
            col = self._vocab[t]
            if not 0 <= col < len(self._indptr) - 1:
                continue  # bm25s lists the empty token in the vocabulary without a column
            start, end = int(self._indptr[col]), int(self._indptr[col + 1])
            out[self._indices[start:end]] += self._data[start:end]  # one entry per document in a column
        return out

    def search(self, query: str, n: int) -> list[tuple[int, float]]:
        q = [t for t in dict.fromkeys(tokens(query, self.stop)) if t in self._vocab]
        if not q or not len(self.ids):
            return []
        scores = self.scores(q)
        k = min(n, int(np.count_nonzero(scores)))
        if k == 0:
            return []
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(self.ids[i]), float(scores[i])) for i in top]
