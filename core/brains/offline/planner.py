"""Plans for multi-hop questions, replanning decisions and the exploratory ReAct policy.

Plans are templates over the question's entities, the relation between them ("X builds on Y",
"A leads to B", "relationship between A and B") and its goal clause ("to fine-tune a 65B model on a
single GPU"), so they follow the question rather than a fixed script. The ReAct policy explores
facets (each entity, its related methods from the lexicon, differences and limitations) and puts
whatever the last sufficiency judgement found missing first; it never repeats a query.
"""

from __future__ import annotations

import re

from core.brains.offline.evidence import TRAILING_QUESTION, profile, relevant_indexes
from core.brains.offline.lexicon import entity as lex_entity
from core.brains.offline.lexicon import mention_pattern, mentions
from core.brains.offline.slots import extract_entities
from core.brains.offline.synthesis import missing_from_reflections
from core.brains.offline.glossary import in_english
from core.brains.offline.text import content_terms, passage_sentences, strip_question_form, term_set
from core.types import Intent, RetrievedContext, SufficiencyJudgement
from core.vocabulary import Vocabulary

_BUILDS = re.compile(r"\b(?:build|builds|built|building)\s+(?:on|upon)\b|\bextends?\b|\bimproves?\s+(?:on|upon)\b|基于", re.I)
_LEADS = re.compile(r"\blead(?:s)?\s+to\b|\bcause(?:s)?\b|\bresult(?:s)?\s+in\b|导致", re.I)
_GOAL = re.compile(r"\bto\s+((?:fine-?tune|train|fit|run|achieve|reach|reduce|match|enable|serve|scale)\b[^?。？]*)", re.I)


def _goal(question: str) -> str:
    m = _GOAL.search(question)
    return m.group(1).strip().rstrip(".?") if m else ""


def _order(question: str, ents: list[str]) -> tuple[str, str]:
    """(newer, base) for "NEWER builds on BASE": the entity before the relation is the newer one."""
    m = _BUILDS.search(question)
    before = [e for e in ents if question.lower().find(e.lower()) < (m.start() if m else 0)]
    newer = before[0] if before else ents[0]
    base = next(e for e in ents if e != newer)
    return newer, base


_CLAUSE_END = re.compile(r"\s*[;；]\s*|(?<=[?？。])\s*(?=\S)|\.\s+(?=[A-Z])|\s+[—–]\s+")


def question_clauses(question: str) -> list[str]:
    """The question's own parts: "X says it builds on Y; what does Y do?" → two steps."""
    parts = [p.strip(" ,") for c in _CLAUSE_END.split(question) for p in TRAILING_QUESTION.split(c)]
    return [p for p in parts if len(content_terms(p, drop_frame=True)) >= 2]


def make_plan(question: str, intent: Intent | None, reflections: list[str], executed: list[str], max_steps: int,
              vocab: Vocabulary) -> tuple[list[str], str]:
    q = " ".join(question.split())
    ents = (list(intent.entities) if intent and intent.entities else []) or extract_entities(q, vocab)
    goal = _goal(q)
    steps: list[str]
    parts = question_clauses(q)
    if len(parts) >= 2:
        steps = parts[:max(1, max_steps)]
        reason = "the question's own clauses, in order: the last one asks for the answer"
    elif len(ents) >= 2 and _BUILDS.search(q):
        newer, base = _order(q, ents)
        steps = [f"What is {base} and how does it work?", f"What does {newer} add on top of {base}?"]
        steps.append(f"How does {newer} {goal}?" if goal else f"What does {newer} achieve that {base} cannot?")
        reason = f"{newer} builds on {base}: first the base method, then the additions, then the goal"
    elif len(ents) >= 2 and _LEADS.search(q):
        a, b = ents[0], ents[1]
        steps = [f"What is {a}?", f"What is {b}?", f"How does {a} lead to {b}?"]
        reason = "causal chain: each end first, then the link"
    elif len(group := coordinated(q, ents, vocab)) >= 2:
        steps = [f"{e}: {asked}" if (asked := _asked_words(q, group, vocab)) else e for e in group[:3]] + [q]
        reason = "what the question asks, about each of the names it joins in turn, then the question itself"
    elif ents:
        steps = [q]
        reason = "a single step: the question itself"
    else:
        clauses = [c.strip(" ,") for c in re.split(r",?\s+(?:and then|then|and how|and why)\s+|;", q) if c.strip(" ,")]
        steps = clauses if len(clauses) > 1 else [q]
        reason = "clauses of the question"
    missing_ents, missing_dims, _ = missing_from_reflections(reflections, vocab)
    extra = [f"What does the evidence say about {e}{' ' + missing_dims[0] if missing_dims else ''}?" for e in missing_ents if not any(e in s for s in steps)]
    if extra:
        steps = steps[:-1] + extra + steps[-1:]
        reason += "; adds what the critic found missing"
    done = [s for s in executed]
    steps = done + [s for s in steps if s not in done]
    if len(steps) > max_steps:
        keep_last = steps[-1]
        steps = steps[: max_steps - 1] + [keep_last] if max_steps > 1 else steps[:1]
        if len(done) >= max_steps:
            steps = done[:max_steps]
    return steps, reason


