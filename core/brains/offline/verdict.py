"""The learned verdict: does the direct answer answer this question from the evidence retrieved?

A logistic model over declarative features of (question, draft, evidence). Most of them come from
the sentence scorer (:mod:`core.brains.offline.scorer`) applied to every retrieved sentence: how
strongly it rates the sentences the direct answer quotes, how strongly it rates the best sentence
the direct answer left out (a better sentence was available: a likely miss), and the margin between
the two. The rest describe the draft: the share of the question's own words in the direct answer,
whether a number was asked and none is given, the share of claims their sources back, the share of
named things it covers, the kind of text it quotes (a table row, a caption, a reference entry), its
length, whether no retrieved chunk names any of the question's named things (a question anchored
nowhere in the knowledge base is likely about something it does not hold; one name of several that no
chunk uses, as in a comparison where one side is spelt differently, is not counted: it never vetoes),
whether the judged text is a whole overview's or chain's prose rather than a one-paragraph direct
answer (prose quotes many sentences and runs long, so the other features read differently there), and
four signals that do not come from the sentence scorer, so a pick the scorer rates highly can still
read as a miss: a number is asked and the direct answer states one the question does not (a new
value), or only numbers the question itself states (an echo); the question's paper is among the
chunks but no quoted sentence comes from it (the answer is about another paper); and how much better
a sentence the answer left out covers the question's words (its key terms occur only outside the lead).
Two more read the lead as the simple answer ranks it: the scorer's probability blended with the
reader's (:mod:`core.brains.offline.reader`, a cross-encoder of question and sentence), for the lead and
as its margin over the best sentence left out, so a lead the scorer rates highly but the reader does
not (or the reverse) reads as less certain.
Its weights are learned by ``python -m training.critic_verdict_train`` from
:mod:`training.data.generate_verdict` drafts (never evaluation text) and read from
``core/models/critic_verdict.json``, with the pass threshold and the evidence gate's threshold
calibrated on held-out drafts of the same generator.

The evidence gate has two steps: :func:`evidence_strength`, the scorer's best probability over every
retrieved sentence (the knowledge base "holds no evidence" when no sentence it returned reads as an
answer), and, when no chunk is lexically on topic, :func:`gate_probability`: the same features with
weights fitted on the gate's own drafts (the best sentence with and without the question's paper
retrieved), so that a question about something no chunk names is declined.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache
from pathlib import Path

from core.brains.offline import reader, scorer
from core.brains.offline.evidence import Profile, Sentence, asked_terms, names, own_contexts, sentence_pool
from core.brains.offline.lexicon import limitation_terms, mention_pattern, states_limitation
from core.brains.offline.slots import DOC_PART
from core.brains.offline.text import (FRAME_WORDS, STOPWORDS, covered, numbers, plain_text, passage_sentences, strip_markers,
                                      term_set)
from core.types import RetrievedContext

WEIGHTS_FILE = Path(__file__).resolve().parents[2] / "models" / "critic_verdict.json"
FEATURES = ("lead_score", "runner_up", "margin", "lead_is_best", "quoted", "coverage", "asked_missing",
            "number_missing", "has_number", "support", "entities", "table_or_caption", "reference", "length",
            "names_absent", "prose", "new_number", "echo_number", "lead_foreign", "outside_gain", "read_lead",
            "read_margin")
# A reference-list entry ("[12] A. Author et al. Title. In Proc. …, 2019."): a kind of text, never an answer.
_REFERENCE = re.compile(r"^\[\d+\]\s*[A-Z]|\bet al\.,?\s+(?:\d{4}|[A-Z])|\bIn Proc(?:eedings|\.)|\barXiv preprint\b|"
                        r"\b(?:19|20)\d{2}[a-z]?\.\s*$")
_CONCLUSION = re.compile(r"^\s*\*\*Conclusion:?\*\*:?\s*", re.I)
_HEADING = re.compile(r"^\s*#{1,6}\s")
_NUMBER = re.compile(r"\d")
# A word capitalized inside a question ("What is Mamba's …", "… and Pelican"): a proper name, whether or
# not it has a shape the entity extractor knows (an acronym, CamelCase, a digit) or a vocabulary entry.
_CAPITALIZED = re.compile(r"(?<=[a-z0-9,;:)] )[A-Z][a-z]+(?:-[A-Za-z0-9]+)*")


def question_names(prof: Profile) -> list[str]:
    """The question's named things: its entities, plus each word it capitalizes mid-sentence that no
    entity covers and that is not a function word or a part of a document ("Table 3")."""
    out = list(prof.entities)
    low = [e.lower() for e in out]
    for m in _CAPITALIZED.finditer(prof.question):
        word = m.group(0)
        if (word.lower() in STOPWORDS or word.lower() in FRAME_WORDS or any(word.lower() in e for e in low)
                or DOC_PART.match(prof.question, m.start())):
            continue
        out.append(word)
        low.append(word.lower())
    return out


def anchored_nowhere(contexts: list[RetrievedContext], prof: Profile) -> bool:
    """Whether the question names something and no retrieved chunk names any of it: a question
    about a thing the knowledge base does not hold. One name of several that no chunk uses (a
    comparison with one side spelt differently) does not count, unless it is the subject the
    question asks about (:func:`asked_subjects`: "What does X reach on PASCAL?" when no chunk names X
    is about a thing the knowledge base does not hold, whatever else it names)."""
    asked = question_names(prof)
    if not asked:
        return False
    held = [n for n in asked if any(names(c, n, prof.vocab) for c in contexts)]
    subjects = asked_subjects(prof.question, asked, prof.vocab)
    return not held or (bool(subjects) and not any(n in held for n in subjects))


# the auxiliary of a question ("What does X reach", "How was X trained", "Which data did the X use")
_AUXILIARY = r"\b(?:does|did|do|is|was|are|were|has|have|had|can|could|will|would)\s+(?:the\s+)?"


def asked_subjects(question: str, asked: list[str], vocab) -> list[str]:
    """The names of ``asked`` that are the subject of the question's auxiliary verb ("What mAP does
    X achieve …": X), not what it is set in or compared with."""
    return [n for n in asked
            if re.search(f"{_AUXILIARY}(?:{mention_pattern(n, vocab).pattern})", question,
                         mention_pattern(n, vocab).flags)]


