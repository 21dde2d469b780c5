"""Extractive synthesis primitives: sentence relevance, MMR selection, citation, streaming.

The answer is built only from sentences of the retrieved chunks, so every claim is traceable:
each chosen sentence keeps the ``[n]`` marker(s) of the chunk(s) it came from (``n`` is the
1-based index into the request's contexts). Selection is MMR: the learned scorer's relevance to the
question (and the critic's feedback terms), minus overlap with what is already chosen.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections.abc import Callable

from core.brains.base import TokenSink
from core.brains.offline import scorer
from core.brains.offline.evidence import Profile, Sentence, dim_hits, main_clause
from core.brains.offline.glossary import in_english
from core.brains.offline.quantities import measures
from core.brains.offline.lexicon import find_dimensions, mention_pattern, mentions
from core.brains.offline.slots import extract_entities
from core.brains.offline.text import content_terms, covered, jaccard, strip_markers, term_set
from core.text import LOOSE_SENTENCE_END, split_sentences, standalone
from core.vocabulary import Vocabulary

NO_EVIDENCE_RE = re.compile(r"knowledge base holds no evidence|not found in the knowledge base", re.I)
PRIOR_PREFIX = "From earlier sessions:"
# The opening line of a themed (exploratory) answer (compose.survey_lead): a label over the themes'
# lines below it, like a heading, so it is no claim and carries no marker.
OVERVIEW_PREFIXES = ("The papers here that bear on this:", "The methods this covers:")
UNCLAIMED_PREFIXES = (PRIOR_PREFIX, *OVERVIEW_PREFIXES)  # lines that open with these are labels, not claims


def relevance(sent: Sentence, prof: Profile, focus: set[str] | None = None, *, own: bool = False,
              question: str | None = None, weights: dict | None = None) -> float:
    """How well one sentence answers the question (or a sub-question's ``focus`` terms): the learned
    scorer's probability (:mod:`core.brains.offline.scorer`); ``own`` marks a sentence of the paper
    the question names, ``question`` the text to compare it with (default: the profile's question),
    ``weights`` the scorer's weights (default: the sentence scorer's)."""
    return scorer.score(sent, prof, focus, own=own, question=question, m=weights)


def mmr(
    pool: list[Sentence], score: Callable[[Sentence], float], k: int, *, lam: float = 0.7,
    min_ratio: float = 0.0, exclude: list[Sentence] | None = None, group: Callable[[Sentence], str | None] | None = None,
    per_group: int = 2,
) -> list[Sentence]:
    """Pick up to ``k`` sentences: relevant, and unlike each other and anything in ``exclude``; with
    ``group``, at most ``per_group`` sentences of one group (a sentence whose group is None is free)."""
    scored = [(score(s), s) for s in pool]
    scored = [(v, s) for v, s in scored if v > 0]
    if not scored:
        return []
    top = max(v for v, _ in scored)
    chosen: list[Sentence] = []
    against = list(exclude or [])
    candidates = sorted(scored, key=lambda x: (-x[0], x[1].ctx, x[1].pos))
    while candidates and len(chosen) < k:
        best, best_val = None, None
        for v, s in candidates:
            if v < min_ratio * top:
                continue
            if group is not None and (g := group(s)) is not None and sum(group(o) == g for o in chosen) >= per_group:
                continue
            redundancy = max((jaccard(s.terms, o.terms) for o in chosen + against), default=0.0)
            val = lam * v / top - (1 - lam) * redundancy
            if redundancy > 0.8:
                continue
            if best_val is None or val > best_val:
                best, best_val = s, val
        if best is None:
            break
        chosen.append(best)
        candidates = [(v, s) for v, s in candidates if s is not best]
    return chosen


# The most sentences a direct answer quotes, however close their scores (a lead, not a wall of quotes).
LEAD_MAX = 3


def lead_share() -> float:
    """The share of the best sentence's probability a next sentence needs to join the direct answer:
    ``lead.share`` in the sentence scorer's weights, calibrated on its held-out training groups by
    ``python -m training.scorer_lead``; 1.0 without one (the lead is the best sentence alone)."""
    return float(scorer.model().get("lead", {}).get("share", 1.0))


def lead_size(chosen: list[Sentence], score: Callable[[Sentence], float],
              paper: Callable[[Sentence], str] | None = None, share: float | None = None) -> int:
    """How many of ``chosen`` (in order) make the direct answer: the first, then each next one while
    the scorer's probability stays at least :func:`lead_share` of the best chosen and it comes from
    the first one's paper (``paper``: a sentence's paper; default its chunk), at most
    :data:`LEAD_MAX`. A sentence of the same paper as likely to answer as the first joins it, so the
    asked fact opens the answer when the scorer cannot tell the two apart; a weaker one, or one of
    another paper (another paper's remark is support, not the answer), follows below. ``share``:
    the share calibrated for ``score`` when it is not the scorer's probability (the reader's blend)."""
    if not chosen:
        return 0
    key = paper or (lambda s: str(s.ctx))
    vals = [score(s) for s in chosen]
    bar = (lead_share() if share is None else share) * max(vals)
    n = 1
    while n < min(len(chosen), LEAD_MAX) and vals[n] >= bar and key(chosen[n]) == key(chosen[0]):
        n += 1
    return n


def cite(text: str, marks: list[int], *, alone: bool = True) -> str:
    """Put ``[n]`` markers before the sentence's closing punctuation. Quoted ``alone`` (not right after
    the paper's own sentence before it), the sentence stands alone (:func:`core.text.standalone`: "Second,
    we find …" is "We find …"). A sentence quoted up to a colon (the lead-in of a list the paper runs on
    with) ends with a full stop there."""
    tag = "".join(f"[{n}]" for n in marks)
    t = standalone(text.strip()) if alone else text.strip()
    if t and t[-1] in ".!?。！？":
        return f"{t[:-1].rstrip()} {tag}{t[-1]}"
    if t.endswith((":", "：")):
        return f"{t[:-1].rstrip()} {tag}{'。' if t[-1] == '：' else '.'}"
    return f"{t} {tag}"


def cited(sent: Sentence, after: Sentence | None = None) -> str:
    """``sent`` quoted with its markers; its opening connective kept only ``after`` the sentence that
    comes right before it in its chunk, which the connective ties it to ("… too expensive. Instead, we …")."""
    return cite(sent.text, sent.cited, alone=not follows(sent, after))


def follows(sent: Sentence, before: Sentence | None) -> bool:
    """Whether ``sent`` is the sentence right after ``before`` in the same chunk."""
    return before is not None and sent.ctx == before.ctx and sent.pos == before.pos + 1


def quoted(sents: list[Sentence]) -> str:
    """Sentences quoted one after another (:func:`cited`), each standing alone unless it follows its own
    sentence before."""
    return " ".join(cited(s, before) for before, s in zip([None, *sents], sents))


def clause(text: str, dim: str | None, name: str | None, vocab: Vocabulary, max_words: int = 28) -> str:
    """The part of a sentence that speaks to ``dim`` (and ``name``), short enough for a table cell.
    Without a dimension, a dash opens an aside on what precedes it ("… generation (RAG) — models which
    combine parametric and non-parametric memory"): it says what the name is, and stays."""
    dash = r"\s+[—–]\s+|" if dim else ""
    parts = [p.strip(" ,;") for p in re.split(rf";\s+|{dash},\s+(?=(?:while|whereas|but|and it|which)\b)", text)
             if p.strip(" ,;")]
    if len(parts) > 1:
        def rank(p: str) -> tuple:
            return ((dim_hits(p, dim) if dim else 0) + (2 if name and mentions(p, name, vocab) else 0), len(p.split()) >= 5)
        best = max(parts, key=rank)
        if len(best.split()) >= 5:
            text = best
    words = text.split()
    if len(words) > max_words:
        text = " ".join(words[:max_words]).rstrip(",;:") + "…"
    return text.rstrip(".") if not text.endswith("…") else text


def no_evidence_answer(question: str) -> str:
    """The honest answer when nothing retrieved is relevant; carries no markers."""
    q = " ".join(question.split()).rstrip("?？.。! ")
    m = re.match(r"(?i)^(?:what|who) (?:is|are|was|were) (.+?)(?: about)?$|^(?:tell me about|explain|describe) (.+)$", q)
    if m:
        topic = (m.group(1) or m.group(2)).strip()
        return f"The knowledge base holds no evidence about {topic}."
    return f"The knowledge base holds no evidence to answer “{q}”."


# What a reflection says about the draft rather than about what it lacks: the retry's preamble
# ("Previous attempt scored 9.4/10."), the offline critic's list of the draft's faults ("Fix: unsupported
# claim (uncited): '…'") and the draft's own words quoted anywhere (the draft already has them).
_PREAMBLE = re.compile(r"(?i)\bprevious attempt scored [\d.]+/10\.?")
_FAULTS = re.compile(r"(?i)\bfix:.*?(?=\bmissing\b|\bgood enough to pass\b|$)|\bgood enough to pass\.?", re.S)
_QUOTED = re.compile(r"(?<!\w)'[^'\n]*'(?!\w)|“[^”\n]*”|\"[^\"\n]*\"")


def missing_from_reflections(reflections: list[str], vocab: Vocabulary) -> tuple[list[str], list[str], str]:
    """Entities and dimensions the critic said were missing, plus the feedback text for boosting.

    Without a "Missing: …" list the critic's own words may still name what to look for (an LLM
    critic's "it never gives the dataset size"), but not its preamble, its faults of the draft or
    the draft's words it quotes: a capitalized "Corporate Acquisition Pairs" quoted from an uncited
    claim is no name the answer lacks, nor is "scored 9.4"."""
    text = " ".join(reflections)
    missing = " ".join(re.findall(r"(?i)missing[^:]*:\s*([^.\n]+)", text))
    if not missing:
        missing = " ".join(_QUOTED.sub(" ", _FAULTS.sub(" ", _PREAMBLE.sub(" ", text))).split())
    return extract_entities(missing, vocab), find_dimensions(missing), missing


_SAYS = re.compile(r"^(?P<title>.+?)(?: \(and \d+ other documents?\))? says: (?P<fact>.+)$", re.S)


def prior_line(facts: list[str], prof: Profile, chosen: list[str]) -> str:
    """A short trailing line of long-term facts that answer this question, each with its source.

    A recalled fact joins only when its subject is one of the question's entities (its source
    paper is that entity's, or it names the entity near its start), it speaks to what is asked
    of it (the question's dimension and one of its other words where it has some, else one of its
    own words beyond the names: "MapReduce is a model for processing large data sets" names the
    dimension of "What dataset does the sort benchmark use?" but nothing else it asks), and the learned
    scorer rates it as an answer to this question at least as high as the sentences the answer
    quotes do on average (a question with a dimension needs its words instead). A question that
    asks for a value and nothing else ("how many", "what rate") takes only a fact that states one:
    the scorer reads the paper's words and can rate a valueless fact above the answer. It must not repeat or
    contradict the evidence. A question that names nothing gets no recalled facts: a
    fact that merely shares words with it is another paper's, not an answer.
    """
    if not prof.entities:
        return ""
    keep: list[str] = []
    chosen_terms = [term_set(c) for c in chosen]
    # the answer's own sentences on average; only a question without a dimension needs it
    scores = [] if prof.dimensions or not facts else [_answer_score(c, prof) for c in chosen]
    bar = sum(scores) / len(scores) if scores else 0.0
    evidence = " ".join(chosen)
    ent_terms = {t for e in prof.entities for t in content_terms(e, parts=True)}
    asked = [t for t in prof.key_terms if t not in ent_terms]
    dim_terms = {t for d in prof.dimensions for t in term_set(d)}
    beyond = [t for t in asked if t not in dim_terms]  # what a question with a dimension asks besides it
    value_only = prof.numeric and not main_clause(prof.question)  # "who …, and what rank …?" asks two things
    for raw in facts:
        line = strip_markers(raw).strip()
        m = _SAYS.match(line)
        title, f = (m.group("title").strip(), m.group("fact").strip()) if m else ("", line)
        if not f or NO_EVIDENCE_RE.search(f):
            continue
        ft = term_set(f)
        if not any(_fact_about(f, title, e, prof.vocab) for e in prof.entities):
            continue
        if value_only and not scorer.stated_values(f):
            continue  # a question asking for a value is not answered by a fact that states none
        if prof.dimensions:
            if not any(dim_hits(f, d) for d in prof.dimensions) or (beyond and not any(covered(t, ft) for t in beyond)):
                continue
        elif asked and (not any(covered(t, ft) for t in asked) or _answer_score(f, prof) < bar):
            continue  # a shared word is not enough: the learned scorer rates it with the evidence
        if any(jaccard(ft, ct) >= 0.6 for ct in chosen_terms) or _conflicts(f, evidence):
            continue
        f = f if f.endswith((".", "!", "?", "。")) else f + "."
        keep.append(f"{title} says: {f}" if title else f)  # the user's own notes read as written
        if len(keep) == 2:
            break
    return f"{PRIOR_PREFIX} {' '.join(keep)}" if keep else ""


def _answer_score(text: str, prof: Profile) -> float:
    """The learned scorer's probability that ``text`` answers the question, read as a sentence of the
    paper it names at the head of a chunk (so a recalled fact and a quoted sentence compare evenly)."""
    about = [e for e in prof.entities if mentions(text, e, prof.vocab)]
    return scorer.score(Sentence(0, 0, text, term_set(text), about), prof, own=True)


def _fact_about(fact: str, title: str, name: str, vocab: Vocabulary) -> bool:
    """Whether a recalled fact is about ``name``: learnt from its paper, or naming it as its subject.
    A paper's own name is what its title starts with, up to a colon, comma or dash ("Sparrow, a
    distilled version of BERT: …" is Sparrow's paper, not BERT's)."""
    head = re.split(r"\s*(?:[:,;]|\s[-–—]\s)", title, maxsplit=1)[0].strip()
    if title and (mentions(head, name, vocab) or re.sub(r"\W", "", head.lower()) == re.sub(r"\W", "", name.lower())):
        return True
    m = mention_pattern(name, vocab).search(fact)
    return bool(m) and m.start() <= 40


def _conflicts(fact: str, evidence: str) -> bool:
    """A fact conflicts when the answer's evidence (all on the question's topic) states another value of the same measure."""
    fact_vals = measures(fact, need_cue=False)
    if not fact_vals:
        return False
    for sent in split_sentences(evidence, end=LOOSE_SENTENCE_END, abbreviation=None):
        for measure, vals in measures(sent, need_cue=False).items():
            if measure in fact_vals and not fact_vals[measure] & vals:
                return True
    return False


# A piece ends at a line break, or after a sentence's last mark (and its citation markers) when
# what follows does not continue the sentence ("e.g. at" does); it takes the whitespace after it.
_PIECE_END = re.compile(r"(?:[.!?。](?:\[\d+\])*(?=\s+(?:[^a-z\s]|$))|\n)\s*")


def pieces(text: str) -> list[str]:
    """``text`` cut into sentences and lines, in order, losing nothing (``"".join`` gives it back)."""
    out, start = [], 0
    for m in _PIECE_END.finditer(text):
        out.append(text[start:m.end()])
        start = m.end()
    if start < len(text):
        out.append(text[start:])
    return out


async def stream(text: str, on_token: TokenSink | None, pace: float = 0.0) -> None:
    """Send ``text`` to ``on_token`` sentence by sentence (table rows and list items line by line),
    waiting ``pace`` seconds between pieces so a reader sees the answer build up (sync or async sinks)."""
    if on_token is None or not text:
        return
    for n, piece in enumerate(pieces(text)):
        if n and pace > 0:
            await asyncio.sleep(pace)
        r = on_token(piece)
        if inspect.isawaitable(r):
            await r


def key_terms(text: str) -> set[str]:
    return set(content_terms(text, drop_frame=True, parts=True))


def step_terms(step: str) -> set[str]:
    """The terms a chain step is answered by. A Chinese step is read by its names and its terms in
    English (the glossary's renderings): the papers it is answered from are English, and its Chinese
    character pairs, which no English sentence holds, would leave every step without evidence."""
    return key_terms(in_english(step))
