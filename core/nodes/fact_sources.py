"""Which extracted facts may be learnt, and the retrieved chunk each one rests on (provenance).

A brain proposes facts from a passed answer; before they reach long-term memory each must be

- not instruction-like (:mod:`core.memory.hygiene`; the store refuses those too),
- the agent's own statement: most of its content words occur in the answer, and
- supported by the evidence: most of its content words occur in one retrieved chunk.

"Most" is the offline critic's support bar (``SUPPORT_MIN``, 60 % of content words, measured by its
:func:`word_share`), so both brains' facts meet the same rule the critic applies to cited claims.
The best-covering chunk becomes the fact's provenance (document id, title, chunk id).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.brains.offline.critic import SUPPORT_MIN, word_share
from core.brains.offline.text import term_set
from core.memory.hygiene import instruction_reason
from core.memory.protocol import FactSource
from core.types import RetrievedContext


@dataclass
class Screened:
    facts: list[str] = field(default_factory=list)
    sources: list[FactSource] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # "fact — reason"


def best_source(fact: str, contexts: list[RetrievedContext]) -> tuple[FactSource | None, float]:
    """The chunk that covers most of the fact's content words, and that share (earlier chunks win ties)."""
    best, best_share = None, 0.0
    for ctx in contexts:
        share = word_share(fact, term_set(ctx.content))
        if share > best_share:
            best, best_share = ctx, share
    if best is None:
        return None, 0.0
    return FactSource(doc_id=best.doc_id or best.source, title=best.title, chunk_id=best.chunk_id), best_share


def screen(facts: list[str], answer: str, contexts: list[RetrievedContext]) -> Screened:
    """Split proposed facts into learnable ones (each with its source) and refused ones (with why)."""
    out = Screened()
    in_answer = term_set(answer)
    for fact in facts:
        why = instruction_reason(fact)
        if why is None and word_share(fact, in_answer) < SUPPORT_MIN:
            why = "not a statement of the answer"
        source = None
        if why is None:
            source, share = best_source(fact, contexts)
            if source is None or share < SUPPORT_MIN:
                why = "not supported by a retrieved chunk"
        if why is not None or source is None:
            out.refused.append(f"{fact} — {why}")
            continue
        out.facts.append(fact)
        out.sources.append(source)
    return out