@lru_cache(maxsize=1)
def model() -> dict:
    """The learned weights (loaded once); without the file, the lead sentence's scorer probability alone."""
    return scorer.load_weights(WEIGHTS_FILE, FEATURES, {
        "features": list(FEATURES), "weights": [4.0 if f == "lead_score" else 0.0 for f in FEATURES], "bias": -2.0,
        "mean": [0.0] * len(FEATURES), "scale": [1.0] * len(FEATURES), "pass_threshold": 0.5, "gate_threshold": 0.05,
        "gate_pass_threshold": 0.65}, "critic verdict", "judging by the lead sentence's score alone")


def direct_answer(answer: str) -> str:
    """The part of a draft that answers directly: a multi-hop **Conclusion**, else its first paragraph
    that is not a heading (a comparison's table is its first paragraph)."""
    lines = answer.splitlines()
    for i, line in enumerate(lines):
        if _CONCLUSION.match(line):
            out = [_CONCLUSION.sub("", line)]
            for nxt in lines[i + 1:]:
                if not nxt.strip() or _HEADING.match(nxt):
                    break
                out.append(nxt)
            return "\n".join(out).strip()
    para: list[str] = []
    for line in lines + [""]:
        if line.strip() and not _HEADING.match(line) and not line.startswith("From earlier sessions:"):
            para.append(line)
        elif para:
            break
    return "\n".join(para).strip()


def units(text: str) -> list[frozenset[str]]:
    """The term sets of a text's sentences and table cells."""
    parts = [p for line in text.splitlines() for cell in line.split("|") for p in passage_sentences(cell)]
    return [t for t in (term_set(strip_markers(p)) for p in parts) if t]