# What joins names the question asks the same of: "HERON and Kite", "A, B or C", "A vs. B".
_JOINS = re.compile(r"^\s*(?:,|,?\s*(?:and|or|&|vs\.?|versus|与|和|及))\s*(?:the\s+)?$", re.I)


def coordinated(question: str, ents: list[str], vocab: Vocabulary) -> list[str]:
    """The longest run of names the question joins ("What do HERON and Kite conclude …?"), in its
    order; [] when it joins none. Names in other roles are not asked the same of: in "What GLUE score
    did the original BERT paper report?" GLUE is where BERT's score is measured, one question."""
    found = sorted((m.start(), m.end(), e) for e in ents if (m := mention_pattern(e, vocab).search(question)))
    best: list[str] = []
    run: list[tuple[int, int, str]] = []
    for start, end, e in found:
        if run and start >= run[-1][1] and _JOINS.match(question[run[-1][1]:start]):
            run.append((start, end, e))
        else:
            run = [(start, end, e)]
        if len(run) > len(best):
            best = [r[2] for r in run]
    return best if len(best) >= 2 else []


def _asked_words(question: str, ents: list[str], vocab: Vocabulary) -> str:
    """What a question asks of its entities, in its own words as written ("conclude about training"
    → "conclude training"), names and numbers whole ("1.3B-parameter", "GPT-3.5"): a step label a reader
    can read, and a query the hub can match."""
    from core.brains.offline.lexicon import mentions
    from core.brains.offline.text import FRAME_WORDS, STOPWORDS
    from core.text import QUESTION_WORD

    out: list[str] = []
    for w in (t.rstrip(".'/-+") for t in QUESTION_WORD.findall(strip_question_form(question))):
        low = w.lower()
        if low in STOPWORDS or low in FRAME_WORDS or any(mentions(w, e, vocab) or low in e.lower().split() for e in ents):
            continue
        if low not in (o.lower() for o in out):
            out.append(w)
    return " ".join(out[:5])


def keyword_rewrite(step: str, question: str, vocab: Vocabulary) -> str:
    """A broader keyword form of a step that found nothing (no question mark: never rewritten twice). A
    Chinese step keeps its names and its terms in English (the glossary's), not its character pairs."""
    terms = content_terms(in_english(step), drop_frame=True)
    ents = extract_entities(step, vocab) or extract_entities(question, vocab)
    words = list(dict.fromkeys([*ents, *[t for t in terms if not any(t in e.lower() for e in ents)]]))
    return " ".join(words[:8]) or question


# A step that points back at what the step before found: "that model", "this earlier recognizer", "the
# same dataset". The thing is a noun a paper names (a model, a corpus, a tool …) or an agent noun ("-er").
_POINTER = re.compile(
    r"\b(?:that|this|the\s+(?:same|earlier|former|previous|older|original|base|underlying|parent))\s+"
    r"(?:[a-z][\w-]*\s+){0,2}?(?:model|method|paper|system|approach|architecture|work|dataset|corpus|corpora|"
    r"framework|technique|algorithm|network|tool|toolkit|library|benchmark|package|"
    r"(?!(?:earlier|former|latter|older|newer|other|larger|smaller|better|faster|slower)\b)[a-z]+(?:er|or))s?\b")
# How far before a name the words that tie it to the step before may stand ("a distilled variant of Wren").
_TIE_WORDS = 4


def points_back(step: str) -> bool:
    """Whether ``step`` points back at what the step before found ("what corpus did that model introduce?")."""
    return _POINTER.search(step) is not None


def bridge(step: str, previous: str, question: str, latest: list[RetrievedContext], vocab: Vocabulary) -> str | None:
    """``step`` with what it points back at (:data:`_POINTER`: "that model") named as the step before found
    it: the first name in ``previous``'s best evidence sentence that ``question`` does not name ("…, a
    distilled variant of Wren" for "Which model is Kite distilled from, and what corpus did that model
    introduce?"); None when the step points at nothing or the evidence names nothing new."""
    m = _POINTER.search(step)
    if m is None:
        return None
    terms = content_terms(previous, drop_frame=True)
    found = [latest[i] for i in relevant_indexes(latest, profile(previous, vocab=vocab))]
    sents = [s for c in found for s in passage_sentences(c.content)]
    if not terms or not sents:
        return None
    best = max(sents, key=lambda s: sum(t in term_set(s) for t in terms))
    names = {t for e in extract_entities(previous, vocab) for t in content_terms(e)}
    asked = [t for t in terms if t not in names]  # the step's own words tie a name to it, not its names
    new = [e for e in extract_entities(best, vocab) if not mentions(question, e, vocab) and _tied(best, e, asked, vocab)]
    return f"{step[:m.start()]}{new[0]}{step[m.end():]}" if new else None


