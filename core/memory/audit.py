"""The memory audit: facts worth a second look, and a fact's provenance in words.

``paperpilot memory audit`` and the memory browser use these. A fact is listed when it

- reads like an instruction (:mod:`core.memory.hygiene`; learnt before hygiene existed, or added
  or edited by hand), or
- rests on a single document: every answer that taught it was supported by that one document, so
  a planted claim in one ingested file ("X was retracted") would look exactly like this; or on
  none (learnt by a caller that recorded no source).

Facts learnt before provenance was recorded (schema v1) are not flagged for that: nothing is known
about their sources, so the audit says "provenance unknown" once instead of listing them all.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.memory.facts import Fact
from core.memory.hygiene import instruction_reason


class Finding(BaseModel):
    id: int
    content: str
    reasons: list[str]
    pinned: bool = False
    doc_id: str = ""
    doc_title: str = ""
    chunk_id: str = ""


class AuditReport(BaseModel):
    total: int
    findings: list[Finding] = Field(default_factory=list)
    provenance_unknown: list[int] = Field(default_factory=list)  # learnt before provenance was recorded
    by_hand: list[int] = Field(default_factory=list)  # added with `memory add` or the browser


def by_hand(f: Fact) -> bool:
    """Added by the user (no session, no question, no recorded sources)."""
    return f.source_docs is None and not f.session_id and not f.source_question


def provenance(f: Fact) -> str:
    """Where a fact came from, in one line: its supporting document and chunk, or why that is unknown."""
    if f.source_docs is None:
        return "added by hand" if by_hand(f) else "provenance unknown (learnt before sources were recorded)"
    if not f.doc_id and not f.chunk_id:
        return "no supporting document recorded"
    where = f.doc_title or f.doc_id
    if f.doc_title and f.doc_id and f.doc_id != f.doc_title:
        where += f" ({f.doc_id})"
    n = max(1, len(f.source_docs))
    return f"source: {where} · chunk {f.chunk_id or '?'} · supported by {n} document{'s' if n > 1 else ''}"


def audit(facts: list[Fact]) -> AuditReport:
    """Every fact that reads like an instruction or rests on one document, with the reasons."""
    report = AuditReport(total=len(facts))
    for f in facts:
        reasons = []
        why = instruction_reason(f.content)
        if why:
            reasons.append(f"instruction-like ({why})")
        if f.source_docs is None:
            (report.by_hand if by_hand(f) else report.provenance_unknown).append(f.id)
        elif not f.source_docs:
            reasons.append("no supporting document recorded")
        elif len(f.source_docs) == 1:
            where = f.doc_title or f.doc_id
            reasons.append(f"single source: {where}" + (f", chunk {f.chunk_id}" if f.chunk_id else ""))
        if reasons:
            report.findings.append(Finding(id=f.id, content=f.content, reasons=reasons, pinned=f.pinned,
                                           doc_id=f.doc_id, doc_title=f.doc_title, chunk_id=f.chunk_id))
    return report
