"""The critic's rule checks on a draft's form: a comparison's entity × dimension cells filled (with
a number in each row when one is asked), a chain's asking steps answered, and what the direct answer
leaves out of what the question asks (its own words, its asked-for noun, a number). These are about the
draft's structure; whether the direct answer answers is the learned verdict's call, and what these
find only fails a draft (a missing cell, an unanswered step) or names what a failing draft lacks."""

from __future__ import annotations

import re

from core.brains.offline.claims import Claim
from core.brains.offline.evidence import asked_terms, dim_hits, is_document_of, profile
from core.brains.offline.lexicon import find_entities, limitation_terms, mentions, states_limitation
from core.brains.offline.synthesis import step_terms
from core.brains.offline.text import content_terms, content_words, covered, markers, step_asks, strip_markers, term_set
from core.vocabulary import Vocabulary
from core.types import RetrievedContext


def search(prof, names: list[str], n: int) -> str:
    """A retry's search for what the draft lacks: ``names`` and the question's first ``n`` other key
    words, as written (a chain shows a retry's searches as its steps)."""
    taken = {t for name in names for form in (name, *forms(name, prof.vocab)) for t in term_set(form)}
    rest = [w for w in prof.key_words if not set(content_terms(w)) <= taken]
    return " ".join([*names, *rest[:n]])


def forms(name: str, vocab: Vocabulary) -> tuple[str, ...]:
    """The names of the vocabulary's terms ``name`` is written as ("SA" for "Segment Anything", the
    alias of the term SA); not their other aliases, which include whole paper titles."""
    return tuple(canon for _, canon in find_entities(name, vocab))


def check_comparison(st, prof, found: list[Claim], gaps: list[Claim]) -> None:
    """Every entity × dimension cell filled; a number in each row when one is asked for."""
    for e in prof.entities:
        for d in prof.dimensions:
            ok = _cell_covered(found, gaps, e, d, prof.vocab)
            st.checks.append(ok)
            if not ok:
                st.missing.append(f"{e} {d}")
                st.queries.append(f"{e} {d}")
        if prof.numeric and found and not st.abstains:
            row = " ".join(strip_markers(c.text) for c in found if c.subject and mentions(c.subject, e, prof.vocab))
            ok = bool(NUMBER.search(row))
            st.checks.append(ok)
            if not ok:
                st.missing.append(f"the asked-for number in the {e} row")
                st.queries.append(search(prof, [e], 4))


def check_chain(st, prof, found: list[Claim], answer: str, sub_questions: list[str],
                contexts: list[RetrievedContext] = ()) -> None:
    """Every asking step of a chain answered (a step marked "no evidence" is not)."""
    plain = strip_markers(answer)
    for d in prof.dimensions:
        if not dim_hits(plain, d):
            st.hints.append(d)
            st.queries.append(f"{' '.join(prof.entities[:2])} {d}".strip())
    gaps_at = {m.strip() for m in _STEP_GAP.findall(answer)}
    for sq in (q for q in sub_questions if step_asks(q)):  # a context clause or keyword rewrite asks nothing
        ok = sq.strip() not in gaps_at and _step_answered(sq, found, contexts, prof.vocab)
        st.checks.append(ok)
        if not ok:
            st.missing.append(f"sub-question '{sq}'")
            st.queries.append(" ".join(content_words(sq, drop_frame=True)[:6]))



NUMBER = re.compile(r"(?<![A-Za-z0-9_-])\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
                     r"forty|fifty|hundreds?|thousands?|millions?|billions?|trillions?|twice|half|double|triple|"
                     r"dozens?)\b|[一二三四五六七八九十百千万亿]", re.I)


