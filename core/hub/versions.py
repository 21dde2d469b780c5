"""Document versions: the search scope (current, one version, as of a time), the schema
migration that added versions to an existing hub.sqlite3, and parsing of ``version``/``as_of``.

A re-ingested file keeps its previous versions' chunks (see :meth:`core.hub.store.HubStore.put_document`);
searches see current chunks unless a :class:`Scope` asks for an older version.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

KEEP_VERSIONS = 5  # versions of a document kept, the current one included (hub.keep_versions)
SCHEMA_VERSION = 2


@dataclass(frozen=True)
class Scope:
    """Which chunks a search sees: the current ones (the default), one ``version`` of every document
    that has it, or for each document the version that was current at ``as_of`` (epoch seconds; a
    document deleted by then is left out); optionally one document only."""

    version: int | None = None
    as_of: float | None = None
    doc_id: str | None = None

    @property
    def key(self) -> str:
        return f"v={self.version}|t={self.as_of}|d={self.doc_id}"

    def sql(self) -> tuple[str, tuple]:
        """A WHERE fragment over ``chunks c`` and its arguments."""
        parts: list[str] = []
        args: list = []
        if self.version is not None:
            parts.append("c.version=?")
            args.append(self.version)
        elif self.as_of is not None:
            parts.append("c.version = (SELECT max(v.version) FROM doc_versions v WHERE v.doc_id = c.doc_id"
                         " AND v.created_at <= ?) AND NOT EXISTS (SELECT 1 FROM documents d2 WHERE"
                         " d2.doc_id = c.doc_id AND d2.deleted_at <= ?)")
            args += [self.as_of, self.as_of]
        else:
            parts.append("c.current=1")
        if self.doc_id is not None:
            parts.append("c.doc_id=?")
            args.append(self.doc_id)
        return " AND ".join(parts), tuple(args)


def migrate(store: Any) -> None:
    """Bring an existing hub.sqlite3 to :data:`SCHEMA_VERSION`, each step in one transaction (a kill
    mid-migration leaves the old schema, and the next open migrates again)."""
    db = store.conn()
    if db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
        return
    with store.write() as w:
        if w.execute("PRAGMA user_version").fetchone()[0] < 2:  # another process may have migrated meanwhile
            _migrate_versions(w)
        w.execute(f"PRAGMA user_version={SCHEMA_VERSION}")


def _migrate_versions(db: sqlite3.Connection) -> None:
    """Version 2: chunks carry their document version and whether it is current; ``doc_versions``
    records each version; documents may be marked deleted (a watched file that went)."""
    cols = {r[1] for r in db.execute("PRAGMA table_info(chunks)")}
    if "version" not in cols:
        db.execute("ALTER TABLE chunks ADD COLUMN version INTEGER NOT NULL DEFAULT 1")
        db.execute("UPDATE chunks SET version = coalesce((SELECT d.version FROM documents d"
                   " WHERE d.doc_id = chunks.doc_id), 1)")
    if "current" not in cols:
        db.execute("ALTER TABLE chunks ADD COLUMN current INTEGER NOT NULL DEFAULT 1")
    if "deleted_at" not in {r[1] for r in db.execute("PRAGMA table_info(documents)")}:
        db.execute("ALTER TABLE documents ADD COLUMN deleted_at REAL")
    db.execute("CREATE TABLE IF NOT EXISTS doc_versions(doc_id TEXT NOT NULL, version INTEGER NOT NULL,"
               " file_hash TEXT NOT NULL, file_size INTEGER, created_at REAL NOT NULL,"
               " chunk_count INTEGER NOT NULL, PRIMARY KEY(doc_id, version))")
    db.execute("INSERT OR IGNORE INTO doc_versions(doc_id, version, file_hash, file_size, created_at, chunk_count)"
               " SELECT d.doc_id, d.version, d.file_hash, d.file_size, d.updated_at,"
               " (SELECT count(*) FROM chunks c WHERE c.doc_id = d.doc_id) FROM documents d")
    db.execute("CREATE INDEX IF NOT EXISTS chunks_current ON chunks(collection, current, id)")
    db.execute("CREATE INDEX IF NOT EXISTS chunks_version ON chunks(doc_id, version)")


def parse_as_of(value: str) -> float:
    """``as_of`` as epoch seconds: an ISO datetime (local time unless it names a zone), or an ISO
    date meaning the end of that day. ValueError with the reason otherwise."""
    text = value.strip()
    try:
        if len(text) == 10:
            return (datetime.fromisoformat(text) + timedelta(days=1)).timestamp() - 1e-6
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        raise ValueError(f"as_of must be an ISO date or datetime such as 2026-11-24 or 2026-11-24T10:30 "
                         f"(got {value!r})") from None