def _tied(sent: str, name: str, terms: list[str], vocab: Vocabulary) -> bool:
    """Whether ``name`` stands in ``sent`` where the step before asked about it: one of the step's words
    (``terms``) in the :data:`_TIE_WORDS` words before it ("a distilled variant of Wren" for "Which model is
    Kite distilled from"), not merely in the sentence that answered ("… pre-training (SSVP)")."""
    m = mention_pattern(name, vocab).search(sent)
    if m is None:
        return False
    before = set(content_terms(" ".join(sent[:m.start()].split()[-_TIE_WORDS:])))
    return any(t in before for t in terms)


def decide_replan(question: str, plan: list[str], executed: list[str], latest: list[RetrievedContext],
                  vocab: Vocabulary) -> tuple[str, str]:
    if not executed:
        return "next_step", "no step executed yet"
    last = executed[-1]
    prof = profile(last, vocab=vocab)
    found = bool(relevant_indexes(latest, prof))
    remaining = [s for s in plan if s not in executed]
    if not found and last.rstrip().endswith(("?", "？")):
        return "replan", f"step '{last}' found nothing relevant; rewriting it as a broader keyword query"
    if not remaining:
        return "synthesize", "all planned steps are executed"
    if (named := bridge(remaining[0], last, question, latest, vocab)) is not None:
        return "replan", f"the next step points back at what step '{last}' found: asking '{named}'"
    still = [s for s in remaining if not _covered(s, latest)]
    if not still:
        return "synthesize", "evidence already covers the remaining steps"
    return "next_step", f"{len(remaining)} step(s) left; next: {remaining[0]}"


def _covered(step: str, latest: list[RetrievedContext]) -> bool:
    """A step is already answered when one retrieved sentence holds ≥ 80 % of its key terms."""
    terms = content_terms(step, drop_frame=True)
    if not terms:
        return False
    for ctx in latest:
        for sent in passage_sentences(ctx.content):
            have = set(content_terms(sent))
            if sum(t in have for t in terms) / len(terms) >= 0.8:
                return True
    return False


_FACETS = (
    "{e} method overview",
    "{e} {related}",
    "{e} limitations",
)


def react_candidates(question: str, intent: Intent | None, observations: list[SufficiencyJudgement], reflections: list[str],
                     vocab: Vocabulary) -> list[tuple[str, str]]:
    """Candidate (query, why) pairs in priority order."""
    base = (intent.reformulated_query if intent and intent.reformulated_query else "") or question
    ents = (list(intent.entities) if intent and intent.entities else []) or extract_entities(base, vocab)
    topic = _topic(base, ents, vocab)
    out: list[tuple[str, str]] = [(base, "start from the question itself")]
    if observations:
        for item in observations[-1].missing:
            out.append((f"{item} {topic}".strip(), f"look for {item}, which the evidence lacks"))
    m_ents, m_dims, _ = missing_from_reflections(reflections, vocab)
    for e in m_ents:
        out.append((f"{e} {' '.join(m_dims)}".strip(), f"look for {e}, which the critic found missing"))
    for tpl in _FACETS:  # facet-major, so every entity gets its overview before any goes deeper
        for e in ents:
            lex = lex_entity(e, vocab)
            related = " ".join(lex.related[:2]) if lex else ""
            if "{related}" in tpl and not related:
                continue
            out.append((tpl.format(e=e, related=related).strip(), f"explore another facet of {e}"))
    if len(ents) >= 2:
        out.append((f"{ents[0]} vs {ents[-1]} differences", "contrast the end points"))
    return out


def _topic(text: str, ents: list[str], vocab: Vocabulary) -> str:
    """The question's own subject words (not entities, stopwords or framing), as written."""
    from core.brains.offline.lexicon import mentions
    from core.brains.offline.text import FRAME_WORDS, STOPWORDS, words

    keep = [w for w in words(text) if w.lower() not in STOPWORDS and w.lower() not in FRAME_WORDS
            and not any(mentions(w, e, vocab) for e in ents) and w.lower() not in {"trace", "how", "evolve"}]
    return " ".join(dict.fromkeys(keep[:4]))


def norm_query(q: str) -> frozenset[str]:
    return frozenset(content_terms(q))