def _quotes(parts: list[frozenset[str]], sent: Sentence) -> bool:
    """Whether one of ``parts`` quotes ``sent``: it holds most of the sentence's words, or it is a
    clause of it (a table cell, a clipped sentence: most of its words are the sentence's)."""
    if not sent.terms:
        return False
    for u in parts:
        shared = len(sent.terms & u)
        if shared / len(sent.terms) >= 0.7 or (len(u) >= 5 and shared / len(u) >= 0.85):
            return True
    return False


def scored_pool(contexts: list[RetrievedContext], prof: Profile) -> list[tuple[Sentence, float]]:
    """Every retrieved sentence with the scorer's probability that it answers the question."""
    pool = sentence_pool(contexts, prof, only_relevant=False)
    own = own_contexts(contexts, prof.entities, prof.vocab)
    scorer.prime([prof.question, *(s.text for s in pool)])
    return [(s, scorer.score(s, prof, own=s.ctx in own)) for s in pool]


def evidence_strength(contexts: list[RetrievedContext], prof: Profile,
                      scored: list[tuple[Sentence, float]] | None = None) -> float:
    """The scorer's best probability over every retrieved sentence (0.0 when nothing was retrieved)."""
    scored = scored_pool(contexts, prof) if scored is None else scored
    return max((p for _, p in scored), default=0.0)


def has_evidence(contexts: list[RetrievedContext], prof: Profile,
                 scored: list[tuple[Sentence, float]] | None = None) -> bool:
    """The gate: some retrieved sentence reads as an answer (threshold calibrated with the weights)."""
    return evidence_strength(contexts, prof, scored) >= model()["gate_threshold"]


def supporting_indexes(contexts: list[RetrievedContext], prof: Profile) -> list[int]:
    """0-based indexes of the chunks holding a sentence that passes the gate (lexical relevance aside)."""
    t = model()["gate_threshold"]
    return sorted({s.ctx for s, p in scored_pool(contexts, prof) if p >= t})


def features(prof: Profile, contexts: list[RetrievedContext], answer: str, support: float,
             entity_share: float, asked_missing: bool, scored: list[tuple[Sentence, float]] | None = None,
             head: str | None = None, rivals: list[tuple[Sentence, float]] | None = None,
             prose: bool = False) -> list[float]:
    """The feature vector of (question, draft, evidence), in :data:`FEATURES` order.

    ``support``: the share of the draft's claims their cited sources back; ``entity_share``: the share
    of the question's named things the draft covers; ``asked_missing``: the direct answer lacks the
    question's own words or its asked-for head noun (all three from the critic's checks); ``head``:
    the text judged as the direct answer (default: :func:`direct_answer` of the draft); ``rivals``:
    the sentences it competes with for the runner-up (default: every retrieved sentence); ``prose``:
    the head is a whole overview's or chain's prose, not a one-paragraph direct answer (it quotes many
    sentences and is long, so the lead and length features mean something else there).
    """
    scored = scored_pool(contexts, prof) if scored is None else scored
    head = direct_answer(answer) if head is None else head
    parts = units(head)
    head_terms = frozenset().union(*parts) if parts else frozenset()
    head = strip_markers(plain_text(head))
    lead = [(s, p) for s, p in scored if _quotes(parts, s)]
    lead_score = max((p for _, p in lead), default=0.0)
    runner_up = max((p for s, p in (scored if rivals is None else rivals) if not _quotes(parts, s)), default=0.0)
    best = max(lead_score, runner_up)
    focus = asked_terms(prof, contexts)  # the question's words beyond its names (their parts, aliases, authors)
    if states_limitation(head):  # "cannot revise …" holds "what are its limitations?" as the critic reads it
        head_terms |= limitation_terms(prof.question)
    coverage = sum(1 for t in focus if covered(t, head_terms)) / len(focus) if focus else 1.0
    kind = scorer.features(lead[0][0], prof) if lead else None
    asked_nums, head_nums = numbers(prof.question), numbers(head)
    own = own_contexts(contexts, prof.entities, prof.vocab)
    elsewhere = max((_share(focus, s.terms) for s, _ in scored if not _quotes(parts, s)), default=0.0) if focus else 0.0
    table_or_caption = float(bool(kind) and (kind[scorer.FEATURES.index("table_row")] > 0
                                             or kind[scorer.FEATURES.index("caption")] > 0))
    read_lead, read_runner = _read(prof, scored, parts, rivals)
    return [
        lead_score,
        runner_up,
        lead_score - runner_up,
        float(bool(lead) and lead_score >= best - 1e-9),
        float(bool(lead)),
        coverage,
        float(asked_missing),
        float(prof.numeric and not _NUMBER.search(head)),
        float(bool(_NUMBER.search(head))),
        support,
        entity_share,
        table_or_caption,
        float(bool(lead) and bool(_REFERENCE.search(lead[0][0].text))),
        min(len(head.split()), 120) / 120,
        float(anchored_nowhere(contexts, prof)),
        float(prose),
        float(prof.numeric and bool(head_nums - asked_nums)),
        float(prof.numeric and bool(head_nums) and not head_nums - asked_nums),
        float(bool(own) and bool(lead) and not any(s.ctx in own for s, _ in lead)),
        max(0.0, elsewhere - coverage),
        read_lead,
        read_lead - read_runner,
    ]


