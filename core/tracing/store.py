"""Turn traces in SQLite: saved once per turn, listed, exported as JSONL, replayed with timing.

A trace is a summary row (:mod:`core.tracing.summary`) plus the turn's raw events as JSON, so
:meth:`TraceStore.replay` can re-emit exactly the typed events the live stream produced. Secrets
are scrubbed from every string of every event *before* anything is derived or written, so neither
the summary, the stored events nor an export can contain them.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any
from collections.abc import AsyncIterator

from core.events import event_from_dict
from core.memory.db import StateDB
from core.redact import Redactor
from core.tracing.summary import TraceDetail, TraceSummary, summarize

_SUMMARY_COLS = ("id, session_id, question, intent, strategy, started, finished, duration_ms, retries,"
                 " llm_calls, prompt_tokens, completion_tokens, final_answer, error")


class TraceNotFound(KeyError):
    def __str__(self) -> str:
        return f"no trace with id {self.args[0]}"


def _summary(row) -> TraceSummary:
    return TraceSummary(trace_id=row[0], session_id=row[1], question=row[2], intent=row[3], strategy=row[4],
                        started=row[5], finished=row[6], duration_ms=row[7], retries=row[8], llm_calls=row[9],
                        prompt_tokens=row[10], completion_tokens=row[11], final_answer=row[12], error=row[13])


class TraceStore:
    def __init__(self, path: Path, secrets: list[str] | None = None):
        self.db = StateDB(path)
        self.redactor = Redactor(secrets)

    def close(self) -> None:
        self.db.close()

    async def save_turn(self, trace_id: str, session_id: str, question: str, events: list[Any]) -> TraceSummary:
        """Store one turn (summary + every event) in one transaction; secrets scrubbed first."""
        return await asyncio.to_thread(self.save_turn_sync, trace_id, session_id, question, events)

    def save_turn_sync(self, trace_id: str, session_id: str, question: str, events: list[Any]) -> TraceSummary:
        raw = [e.model_dump(mode="json") for e in events]
        dumps = [self.redactor.obj(d) for d in raw]
        typed = [e if d is r else event_from_dict(d) for e, d, r in zip(events, dumps, raw)]  # re-parse only scrubbed ones
        d = summarize(trace_id, session_id, self.redactor.text(question), typed)
        detail = d.model_dump(mode="json", include={
            "intent_detail", "steps", "queries", "chunk_ids", "sufficiency", "critic_verdicts",
            "retry_feedback", "llm", "recalled_facts", "memorized_facts", "notices"})
        with self.db.write() as conn:
            conn.execute("DELETE FROM traces WHERE id = ?", (trace_id,))  # re-saving a turn replaces it
            conn.execute(
                f"INSERT INTO traces ({_SUMMARY_COLS}, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (trace_id, session_id, d.question, d.intent, d.strategy, d.started, d.finished, d.duration_ms,
                 d.retries, d.llm_calls, d.prompt_tokens, d.completion_tokens, d.final_answer, d.error,
                 json.dumps(detail, ensure_ascii=False)),
            )
            conn.executemany(
                "INSERT INTO trace_events (trace_id, seq, kind, ts, data) VALUES (?, ?, ?, ?, ?)",
                [(trace_id, i, x["kind"], x["ts"], json.dumps(x, ensure_ascii=False)) for i, x in enumerate(dumps)],
            )
        return TraceSummary.model_validate(d.model_dump(include=set(TraceSummary.model_fields)))

    def list(self, session_id: str | None = None, limit: int | None = 50) -> list[TraceSummary]:
        """Newest first; optionally only one session's."""
        lim = -1 if limit is None else int(limit)
        with self.db.read() as conn:
            if session_id is None:
                rows = conn.execute(f"SELECT {_SUMMARY_COLS} FROM traces ORDER BY started DESC LIMIT ?", (lim,))
            else:
                rows = conn.execute(f"SELECT {_SUMMARY_COLS} FROM traces WHERE session_id = ?"
                                    " ORDER BY started DESC LIMIT ?", (session_id, lim))
            return [_summary(r) for r in rows.fetchall()]

    def resolve(self, trace_id: str) -> str | None:
        """The full id for an id or a unique prefix of one (ids are long; people type a few chars)."""
        with self.db.read() as conn:
            if conn.execute("SELECT 1 FROM traces WHERE id = ?", (trace_id,)).fetchone():
                return trace_id
            like = trace_id.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            rows = conn.execute("SELECT id FROM traces WHERE id LIKE ? ESCAPE '\\' LIMIT 2", (like,)).fetchall()
        return rows[0][0] if len(rows) == 1 else None

    def get(self, trace_id: str) -> TraceDetail | None:
        with self.db.read() as conn:
            row = conn.execute(f"SELECT {_SUMMARY_COLS}, detail FROM traces WHERE id = ?", (trace_id,)).fetchone()
            if row is None:
                return None
            data = [r[0] for r in conn.execute(
                "SELECT data FROM trace_events WHERE trace_id = ? ORDER BY seq", (trace_id,))]
        summary = _summary(row).model_dump()
        detail = TraceDetail.model_validate({**summary, **json.loads(row[14])})
        detail.events = [event_from_dict(json.loads(x)) for x in data]
        return detail

    def delete(self, trace_id: str) -> bool:
        with self.db.write() as conn:
            return conn.execute("DELETE FROM traces WHERE id = ?", (trace_id,)).rowcount > 0

    def export_lines(self, trace_id: str) -> list[str]:
        """The trace's events as JSON lines (scrubbed again on the way out)."""
        detail = self.get(trace_id)
        if detail is None:
            raise TraceNotFound(trace_id)
        return [json.dumps(self.redactor.obj(e.model_dump(mode="json")), ensure_ascii=False) for e in detail.events]

    def export(self, trace_id: str, path: Path) -> int:
        """Write the trace's events as JSONL (one event per line) to ``path``; returns the count."""
        lines = self.export_lines(trace_id)
        Path(path).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return len(lines)

    async def replay(self, trace_id: str, speed: float = 1.0, max_gap: float | None = None) -> AsyncIterator[Any]:
        """Re-emit the recorded typed events with their original relative timing (``speed`` 0 = instant);
        ``max_gap`` caps any one wait in seconds (a 40 s LLM call need not be watched in full)."""
        detail = await asyncio.to_thread(self.get, trace_id)
        if detail is None:
            raise TraceNotFound(trace_id)
        prev: float | None = None
        for event in detail.events:
            if speed > 0 and prev is not None:
                gap = max(event.ts - prev, 0.0) / speed
                if max_gap is not None:
                    gap = min(gap, max_gap)
                if gap > 0:
                    await asyncio.sleep(gap)
            prev = event.ts
            yield event
