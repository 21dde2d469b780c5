"""Long-term facts in SQLite (design stage I): hybrid recall, dedup on write, a capped store.

Recall mixes lexical (FTS5 bm25) and semantic (MiniLM cosine) relevance; the embedding matrix is
kept in memory (:mod:`core.memory.vectors`) so recall at 10k facts costs one mat-vec product.
The encoder loads lazily on the first recall/memorize; CRUD used by the CLI and the memory browser
never loads it (edited or added facts get their embedding on the next recall). Every change is one
transaction, so a killed process leaves either the old or the new fact, never half of one.
"""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import contextmanager
from pathlib import Path
from collections.abc import Callable, Iterator

import numpy as np
from pydantic import BaseModel, Field

from core.config import LimitsSettings, MemorySettings
from core.limits import check_chars
from core.memory.db import StateDB
from core.memory.hygiene import instruction_reason
from core.memory.protocol import FactSource, MemoryWriteResult, RecalledFact
from core.memory.recall import lexical_scores, rank
from core.memory.text import clean_fact, fts_query, fts_terms, keywords, normalize
from core.memory.vectors import VectorIndex, generation, to_blob
from core.redact import Redactor

MIN_FACT_CHARS = 8
_COLS = ("id, content, keywords, source_question, session_id, created, updated, recall_count, last_recalled, pinned,"
         " doc_id, doc_title, chunk_id, source_docs, said")


class Fact(BaseModel):
    id: int
    content: str
    keywords: list[str] = Field(default_factory=list)
    source_question: str = ""
    session_id: str = ""
    created: float
    updated: float
    recall_count: int = 0
    last_recalled: float | None = None
    pinned: bool = False
    # provenance (schema v2): the supporting chunk, and every document that supported the fact;
    # source_docs is None for facts learnt before provenance was recorded, or added by hand
    doc_id: str = ""
    doc_title: str = ""
    chunk_id: str = ""
    source_docs: list[str] | None = None
    # schema v3: whether its paper, read again since it was learnt, still says it (None: never checked)
    said: bool | None = None


class FactNotFound(KeyError):
    def __str__(self) -> str:
        return f"no fact with id {self.args[0]}"


def _fact(row) -> Fact:
    return Fact(id=row[0], content=row[1], keywords=row[2].split(), source_question=row[3],
                session_id=row[4], created=row[5], updated=row[6], recall_count=row[7],
                last_recalled=row[8], pinned=bool(row[9]), doc_id=row[10], doc_title=row[11], chunk_id=row[12],
                source_docs=None if row[13] is None else json.loads(row[13]),
                said=None if row[14] is None else bool(row[14]))


def _merged_docs(old: str | None, source: FactSource | None, tracked: bool) -> str | None:
    """The JSON ``source_docs`` after one more learning of the fact; NULL while nothing is known.

    ``tracked``: the caller records provenance, so a fact without a source gets ``[]`` (no document
    supported it) rather than NULL (unknown: learnt before provenance, or by a caller that does not say).
    """
    if old is None and source is None and not tracked:
        return None
    docs = [] if old is None else json.loads(old)
    if source is not None and source.doc_id and source.doc_id not in docs:
        docs.append(source.doc_id)
    return json.dumps(docs)


def _default_embed(texts: list[str]) -> np.ndarray:
    from core.embeddings import embed

    return embed(texts)