def asked_for(prof, lead: Claim, contexts: list[RetrievedContext] | None = None) -> str:
    """What the direct answer (the first claim) leaves out of what the question asks, or "".

    The first claim must carry at least one of the question's own words beyond the names it
    mentions, and a number when the question asks for one ("how many", "what score").
    """
    focus = asked_terms(prof, contexts)
    head = asked_noun(prof.question)
    measure = asked_measure(prof.question)
    have = term_set(strip_markers(lead.text))
    if prof.numeric and len(measure) > 1 and not all(covered(t, have) for t in measure[:-1]):
        # "what learning rate …": a number may stand for the head ("rate"), never for its qualifier
        return "the asked-for " + " ".join(measure_words(prof.question)) + " in the direct answer"
    if prof.numeric and head and len(focus) > 1:
        # "what rank … by default": the number answers "rank"; the words around it must be there
        focus = [t for t in focus if t != head] or focus
    if states_limitation(lead.text):  # "cannot revise …" answers "what are its limitations?" as it is
        have |= limitation_terms(prof.question)
    if focus and not any(covered(t, have) for t in focus):
        return "the asked-for " + " ".join(focus[:4]) + " in the direct answer"
    head = "" if prof.numeric else head  # a measure is checked as a number
    if head and head not in _GENERIC_HEADS and not covered(head, have):
        return f"the asked-for {head} in the direct answer"
    if prof.numeric and not NUMBER.search(strip_markers(lead.text)):
        return "the asked-for number in the direct answer"
    return ""


_WH_NOUN = re.compile(r"^\s*(?:what|which)\s+((?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:did|does|do|is|was|are|were|has|have|can|"
                      r"could|would|will)\b", re.I)


_GENERIC_HEADS = frozenset("kind type sort form way part variant version aspect thing one method approach model".split())


def _wh_phrase(question: str) -> str:
    """The words between "what/which" and the verb ("learning rate" of "What learning rate does …"),
    before any "of" ("what fraction of patches" → "fraction"); "" when the question has no such phrase."""
    m = _WH_NOUN.match(question.strip())
    return re.split(r"\s+of\s+", m.group(1))[0] if m else ""


def asked_noun(question: str) -> str:
    """The thing a "what/which X did …" question asks for, stemmed ("what new corpus did …" → corpus)."""
    terms = content_terms(_wh_phrase(question))
    return terms[-1] if terms else ""


def asked_measure(question: str) -> list[str]:
    """The terms of the wh-phrase a question asks for, qualifier first ("What learning rate does …" →
    ["learn", "rate"]; "What rank …" → ["rank"]; a frame word, "new" or "main", is no qualifier)."""
    return content_terms(_wh_phrase(question), drop_frame=True)


def measure_words(question: str) -> list[str]:
    """:func:`asked_measure` as the question writes it ("learning rate")."""
    return content_words(_wh_phrase(question), drop_frame=True)


def _cell_covered(found: list[Claim], gaps: list[Claim], name: str, dim: str, vocab: Vocabulary) -> bool:
    if any(g.subject and mentions(g.subject, name, vocab) and g.column == dim for g in gaps):
        return False
    for c in found:
        if c.subject:
            if mentions(c.subject, name, vocab) and c.column == dim:
                return True
        elif mentions(c.text, name, vocab) and dim_hits(c.text, dim):
            return True
    return False


_STEP_GAP = re.compile(r"^\d+\.\s+\*\*(.+?)\*\*\s+The knowledge base holds no evidence", re.M)


def _step_answered(sub_question: str, found: list[Claim], contexts: list[RetrievedContext] = (),
                   vocab: Vocabulary | None = None) -> bool:
    """Whether some claim holds half the step's words. A claim quoting a named system's own paper holds
    that name ("It reaches a score of 80.5" of Kestrel's paper, for "what score did Kestrel report?")."""
    terms = step_terms(sub_question)  # a Chinese step: its names and its terms in English
    if not terms:
        return True
    names = profile(sub_question, vocab=vocab).entities if vocab is not None and contexts else []

    def held(c: Claim) -> frozenset[str]:
        cited = [contexts[m - 1] for m in markers(c.text) if 1 <= m <= len(contexts)]
        own = (term_set(n) for n in names if any(is_document_of(x, n, vocab) for x in cited))
        return frozenset(content_terms(c.text, parts=True)).union(*own)  # a step's terms hold name parts too
    best = max((sum(1 for t in terms if covered(t, held(c))) / len(terms) for c in found), default=0.0)
    return best >= 0.5
