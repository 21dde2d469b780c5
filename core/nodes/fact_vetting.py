"""Whether facts learnt from documents may be kept: a clean source document, and no source disagreeing.

:func:`core.nodes.fact_sources.screen` keeps facts the answer states and one retrieved chunk
supports. A document can still be planted: a descriptive claim ("the default rank is 4096") passes
every wording rule. Before such a fact reaches long-term memory, save_memory runs :func:`vet`:

- **taint**: a fact whose source document holds a sentence that reads like an instruction
  (:mod:`core.memory.hygiene`) is refused. A document that talks to the model is not trusted for
  what it claims either. The hub's ``get_document_summary`` reports those sentences for the whole
  document; the chunks of it retrieved this turn are checked too (a hub without that report).
- **contradiction**: a fact that states a number is searched in the hub, and the chunks of *other*
  documents found then or earlier in the turn are checked with :func:`core.memory.claims.contradictions`
  (the same quantity with another value). One disagreeing source refuses the fact.

When the hub cannot be asked (an error, a dead connection), a fact is judged on the chunks the
turn retrieved; nothing here fails a turn that has already been answered.
"""

from __future__ import annotations

from typing import Any

from core.memory.claims import contradictions, has_quantity, instruction_sentences
from core.nodes.fact_sources import Screened
from core.types import RetrievedContext


def _doc(c: RetrievedContext) -> str:
    return c.doc_id or c.source


async def document_instructions(hub: Any, doc_id: str, collection: str,
                                contexts: list[RetrievedContext]) -> list[str]:
    """Instruction-like sentences of one document: the hub's report on all of it, and the chunks at hand."""
    found = instruction_sentences([c.content for c in contexts if _doc(c) == doc_id])
    summary = getattr(hub, "get_document_summary", None)
    if summary is not None and doc_id:
        try:
            res = await summary(doc_id, collection)
            found += [s for s in (res.structured or {}).get("instruction_like") or [] if isinstance(s, str)]
        except Exception:  # noqa: BLE001 - another server's hub, or a hub gone since the answer: chunks only
            pass
    return found


async def other_sources(hub: Any, fact: str, doc_id: str, collection: str, top_k: int,
                        contexts: list[RetrievedContext]) -> list[tuple[str, str]]:
    """(label, text) of chunks from documents other than ``doc_id``: this turn's and a search for the fact."""
    seen = {c.chunk_id for c in contexts}
    pool = list(contexts)
    try:
        pool += [c for c in await hub.search(fact, top_k, collection) if c.chunk_id not in seen]
    except Exception:  # noqa: BLE001 - judged on this turn's chunks alone
        pass
    return [(c.title or _doc(c), c.content) for c in pool if _doc(c) != doc_id]


async def vet(screened: Screened, hub: Any, collection: str, top_k: int,
              contexts: list[RetrievedContext]) -> Screened:
    """The screened facts that survive taint and contradiction; the others join ``refused`` with why."""
    out = Screened(refused=list(screened.refused))
    tainted: dict[str, list[str]] = {}
    for fact, src in zip(screened.facts, screened.sources):
        if src.doc_id not in tainted:
            tainted[src.doc_id] = await document_instructions(hub, src.doc_id, collection, contexts)
        if tainted[src.doc_id]:
            out.refused.append(f"{fact} — its document ({src.title or src.doc_id}) holds instruction-like text")
            continue
        if has_quantity(fact):
            against = contradictions(fact, await other_sources(hub, fact, src.doc_id, collection, top_k, contexts))
            if against:
                out.refused.append(f"{fact} — contradicted: {against[0]}")
                continue
        out.facts.append(fact)
        out.sources.append(src)
    return out