class FactStore:
    """Implements :class:`core.memory.protocol.FactMemory` plus CRUD for the CLI and the app."""

    def __init__(self, path: Path, settings: MemorySettings | None = None, *,
                 secrets: list[str] | None = None, embedder: Callable[[list[str]], np.ndarray] | None = None,
                 limits: LimitsSettings | None = None):
        self.db = StateDB(path)
        self.settings = settings or MemorySettings()
        self.limits = limits or LimitsSettings()  # fact_chars, import_file_bytes
        self._redact = Redactor(secrets)
        self._embed = embedder or _default_embed
        self._index = VectorIndex()
        self._ahead: tuple[str, asyncio.Future] | None = None  # the question prefetch() is embedding

    def close(self) -> None:
        self.db.close()

    # ---- agent API (async; the work runs in a thread so the event loop stays free) ----

    def prefetch(self, question: str) -> None:
        """Start embedding ``question`` for the :meth:`recall` that comes next. The agent calls this
        as a turn starts, so the encoder runs on another core while the turn loads its session and
        checkpoint; a recall of another question (or a failed embedding) embeds as usual."""
        if question.strip():
            self._ahead = (question, asyncio.get_running_loop().run_in_executor(None, self._embed, [question]))

    async def _prefetched(self, question: str) -> np.ndarray | None:
        ahead, self._ahead = self._ahead, None
        if ahead is None or ahead[0] != question:
            return None
        try:
            return (await ahead[1])[0]
        except Exception:  # noqa: BLE001 - search_sync embeds again and reports the error itself
            return None

    async def recall(self, question: str, top_k: int, *, exclude_session: str = "") -> list[RecalledFact]:
        """The facts most relevant to ``question``; counts as a recall (feeds eviction order).
        ``exclude_session``: that session's unpinned facts are neither returned nor counted, so they
        take none of the ``top_k`` places and their recall counters stay as they were."""
        vector = await self._prefetched(question)
        return await asyncio.to_thread(self.search_sync, question, top_k, True, vector, exclude_session)

    async def mark_checked(self, verdicts: list[tuple[int, float, bool]]) -> None:
        """Keep, per fact id, which version of its paper it was checked against (that version's time, as
        the hub gives it: one clock for both sides of the comparison) and whether that version still
        says it (:func:`core.nodes.load_memory.reread_check`); its text and times are left as they are."""
        await asyncio.to_thread(self.mark_checked_sync, verdicts)

    def mark_checked_sync(self, verdicts: list[tuple[int, float, bool]]) -> None:
        if verdicts:
            with self.db.write() as conn:
                conn.executemany("UPDATE facts SET checked = ?, said = ? WHERE id = ?",
                                 [(version, int(ok), i) for i, version, ok in verdicts])

    async def search(self, query: str, top_k: int = 10) -> list[RecalledFact]:
        """Like :meth:`recall` but browsing: recall counters are left alone."""
        return await asyncio.to_thread(self.search_sync, query, top_k, False)

    async def memorize(self, facts: list[str], *, source_question: str, session_id: str,
                       sources: list[FactSource | None] | None = None) -> MemoryWriteResult:
        return await asyncio.to_thread(self.memorize_sync, facts, source_question, session_id, sources)

    def search_sync(self, question: str, top_k: int, touch: bool = True,
                    vector: np.ndarray | None = None, exclude_session: str = "") -> list[RecalledFact]:
        """``vector``: the question's embedding when it is already known (:meth:`prefetch`);
        ``exclude_session``: as in :meth:`recall`."""
        if top_k <= 0 or not question.strip():
            return []
        self._backfill()
        query_vec = self._embed([question])[0] if vector is None else vector
        terms = fts_terms(question)
        with self.db.read() as conn:
            self._index.sync(conn)
            ids, sims = self._index.scores(query_vec)
            lexical = lexical_scores(conn, terms, len(ids))
            own = conn.execute("SELECT COUNT(*) FROM facts WHERE session_id = ? AND pinned = 0",
                               (exclude_session,)).fetchone()[0] if exclude_session else 0
            chosen = rank(ids, sims, lexical, self._index.position, top_k + own)
            if not chosen:
                return []
            marks = ",".join("?" * len(chosen))
            rows = {r[0]: r for r in conn.execute(
                f"SELECT id, content, pinned, doc_title, doc_id, source_docs, session_id, updated, checked, said"
                f" FROM facts WHERE id IN ({marks})",
                [f for _, f in chosen])
                if not (exclude_session and r[6] == exclude_session and not r[2])}
            chosen = [(s, fid) for s, fid in chosen if fid in rows][:top_k]
        out = [RecalledFact(id=fid, content=rows[fid][1], score=round(s, 4), pinned=bool(rows[fid][2]),
                            doc_title=rows[fid][3] or rows[fid][4] or "",
                            documents=len(json.loads(rows[fid][5])) if rows[fid][5] else 0,
                            session_id=rows[fid][6] or "", doc_id=rows[fid][4] or "", updated=rows[fid][7] or 0.0,
                            checked=rows[fid][8] or 0.0, said=None if rows[fid][9] is None else bool(rows[fid][9]))
               for s, fid in chosen if fid in rows]
        if touch and out:
            with self.db.write() as conn:
                conn.executemany(
                    "UPDATE facts SET recall_count = recall_count + 1, last_recalled = ? WHERE id = ?",
                    [(time.time(), f.id) for f in out],
                )
        return out

    def memorize_sync(self, facts: list[str], source_question: str = "", session_id: str = "",
                      sources: list[FactSource | None] | None = None) -> MemoryWriteResult:
        """Add facts; a near-duplicate (same normalized text or cosine ≥ dedup_threshold) updates the old one.

        This is where learnt facts enter long-term memory, so instruction-like text is refused here
        (:mod:`core.memory.hygiene`) whatever brain extracted it. ``sources[i]`` is the chunk that
        supports ``facts[i]`` (provenance), recorded with the fact.
        """
        texts: list[str] = []
        found: list[FactSource | None] = []
        tracked = sources is not None
        result = MemoryWriteResult()
        for i, raw in enumerate(facts):
            text = clean_fact(self._redact.text(raw))
            if instruction_reason(text):
                result.rejected.append(text)
            elif (MIN_FACT_CHARS <= len(text) <= self.limits.fact_chars
                    and normalize(text) not in {normalize(t) for t in texts}):
                texts.append(text)
                src = sources[i] if sources is not None and i < len(sources) else None
                found.append(None if src is None else FactSource(
                    doc_id=src.doc_id, title=self._redact.text(src.title), chunk_id=src.chunk_id))
        if not texts:
            return result
        self._backfill()
        vecs = self._embed(texts)
        source_question = self._redact.text(source_question)
        now = time.time()
        with self.db.write() as conn:
            self._index.sync(conn)
            for text, vec, src in zip(texts, vecs, found):
                norm = normalize(text)
                q = "SELECT id, pinned, source_docs FROM facts WHERE"
                row = conn.execute(f"{q} norm = ? LIMIT 1", (norm,)).fetchone()
                if row is None:
                    near, sim = self._index.nearest(vec)
                    if near is not None and sim >= self.settings.dedup_threshold:
                        row = conn.execute(f"{q} id = ?", (near,)).fetchone()
                if row is not None and row[1]:  # pinned: the user's wording stays
                    conn.execute("UPDATE facts SET updated = ?, source_docs = ? WHERE id = ?",
                                 (now, _merged_docs(row[2], src, tracked), row[0]))
                elif row is not None:
                    conn.execute(
                        "UPDATE facts SET content = ?, norm = ?, keywords = ?, embedding = ?, updated = ?,"
                        " source_question = ?, session_id = ?, source_docs = ?, checked = NULL, said = NULL"
                        " WHERE id = ?",  # learnt again: any check of an older reading no longer holds
                        (text, norm, " ".join(keywords(text)), to_blob(vec), now, source_question, session_id,
                         _merged_docs(row[2], src, tracked), row[0]),
                    )
                    if src is not None:
                        conn.execute("UPDATE facts SET doc_id = ?, doc_title = ?, chunk_id = ? WHERE id = ?",
                                     (src.doc_id, src.title, src.chunk_id, row[0]))
                    self._index.upsert(row[0], vec)
                else:
                    src_ = src or FactSource()
                    cur = conn.execute(
                        "INSERT INTO facts (content, norm, keywords, embedding, source_question, session_id,"
                        " created, updated, doc_id, doc_title, chunk_id, source_docs)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (text, norm, " ".join(keywords(text)), to_blob(vec), source_question, session_id, now, now,
                         src_.doc_id, src_.title, src_.chunk_id, _merged_docs(None, src, tracked)),
                    )
                    self._index.upsert(int(cur.lastrowid), vec)
                    result.added += 1
                    result.facts.append(text)
                    continue
                result.updated += 1
                result.facts.append(text)
            result.evicted = self._enforce_cap(conn)
            self._index.gen = generation(conn)
        return result

    # ---- CRUD (sync; each call is one transaction) ----

    def list(self, limit: int | None = None, query: str | None = None) -> list[Fact]:
        """All facts (pinned first, newest first), or those matching ``query`` lexically."""
        lim = -1 if limit is None else int(limit)
        with self.db.read() as conn:
            if query and query.strip():
                match = fts_query(query)
                if not match:
                    return []
                rows = conn.execute(
                    f"SELECT {', '.join('f.' + c.strip() for c in _COLS.split(','))} FROM facts_fts"
                    " JOIN facts f ON f.id = facts_fts.rowid WHERE facts_fts MATCH ? ORDER BY rank LIMIT ?",
                    (match, lim),
                ).fetchall()
            else:
                rows = conn.execute(
                    f"SELECT {_COLS} FROM facts ORDER BY pinned DESC, updated DESC, id DESC LIMIT ?", (lim,)
                ).fetchall()
        return [_fact(r) for r in rows]

    def count(self) -> int:
        with self.db.read() as conn:
            return conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]

    def get(self, fact_id: int) -> Fact | None:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {_COLS} FROM facts WHERE id = ?", (int(fact_id),)).fetchone()
        return _fact(row) if row else None

    def add(self, text: str, pinned: bool = False, *, source_question: str = "", session_id: str = "",
            created: float | None = None) -> Fact:
        """Add one fact; the same normalized text returns (and, if asked, pins) the existing one."""
        text = self._checked(text)
        with self._writing() as conn:
            fid = self._add_in(conn, text, pinned, source_question, session_id, created)
            self._enforce_cap(conn)
            fact = self._get_in(conn, fid)
        return fact

    def _add_in(self, conn, text: str, pinned: bool, source_question: str, session_id: str,
                created: float | None) -> int:
        """:meth:`add` inside the caller's transaction (``text`` already checked); returns the fact's id."""
        norm, now = normalize(text), time.time()
        row = conn.execute("SELECT id FROM facts WHERE norm = ? LIMIT 1", (norm,)).fetchone()
        if row:
            if pinned:
                conn.execute("UPDATE facts SET pinned = 1, updated = ? WHERE id = ?", (now, row[0]))
            return row[0]
        return conn.execute(
            "INSERT INTO facts (content, norm, keywords, source_question, session_id, created, updated,"
            " pinned) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (text, norm, " ".join(keywords(text)), self._redact.text(source_question), session_id,
             created or now, now, int(pinned)),
        ).lastrowid

    def edit(self, fact_id: int, text: str) -> Fact:
        text = self._checked(text)
        with self._writing() as conn:
            cur = conn.execute(
                "UPDATE facts SET content = ?, norm = ?, keywords = ?, embedding = NULL, updated = ? WHERE id = ?",
                (text, normalize(text), " ".join(keywords(text)), time.time(), int(fact_id)),
            )
            if not cur.rowcount:
                raise FactNotFound(fact_id)
            self._index.remove(int(fact_id))
            return self._get_in(conn, fact_id)

    def delete(self, fact_id: int) -> bool:
        with self._writing() as conn:
            gone = conn.execute("DELETE FROM facts WHERE id = ?", (int(fact_id),)).rowcount > 0
            self._index.remove(int(fact_id))
        return gone

    def pin(self, fact_id: int) -> Fact:
        return self._set_pinned(fact_id, True)

    def unpin(self, fact_id: int) -> Fact:
        return self._set_pinned(fact_id, False)

    def export(self, path: Path) -> int:
        """Write every fact as one JSON object per line (no embeddings); returns the count."""
        facts = self.list()
        lines = [json.dumps(self._redact.obj(f.model_dump(exclude={"id"})), ensure_ascii=False) for f in facts]
        Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return len(lines)

    def import_(self, path: Path) -> int:
        """Add facts from a JSONL export (objects with ``content``, or bare strings); returns how many were new.
        The whole file is checked first (:mod:`core.memory.fact_import`): a bad line imports nothing;
        the facts are then written in one transaction, so a kill mid-import imports nothing either."""
        from core.memory.fact_import import read_import

        items = read_import(path, self.limits.import_file_bytes, self.limits.fact_chars)
        texts = [self._checked(item.content) for item in items]
        with self._writing() as conn:  # one transaction: a killed import leaves all of the file or none
            before = conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
            for item, text in zip(items, texts):
                self._add_in(conn, text, item.pinned, item.source_question, item.session_id, item.created)
            self._enforce_cap(conn)
            return conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0] - before

    # ---- internals ----

    @contextmanager
    def _writing(self) -> Iterator:
        """A write transaction whose index changes are kept only if the index was current before it."""
        with self.db.write() as conn:
            before = generation(conn)
            yield conn
            if self._index.gen == before:
                self._index.gen = generation(conn)

    def _checked(self, text: str) -> str:
        text = clean_fact(self._redact.text(text))
        if not text:
            raise ValueError("a fact needs some text")
        return check_chars(text, self.limits.fact_chars, "the fact", "fact_chars")

    def _get_in(self, conn, fact_id: int) -> Fact:
        row = conn.execute(f"SELECT {_COLS} FROM facts WHERE id = ?", (int(fact_id),)).fetchone()
        if row is None:
            raise FactNotFound(fact_id)
        return _fact(row)

    def _set_pinned(self, fact_id: int, pinned: bool) -> Fact:
        with self._writing() as conn:
            if not conn.execute("UPDATE facts SET pinned = ? WHERE id = ?", (int(pinned), int(fact_id))).rowcount:
                raise FactNotFound(fact_id)
            return self._get_in(conn, fact_id)

    def _enforce_cap(self, conn) -> int:
        """Evict unpinned facts over ``max_facts``: least recently recalled (or created) first."""
        excess = conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0] - self.settings.max_facts
        if excess <= 0:
            return 0
        victims = [r[0] for r in conn.execute(
            "SELECT id FROM facts WHERE pinned = 0 ORDER BY COALESCE(last_recalled, created), recall_count, id"
            " LIMIT ?", (excess,))]
        conn.executemany("DELETE FROM facts WHERE id = ?", [(v,) for v in victims])
        for v in victims:
            self._index.remove(v)
        return len(victims)

    def _backfill(self) -> None:
        """Embed facts added or edited without the encoder (CLI, app), then store the vectors."""
        with self.db.read() as conn:
            rows = conn.execute("SELECT id, content FROM facts WHERE embedding IS NULL").fetchall()
        if not rows:
            return
        vecs = self._embed([r[1] for r in rows])
        with self.db.write() as conn:
            self._index.sync(conn)
            for (fid, content), vec in zip(rows, vecs):
                if conn.execute("UPDATE facts SET embedding = ? WHERE id = ? AND content = ? AND embedding IS NULL",
                                (to_blob(vec), fid, content)).rowcount:
                    self._index.upsert(fid, vec)
            self._index.gen = generation(conn)
