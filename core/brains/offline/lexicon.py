"""Matching names and comparison dimensions in questions and evidence.

Names come from the vocabulary each call is given (:mod:`core.vocabulary`): the terms of the collection
the turn runs over, each with its aliases (matched on word boundaries; forms in ``case_sensitive`` only as
written, like "ReAct"), a year (orders stages in exploratory answers) and related terms (facets the
ReAct loop explores). Dimensions are general comparison axes (memory, accuracy, cost …) that map
normalized names to the cue words that signal them in questions and in evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from core.text import content_terms
from core.vocabulary import Term, Vocabulary


Entity = Term  # a name the collection uses (see core.vocabulary)


@dataclass(frozen=True)
class Dimension:
    name: str
    cues: tuple[str, ...]  # phrases that signal the dimension in a question
    evidence: tuple[str, ...] = field(default=())  # extra stems that signal it in a context
    shape: re.Pattern | None = None  # a kind of value that signals it in a context (a count with its magnitude)


# A time taken or a rate, the values speed is reported in: "16 minutes", "3.2 ms", "11 hours", "40 tokens/s",
# "1,200 sentences per second", or one relative to another ("5.5x faster", "44% longer to complete").
# "60,000 hours of audio" is an amount of data, not a time taken.
DURATION = re.compile(r"\b\d[\d,.]*\s?(?:(?:milli|micro)?seconds?|(?:ms|µs|us|sec|secs|s|min|mins|minutes?|h|hrs?|hours?|days?)\b)"
                      r"(?!\s+of\b)"
                      r"|\b\d[\d,.]*\s?(?:%|x|×|times)\s+(?:faster|slower|longer|shorter|quicker)\b"
                      r"|\b\d[\d,.]*\s?\w+\s?(?:/\s?s(?:ec)?\b|per\s+(?:second|minute|hour)\b)", re.I)

# A question that asks for a time taken: "how long did/does it take", "how long was it trained", "how much
# time", "how many hours/GPU days", "多长时间", "多久". "How long is the context" asks a length, not a time.
_ASKS_DURATION = re.compile(
    r"\bhow\s+long\b(?=[^?.]*\b(?:take|takes|took|taken|taking|train|trains|trained|training|run|runs|ran|last|lasts|lasted|"
    r"spend|spends|spent|need|needs|needed|require|requires|required)\b)"
    r"|\bhow\s+much\s+(?:wall[\s-]?clock\s+|training\s+|compute\s+)?time\b"
    r"|\bhow\s+many\s+(?:\w+[\s-])?(?:seconds|minutes|hours|days|weeks|months)\b"
    r"|多长时间|多久|几个?小时|几天", re.I)


def asks_duration(question: str) -> bool:
    """Whether ``question`` asks for a time taken, the kind of value :data:`DURATION` states."""
    return _ASKS_DURATION.search(question) is not None


# A factor one speed is of another: "5× higher throughput", "accelerates training (by 3x or more)".
_FACTOR = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s?[x×](?![\w])")


def asks_time(question: str, numeric: bool) -> bool:
    """Whether ``question`` asks for a time taken or a rate: it asks how long something took, or it
    asks for a number (``numeric``) of a dimension measured in time (speed, training time: "how fast
    is X compared with Y", "by how much does it speed up training")."""
    return asks_duration(question) or (numeric and any(
        (d := DIMENSION_BY_NAME.get(name)) is not None and d.shape is DURATION for name in find_dimensions(question)))


def states_time(text: str) -> bool:
    """Whether ``text`` states a time taken, a rate (:data:`DURATION`) or the factor of one speed over
    another ("5× higher throughput")."""
    return DURATION.search(text) is not None or _FACTOR.search(text) is not None


# A question that asks for a name: "what is X called", "what is the name of X", "what name …", "叫什么".
_ASKS_NAME = re.compile(r"^\s*what(?:'s|\s+is|\s+are|\s+was|\s+were)\b[^?]*\bcalled\b|\bwhat\s+is\s+the\s+name\b|"
                        r"\bwhat\s+name\b|叫什么|什么名字|名字是|名称是", re.I)
# A sentence that gives something a name: "called X", "named X", "we call X", "dubbed X", "termed X" (TeX
# emphasis, braces and quotes around the name read through).
_GIVES_NAME = re.compile(r"\b(?:called|named|dubbed|termed|coined|(?:we|they|authors)\s+call)\s+(?:it\s+|them\s+|this\s+)?"
                         r"[\s\"“‘'{]*([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)")
_TEX_EMPHASIS = re.compile(r"\\(?:em|emph|textit|textbf|textsc)\b\s*|[{}]")
# ... or puts it in quotes as a proper name of two or more capitalised words ('our new "Colossal Web Set"')
_QUOTED_NAME = re.compile(r"[\"“]([A-Z][\w-]*(?:\s+[A-Z][\w-]*)+)[\"”]")


def asks_name(question: str) -> bool:
    """Whether ``question`` asks what something is called."""
    return _ASKS_NAME.search(question) is not None


def gives_new_name(text: str, question: str) -> bool:
    """Whether ``text`` gives something a name ("we call {\\em Tidal Gate}", 'our new "Tidal Gate"') that
    ``question`` does not hold."""
    low = question.lower()
    text = _TEX_EMPHASIS.sub("", text)
    return any(not all(w.lower() in low for w in m.group(1).split())
               for pattern in (_GIVES_NAME, _QUOTED_NAME) for m in pattern.finditer(text))


# A question that asks what something cannot do or where it falls short: its limitations, weaknesses,
# drawbacks, shortcomings, downsides, disadvantages or failure modes.
_ASKS_LIMITATION = re.compile(r"\b(?:limitations?|weakness(?:es)?|drawbacks?|shortcomings?|downsides?|disadvantages?|"
                              r"failure\s+modes?)\b|局限|缺点|不足之处|弱点", re.I)
# A sentence that states one: what the thing cannot do, fails at, is limited by or pays for.
_STATES_LIMITATION = re.compile(r"\b(?:cannot|can\s?not|can't|unable|fails?\s+to|failed\s+to|limited|limitations?|drawbacks?|"
                                r"weakness(?:es)?|shortcomings?|struggles?|suffers?|at\s+the\s+cost\s+of|poorly|brittle|"
                                r"not\s+(?:able|suitable|applicable|robust))\b", re.I)


def asks_limitation(question: str) -> bool:
    """Whether ``question`` asks for something's limitations (weaknesses, drawbacks, failure modes)."""
    return _ASKS_LIMITATION.search(question) is not None


def limitation_terms(question: str) -> frozenset[str]:
    """The words by which ``question`` asks for limitations ("limitation", "drawback"), as terms: a
    sentence that states one answers them without repeating them."""
    return frozenset(t for m in _ASKS_LIMITATION.finditer(question) for t in content_terms(m.group(0)))


def states_limitation(text: str) -> bool:
    """Whether ``text`` states a limitation: what something cannot do, fails at or is limited by."""
    return _STATES_LIMITATION.search(text) is not None


DIMENSIONS: tuple[Dimension, ...] = (
    Dimension("memory", ("memory", "vram", "footprint", "gpu memory", "内存", "显存"),
              ("memory", "gb", "vram", "footprint", "quantiz", "gpu"),
              re.compile(r"\b\d+[\s-]?bits?\b", re.I)),
    Dimension("accuracy", ("accuracy", "accurate", "performance", "quality", "benchmark", "score", "准确", "精度", "效果", "性能"),
              ("accuracy", "performance", "quality", "match", "benchmark", "score", "%", "degrad", "outperform", "comparabl", "on par")),
    Dimension("training time", ("training time", "faster to train", "train faster", "training speed", "time to train", "训练时间", "训练速度"),
              ("throughput", "hour", "faster", "slower", "speed", "speedup", "training step", "training time", "gpu-hour"),
              DURATION),
    Dimension("speed", ("speed", "fast", "faster", "slow", "slower", "latency", "throughput", "inference", "速度", "延迟"),
              ("speed", "latency", "faster", "slower", "throughput", "inference", "overhead"),
              DURATION),
    Dimension("cost", ("cost", "cheap", "cheaper", "expensive", "compute", "price", "budget", "成本", "算力"),
              ("cost", "cheap", "expensive", "compute", "gpu", "hardware")),
    Dimension("parameters", ("parameters", "trainable parameters", "params", "parameter count", "参数量", "参数"),
              ("parameter", "trainable", "rank", "weight", "fewer"),
              re.compile(r"\b\d[\d,.]*\s?(?:[mb]|million|billion|times|x|×)(?![a-z])", re.I)),
    Dimension("data", ("data", "dataset", "datasets", "labels", "annotation", "preference data", "数据"),
              ("data", "dataset", "preference", "label", "comparison", "human", "annot", "pair")),
    Dimension("stability", ("stability", "stable", "unstable", "robust", "稳定"),
              ("stable", "unstable", "stability", "instabil", "robust", "hyperparameter", "tuning")),
    Dimension("complexity", ("complexity", "simplicity", "simpler", "simple", "complex", "implementation", "复杂", "简单"),
              ("simple", "simpler", "complex", "pipeline", "stage", "implement", "reward model", "sampling")),
    Dimension("scalability", ("scalability", "scale", "scaling", "larger models", "扩展"),
              ("scale", "scaling", "larger", "billion", "size"),
              re.compile(r"\b\d+(?:\.\d+)?\s?b(?![a-z])", re.I)),
)
DIMENSION_BY_NAME = {d.name: d for d in DIMENSIONS}


def _alias_pattern(alias: str) -> str:
    body = re.escape(alias).replace(r"\-", r"[\s\-]?").replace(r"\ ", r"[\s\-]+")
    if re.search(r"[\u4e00-\u9fff]", alias):
        return body
    # not a part of a "+"-joined name ("PROTO+SIM" in "PROTO+SIM+BOUND", "BERT" in "BERT+CRF")
    return rf"(?<![A-Za-z0-9])(?<![A-Za-z0-9]\+){body}(?![A-Za-z0-9]|-[A-Za-z0-9]|\.\d|\+[A-Za-z0-9])"


def _norm(form: str) -> str:
    return re.sub(r"[\s\-]+", "", form.lower())


def _memo(vocab: Vocabulary) -> dict:
    memo = vocab.__dict__.setdefault("_lexicon_memo", {})
    if len(memo) > 50_000:
        memo.clear()
    return memo


def _matcher(vocab: Vocabulary) -> tuple[re.Pattern | None, re.Pattern | None, dict[str, str], dict[str, str]]:
    """One alternation over every form of every term (longest first), case-insensitive and exact."""
    memo = _memo(vocab)
    if "matcher" not in memo:
        loose: dict[str, str] = {}
        exact: dict[str, str] = {}
        for term in vocab.terms:
            for form in (term.name, *term.aliases):
                if form in term.case_sensitive:
                    exact.setdefault(form, term.name)
                else:
                    loose.setdefault(_norm(form), term.name)
        forms_i = sorted({f for t in vocab.terms for f in (t.name, *t.aliases) if f not in t.case_sensitive},
                         key=len, reverse=True)
        forms_c = sorted({f for t in vocab.terms for f in t.case_sensitive}, key=len, reverse=True)
        pat_i = re.compile("|".join(_alias_pattern(f) for f in forms_i), re.I) if forms_i else None
        pat_c = re.compile("|".join(_alias_pattern(f) for f in forms_c)) if forms_c else None
        memo["matcher"] = (pat_i, pat_c, loose, exact)
    return memo["matcher"]


def find_entities(text: str, vocab: Vocabulary) -> list[tuple[int, str]]:
    """``(position, name)`` for every term of ``vocab`` mentioned in ``text``."""
    memo = _memo(vocab)
    key = ("find", text)
    if key not in memo:
        pat_i, pat_c, loose, exact = _matcher(vocab)
        first: dict[str, int] = {}
        for m in pat_i.finditer(text) if pat_i else ():
            name = loose.get(_norm(m.group(0)))
            if name is not None:
                first.setdefault(name, m.start())
        for m in pat_c.finditer(text) if pat_c else ():
            name = exact.get(m.group(0))
            if name is not None:
                first.setdefault(name, m.start())
        memo[key] = tuple(sorted((pos, name) for name, pos in first.items()))
    return list(memo[key])


def entity(name: str, vocab: Vocabulary) -> Entity | None:
    return vocab.get(name)


def mention_pattern(name: str, vocab: Vocabulary) -> re.Pattern:
    """A regex that finds ``name`` (a term of ``vocab`` with its aliases, or any literal name)."""
    memo = _memo(vocab)
    key = ("pattern", name)
    if key not in memo:
        memo[key] = _pattern(vocab.get(name), name)
    return memo[key]


def _pattern(ent: Entity | None, name: str) -> re.Pattern:
    if ent is None:
        # an acronym ("ALBERT", "YOLOS") is matched as written: "Albert Gu" is not ALBERT
        caps = sum(c.isupper() for c in name) >= 2 and not any(c.islower() for c in name)
        return re.compile(_alias_pattern(name), 0 if caps else re.I)
    parts = [_alias_pattern(a) for a in (ent.name, *ent.aliases) if a not in ent.case_sensitive]
    exact = list(ent.case_sensitive)
    if ent.case_sensitive and name not in (ent.name, *ent.aliases) and any(c.isupper() for c in name):
        # the name as the question wrote it ("ReVerb" for the term "REVERB", matched only as the paper
        # prints it): a pattern that cannot find its own name loses it from the question's side text
        exact.append(name)
    pat = "|".join(f"(?i:{p})" for p in parts)
    if exact:
        pat += ("|" if pat else "") + "|".join(_alias_pattern(a) for a in exact)
    return re.compile(pat)


def mentions(text: str, name: str, vocab: Vocabulary) -> bool:
    memo = _memo(vocab)
    key = ("mentions", text, name)
    if key not in memo:
        memo[key] = bool(mention_pattern(name, vocab).search(text))
    return memo[key]


def find_dimensions(text: str) -> list[str]:
    """Normalized dimension names signalled in a question, in order of first mention."""
    low = text.lower()
    hits: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    # longest cues first, so "faster to train" wins over "faster"
    cues = sorted(((c, d.name) for d in DIMENSIONS for c in d.cues), key=lambda x: -len(x[0]))
    for cue, name in cues:
        pat = re.escape(cue) if re.search(r"[\u4e00-\u9fff]", cue) else rf"\b{re.escape(cue)}\b"
        for m in re.finditer(pat, low):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            taken.append((m.start(), m.end()))
            hits.append((m.start(), name))
    ordered: list[str] = []
    for _, name in sorted(hits):
        if name not in ordered:
            ordered.append(name)
    return ordered


def dimension_terms(name: str) -> tuple[str, ...]:
    """Lower-case cue stems that signal a dimension inside evidence text."""
    dim = DIMENSION_BY_NAME.get(name)
    if dim is None:
        return (name.lower(),)
    return tuple(dict.fromkeys((*dim.evidence, *(c for c in dim.cues if c.isascii()))))


@lru_cache(maxsize=8192)
def dimension_hits(text: str, name: str) -> int:
    """How many of a dimension's evidence cues occur in ``text``."""
    low = text.lower()
    dim = DIMENSION_BY_NAME.get(name)
    shaped = 1 if dim is not None and dim.shape is not None and dim.shape.search(text) else 0
    return sum(1 for t in dimension_terms(name) if t in low) + shaped


def signals_dimension(text: str, name: str) -> bool:
    return dimension_hits(text, name) > 0