def _read(prof: Profile, scored: list[tuple[Sentence, float]], parts: list[frozenset[str]],
          rivals: list[tuple[Sentence, float]] | None) -> tuple[float, float]:
    """The lead's and the best rival's probabilities as the simple answer ranks them: the scorer's
    blended with the reader's reading (:func:`core.brains.offline.reader.rescore`, against the same
    question text, ``Profile.query``), so the verdict sees where the reader and the scorer disagree.
    Without the reader, the scorer's own probabilities."""
    if not scored:
        return 0.0, 0.0
    blend = dict(zip((id(s) for s, _ in scored), reader.rescore(
        prof.query or prof.question, [s.text for s, _ in scored], [p for _, p in scored])))
    lead = max((blend[id(s)] for s, _ in scored if _quotes(parts, s)), default=0.0)
    pool = scored if rivals is None else rivals
    runner = max((blend.get(id(s), p) for s, p in pool if not _quotes(parts, s)), default=0.0)
    return lead, runner


def _share(focus: list[str], have: set[str] | frozenset[str]) -> float:
    return sum(1 for t in focus if covered(t, have)) / len(focus)


def _logistic(m: dict, x: list[float]) -> float:
    z = m["bias"] + sum(w * (v - mu) / sc for w, v, mu, sc in zip(m["weights"], x, m["mean"], m["scale"]))
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))


JUDGED = ("direct", "row", "prose")


def _block(judged: str) -> dict:
    """The weights that judge a draft of this kind: a one-paragraph direct answer (``direct_model``,
    fitted with the signals that do not come from the sentence scorer), a comparison row (``row_model``,
    fitted on the rows of comparisons the brain composed), or an overview's or chain's prose
    (``prose_model``); the shared block when the file has no model of its own for the kind."""
    return model().get(_MODELS[judged]) or model()


_MODELS = {"direct": "direct_model", "row": "row_model", "prose": "prose_model"}


def probability(x: list[float], judged: str | None = None) -> float:
    """The calibrated probability that the judged text answers the question. ``judged`` is one of
    :data:`JUDGED`; by default prose when the ``prose`` feature is set, else a direct answer."""
    judged = judged or ("prose" if x[FEATURES.index("prose")] else "direct")
    return _logistic(_block(judged), x)


def pass_threshold(judged: str = "direct") -> float:
    """The calibrated pass threshold of the model that judges ``judged`` (see :func:`probability`)."""
    key = _MODELS[judged]
    if key in model():
        return model()[key.replace("_model", "_pass_threshold")]
    return model()["pass_threshold"]


def gate_probability(x: list[float]) -> float:
    """The evidence gate's calibrated probability that its one-sentence draft (the best retrieved
    sentence) answers the question: the same features, weights fitted on the gate's own drafts
    (``gate_model`` in the weights file; the verdict's own weights when the file has none)."""
    return _logistic(model().get("gate_model") or model(), x)


