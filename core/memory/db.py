"""The state database (sessions, long-term facts, traces): one SQLite file, safe for two processes.

Every store opens its own connection through :func:`open_db`, which sets WAL mode, a busy timeout
and ``synchronous=NORMAL`` (a killed process never loses a committed transaction), then brings the
schema up to date with ``PRAGMA user_version`` migrations. One linear list of migrations covers all
three stores because ``user_version`` is one number per file. Writes go through
:meth:`StateDB.write`, which takes the write lock up front (``BEGIN IMMEDIATE``) so two writers
queue behind the busy timeout instead of failing with "database is locked" on lock upgrade.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import contextmanager
from pathlib import Path
from collections.abc import Iterator

BUSY_TIMEOUT_MS = 15000

# (version, script). Append only; never edit a shipped migration.
MIGRATIONS: list[tuple[int, str]] = [
    (1, """
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
    INSERT OR IGNORE INTO meta(key, value) VALUES ('facts_gen', 0);

    CREATE TABLE IF NOT EXISTS facts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        content TEXT NOT NULL,
        norm TEXT NOT NULL,
        keywords TEXT NOT NULL DEFAULT '',
        embedding BLOB,
        source_question TEXT NOT NULL DEFAULT '',
        session_id TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        updated REAL NOT NULL,
        recall_count INTEGER NOT NULL DEFAULT 0,
        last_recalled REAL,
        pinned INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX IF NOT EXISTS facts_norm ON facts(norm);
    CREATE INDEX IF NOT EXISTS facts_unembedded ON facts(id) WHERE embedding IS NULL;
    CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(
        content, keywords, content='facts', content_rowid='id', tokenize='porter unicode61'
    );
    CREATE TRIGGER IF NOT EXISTS facts_ai AFTER INSERT ON facts BEGIN
        INSERT INTO facts_fts(rowid, content, keywords) VALUES (new.id, new.content, new.keywords);
        UPDATE meta SET value = value + 1 WHERE key = 'facts_gen';
    END;
    CREATE TRIGGER IF NOT EXISTS facts_ad AFTER DELETE ON facts BEGIN
        INSERT INTO facts_fts(facts_fts, rowid, content, keywords)
            VALUES ('delete', old.id, old.content, old.keywords);
        UPDATE meta SET value = value + 1 WHERE key = 'facts_gen';
    END;
    CREATE TRIGGER IF NOT EXISTS facts_au AFTER UPDATE OF content, keywords, embedding ON facts BEGIN
        INSERT INTO facts_fts(facts_fts, rowid, content, keywords)
            VALUES ('delete', old.id, old.content, old.keywords);
        INSERT INTO facts_fts(rowid, content, keywords) VALUES (new.id, new.content, new.keywords);
        UPDATE meta SET value = value + 1 WHERE key = 'facts_gen';
    END;

    CREATE TABLE IF NOT EXISTS sessions (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL DEFAULT '',
        created REAL NOT NULL,
        updated REAL NOT NULL,
        turn_count INTEGER NOT NULL DEFAULT 0
    );

    CREATE TABLE IF NOT EXISTS traces (
        id TEXT PRIMARY KEY,
        session_id TEXT NOT NULL DEFAULT '',
        question TEXT NOT NULL DEFAULT '',
        intent TEXT,
        strategy TEXT NOT NULL DEFAULT '',
        started REAL NOT NULL,
        finished REAL NOT NULL,
        duration_ms REAL NOT NULL DEFAULT 0,
        retries INTEGER NOT NULL DEFAULT 0,
        llm_calls INTEGER NOT NULL DEFAULT 0,
        prompt_tokens INTEGER NOT NULL DEFAULT 0,
        completion_tokens INTEGER NOT NULL DEFAULT 0,
        final_answer TEXT NOT NULL DEFAULT '',
        error TEXT,
        detail TEXT NOT NULL DEFAULT '{}'
    );
    CREATE INDEX IF NOT EXISTS traces_session ON traces(session_id, started);
    CREATE INDEX IF NOT EXISTS traces_started ON traces(started);
    CREATE TABLE IF NOT EXISTS trace_events (
        trace_id TEXT NOT NULL REFERENCES traces(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        ts REAL NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (trace_id, seq)
    ) WITHOUT ROWID;
    """),
    # v2, memory hygiene: where a fact came from. doc_id/doc_title/chunk_id name the retrieved chunk
    # that supports it; source_docs is a JSON array of every document that supported it so far
    # (grows when a near-duplicate is learnt again). NULL source_docs: learnt before provenance.
    (2, """
    ALTER TABLE facts ADD COLUMN doc_id TEXT NOT NULL DEFAULT '';
    ALTER TABLE facts ADD COLUMN doc_title TEXT NOT NULL DEFAULT '';
    ALTER TABLE facts ADD COLUMN chunk_id TEXT NOT NULL DEFAULT '';
    ALTER TABLE facts ADD COLUMN source_docs TEXT;
    """),
    # v3, facts checked against a paper read again since they were learnt (core.nodes.load_memory):
    # the version checked against (checked: its time, as the hub gives it) and the verdict (said: 1 that
    # version still says it, 0 no longer; NULL never checked, or learnt again since)
    (3, """
    ALTER TABLE facts ADD COLUMN checked REAL;
    ALTER TABLE facts ADD COLUMN said INTEGER;
    """),
]
SCHEMA_VERSION = MIGRATIONS[-1][0]


class SchemaTooNew(RuntimeError):
    """The file was written by a newer PaperPilot; refuse rather than guess."""


def _connect(path: Path) -> sqlite3.Connection:
    """A connection with the pragmas every store needs. A lock another process holds is waited for
    (the busy timeout), and connecting is tried again while that wait lasts when SQLite answers
    "locked" without waiting; a lock held past it is :class:`~core.errors.StoreBusy`."""
    import time

    from core.errors import StoreUnreadable, lock_waits, locked
    from core.paths import private_file

    private_file(path)
    waits = lock_waits(BUSY_TIMEOUT_MS / 1000)
    while True:
        conn = sqlite3.connect(
            str(path), timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
        )
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.DatabaseError as exc:
            conn.close()
            if locked(exc) and (pause := next(waits, None)) is not None:
                time.sleep(pause)
                continue
            raise StoreUnreadable.of(path, exc) from None


def _migrate(conn: sqlite3.Connection) -> None:
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have won
        if version > SCHEMA_VERSION:
            raise SchemaTooNew(f"state database schema v{version} is newer than this PaperPilot (v{SCHEMA_VERSION})")
        for target, script in MIGRATIONS:
            if target > version:
                for statement in _statements(script):
                    conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {target}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _statements(script: str) -> Iterator[str]:
    """Split a migration script into statements (executescript would commit our transaction)."""
    buf = ""
    for line in script.splitlines(keepends=True):
        buf += line
        if sqlite3.complete_statement(buf):
            if buf.strip():
                yield buf.strip()
            buf = ""
    if buf.strip():
        yield buf.strip()


class StateDB:
    """One connection to the state database, shared by a store's threads under a lock."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._conn = _connect(self.path)
        self._lock = threading.RLock()
        with self._lock:
            _migrate(self._conn)

    @contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """A consistent snapshot for several SELECTs."""
        with self._lock:
            self._conn.execute("BEGIN")
            try:
                yield self._conn
            finally:
                self._conn.execute("COMMIT")

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed as a whole or not at all."""
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                if self._conn.in_transaction:  # SQLite may already have rolled it back (e.g. on SQLITE_BUSY)
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def check_integrity(path: Path) -> list[str]:
    """Problems found in the state database (empty list = healthy): SQLite's own check plus FTS."""
    conn = _connect(Path(path))
    try:
        problems = [r[0] for r in conn.execute("PRAGMA integrity_check") if r[0] != "ok"]
        try:
            conn.execute("INSERT INTO facts_fts(facts_fts, rank) VALUES ('integrity-check', 1)")
        except sqlite3.DatabaseError as exc:
            problems.append(f"facts_fts: {exc}")
        return problems
    finally:
        conn.close()
