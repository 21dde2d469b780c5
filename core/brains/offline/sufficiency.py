"""Retrieval sufficiency (ADR-003): fully / partially sufficient, contradictory, insufficient.

Judged over everything retrieved so far: is any chunk on topic (lexically, or holding a sentence
the learned evidence gate reads as an answer, :mod:`core.brains.offline.verdict`), are the
question's entities named, are its key terms present, and (for comparisons) is there a sentence for every entity × dimension? The
``missing`` list names what is not covered yet, so the ReAct loop can search for exactly that.
"Contradictory" is a deliberately narrow heuristic: two different chunks state different values
of the same measure (default rank, year, GB, %) for the same entity, in sentences that each state
a single value and are not themselves comparisons.
"""

from __future__ import annotations

import re

from core.brains.offline.evidence import attributed, context_text, dim_hits, measures, profile, relevant_indexes, sentence_pool
from core.brains.offline.lexicon import entity as lex_entity
from core.brains.offline.lexicon import mentions
from core.brains.offline.slots import extract_entities
from core.brains.offline.text import covered, passage_sentences, term_set
from core.brains.offline.verdict import supporting_indexes
from core.types import Intent, RetrievedContext, SufficiencyJudgement
from core.vocabulary import Vocabulary

_COMPARISON = re.compile(r"\b(from|than|versus|vs\.?|reduc\w*|compared|up to|while|whereas|instead)\b", re.I)
_SCALE = re.compile(r"\b\d+(?:\.\d+)?\s?[BM]\b")


def conflicts(contexts: list[RetrievedContext], entities: list[str], vocab: Vocabulary) -> list[str]:
    """Descriptions of conflicting values, e.g. "LoRA default rank: 8 [1] vs 4 [3]"."""
    seen: dict[tuple, tuple[str, int, str]] = {}
    found: list[str] = []
    for i, ctx in enumerate(contexts):
        for sent in passage_sentences(ctx.content):
            names = [e for e in (entities or extract_entities(sent, vocab)) if mentions(sent, e, vocab)]
            if len(names) != 1 or _COMPARISON.search(sent):
                continue
            scale = tuple(sorted(m.group(0).replace(" ", "") for m in _SCALE.finditer(sent)))
            for measure, values in measures(sent).items():
                if len(values) != 1:
                    continue
                value = next(iter(values))
                key = (names[0], measure, scale)
                prev = seen.get(key)
                if prev is None:
                    seen[key] = (value, i, ctx.doc_id or ctx.chunk_id)
                elif prev[0] != value and prev[1] != i:
                    found.append(f"{names[0]} {measure}: {prev[0]} [{prev[1] + 1}] vs {value} [{i + 1}]")
    return list(dict.fromkeys(found))


def facets(entities: list[str], vocab: Vocabulary) -> list[str]:
    """Related methods/concepts an overview of ``entities`` should touch (two per entity)."""
    out: list[str] = []
    for e in entities:
        ent = lex_entity(e, vocab)
        for r in (ent.related[:2] if ent else ()):
            if r not in entities and r not in out:
                out.append(r)
    return out


def _names(text: str, name: str, vocab: Vocabulary) -> bool:
    if lex_entity(name, vocab):
        return mentions(text, name, vocab)
    have = term_set(text)
    return all(covered(t, have) for t in term_set(name))


def judge(question: str, intent: Intent | None, contexts: list[RetrievedContext], new: list[RetrievedContext],
          vocab: Vocabulary) -> SufficiencyJudgement:
    prof = profile(question, intent, vocab=vocab)
    kind = intent.type if intent else "factual"
    rel = relevant_indexes(contexts, prof) or supporting_indexes(contexts, prof)
    if not rel:
        what = ", ".join(prof.entities) or " ".join(prof.key_terms[:4]) or "the question"
        return SufficiencyJudgement(level="insufficient", reason=f"no retrieved chunk is about {what}", missing=prof.entities or prof.key_terms[:3])
    relevant = [contexts[i] for i in rel]
    text = " ".join(context_text(c) for c in relevant)
    missing: list[str] = [e for e in prof.entities if not mentions(text, e, vocab)]
    if kind == "comparative" and prof.dimensions:
        pool = sentence_pool(contexts, prof)
        for e in prof.entities:
            if e in missing:
                continue
            for d in prof.dimensions:
                if not any(attributed(s, e, contexts, vocab) and dim_hits(s.text, d) for s in pool):
                    missing.append(f"{e} {d}")
    have = term_set(text)
    ent_terms = {t for e in prof.entities for t in term_set(e)}
    key = [t for t in prof.key_terms if t not in ent_terms]
    uncovered = [t for t in key if not covered(t, have)]
    ratio = 1.0 - len(uncovered) / len(key) if key else 1.0
    clash = conflicts(relevant, prof.entities, vocab)
    note = ""
    if new:
        fresh = [c for c in new if c in relevant]
        note = "" if fresh else "; the last search added nothing relevant"
    if clash:
        return SufficiencyJudgement(level="contradictory", reason="conflicting values: " + "; ".join(clash) + note,
                                    missing=[c.split(":")[0] for c in clash])
    if kind == "exploratory":
        missing += [f for f in facets(prof.entities, vocab) if not _names(text, f, vocab)]
    docs = {c.doc_id or c.chunk_id for c in relevant}
    broad_enough = kind != "exploratory" or len(docs) >= min(2, max(1, len(prof.entities)))
    if not missing and ratio >= 0.5 and broad_enough:
        return SufficiencyJudgement(level="fully_sufficient", reason=f"{len(relevant)} relevant chunk(s) cover every entity and {ratio:.0%} of the key terms" + note)
    if ratio < 0.5:
        missing += uncovered[:3]
    if not broad_enough and not missing:
        missing.append("another source")
    return SufficiencyJudgement(level="partially_sufficient", reason=f"{len(relevant)} relevant chunk(s); still missing: {', '.join(missing)}" + note,
                                missing=missing)
