"""The memory audit: facts ranked by risk, and a fact's provenance in words.

``paperpilot memory audit`` and the memory browser use these. Each fact gets a risk score, the sum
of what speaks against it, and the audit lists facts riskiest first with the reasons:

- it reads like an instruction (:mod:`core.memory.hygiene`; learnt before hygiene existed, or
  added or edited by hand);
- its source document holds instruction-like text (when the hub's documents are at hand);
- another source (an indexed chunk or a fact from another document) states the same quantity with
  another value (:mod:`core.memory.claims`), or no other source confirms a number it states;
- it rests on a single document (or on none recorded): weak alone, since most facts do.

Pinned facts count half: the user vouched for them.

Facts learnt before provenance was recorded (schema v1) are not flagged for that: nothing is known
about their sources, so the audit says "provenance unknown" once instead of listing them all.
"""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, Field

from core.memory.claims import SourceIndex, confirmed, contradictions, has_quantity
from core.memory.facts import Fact
from core.memory.hygiene import instruction_reason
from core.memory.text import shorten


class Finding(BaseModel):
    id: int
    content: str
    reasons: list[str]
    pinned: bool = False
    doc_id: str = ""
    doc_title: str = ""
    chunk_id: str = ""
    score: float = 0.0  # the risk: the sum of its reasons' weights (see the W_* constants)


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


class Evidence(Protocol):
    """What the knowledge hub says about a fact's documents (:mod:`paperpilot_tui.cli.memory` reads it
    from the hub's store): instruction-like sentences of one document, and every indexed chunk."""

    def instructions(self, doc_id: str) -> list[str]: ...

    def chunks(self) -> list[tuple[str, str, str]]: ...  # (document id, label, text)

    def says(self, doc_id: str, text: str) -> bool | None:
        """Whether the document's current text supports ``text``; None when the hub has no such document.
        Optional: evidence without it checks nothing against the documents' current text."""
        ...


# Risk weights: what each finding adds to a fact's score. Anything that alone marks a planted fact
# (instruction-like text, a tainted document, a disagreeing source) outweighs every weak signal
# together (one source, a number nobody else states), so those facts rank first.
W_INSTRUCTION, W_TAINTED, W_CONTRADICTED, W_UNCONFIRMED, W_SINGLE = 10.0, 6.0, 4.0, 2.0, 1.0
W_UNSAID = 4.0  # its document as it now reads does not support it: as strong as a source against it
PINNED_FACTOR = 0.5  # the user vouched for a pinned fact


def audit(facts: list[Fact], evidence: Evidence | None = None) -> AuditReport:
    """Every fact with a risk, riskiest first, each with its score and the reasons that make it up.

    Without ``evidence`` only what the fact store knows counts: wording, sources, and the other
    facts (learnt from other documents) as sources a number can disagree with or be confirmed by.
    """
    report = AuditReport(total=len(facts))
    # other facts count as their documents' statements (labelled as the hub labels its chunks, by title)
    learnt = [(f.doc_id, f.doc_title or f.doc_id, f.content) for f in facts if f.doc_id]
    index = SourceIndex(learnt + (evidence.chunks() if evidence else []))
    tainted: dict[str, list[str]] = {}
    for f in facts:
        reasons: list[str] = []
        score = 0.0
        why = instruction_reason(f.content)
        if why:
            reasons.append(f"instruction-like ({why})")
            score += W_INSTRUCTION
        if f.source_docs is None:
            (report.by_hand if by_hand(f) else report.provenance_unknown).append(f.id)
        elif not f.source_docs:
            reasons.append("no supporting document recorded")
            score += W_SINGLE
        elif len(f.source_docs) == 1:
            where = f.doc_title or f.doc_id
            reasons.append(f"single source: {where}" + (f", chunk {f.chunk_id}" if f.chunk_id else ""))
            score += W_SINGLE
        unsaid = False  # its document's current text does not support it
        if evidence is not None and f.doc_id:
            if f.doc_id not in tainted:
                tainted[f.doc_id] = evidence.instructions(f.doc_id)
            if tainted[f.doc_id]:
                reasons.append(f"its document holds instruction-like text: {shorten(tainted[f.doc_id][0], 80)}")
                score += W_TAINTED
            if not f.pinned and (says := getattr(evidence, "says", None)) is not None and says(f.doc_id, f.content) is False:
                unsaid = True
                reasons.append("its document's current text does not support it")
                score += W_UNSAID
        if not f.pinned and f.said is False and not unsaid:
            # what answers leave it out for (their check reads the paper's best chunks for it)
            reasons.append("its document, read again, did not support it when last checked")
            score += W_UNSAID
        if has_quantity(f.content):
            others = index.about(f.content, f.doc_id)
            against = contradictions(f.content, others)
            if against:
                reasons += [f"contradicted: {a}" for a in against[:2]]
                score += W_CONTRADICTED * min(2, len(against))
            elif f.doc_id and len(f.source_docs or []) <= 1 and not confirmed(f.content, others):
                reasons.append("states a number no other source confirms")
                score += W_UNCONFIRMED
        if f.pinned:
            score *= PINNED_FACTOR
        if reasons:
            report.findings.append(Finding(id=f.id, content=f.content, reasons=reasons, pinned=f.pinned,
                                           doc_id=f.doc_id, doc_title=f.doc_title, chunk_id=f.chunk_id,
                                           score=round(score, 2)))
    report.findings.sort(key=lambda x: (-x.score, x.id))
    return report
