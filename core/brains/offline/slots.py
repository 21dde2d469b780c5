"""Slot filling: entities, dimensions, constraints and a self-contained query.

Entities come from three places, in this order of trust: the built-in lexicon (canonical names),
the hub's vocabulary (document titles and the short names before their colon), and a heuristic for
unknown acronyms / CamelCase names ("GRPO", "FlashAttention"). Follow-ups are rewritten against
the last turn: pronouns become that turn's entities, "what about X?" re-asks the last question
about X, and pure ellipsis gets the entities appended.
"""

from __future__ import annotations

import re

from core.brains.base import Turn
from core.brains.offline.lexicon import NOT_ENTITIES, entity, find_dimensions, find_entities, mentions

_ACRONYM = re.compile(r"(?<![\w-])([A-Z][a-z]*[A-Z][A-Za-z0-9\-]*|[A-Z]{2,}[a-z]?[0-9]*)(?![\w-])")
_SCALE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?([BbMm])(?![A-Za-z])")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_HARDWARE = re.compile(r"\b(?:a |one )?(single|one|two|\d+)\s+(?:\d+\s?GB\s+)?(GPU|GPUs|TPU|device)s?\b|单张\s*GPU|单卡", re.I)
_BITS = re.compile(r"\b(\d{1,2})[- ]?bit\b", re.I)


def _vocab_names(vocabulary: list[str]) -> list[str]:
    """Matchable names from hub vocabulary: whole short entries and the part before a colon."""
    names: list[str] = []
    for item in vocabulary:
        item = item.strip()
        if not item:
            continue
        head = item.split(":", 1)[0].strip()
        for cand in (head, item) if head != item else (item,):
            if 2 <= len(cand) <= 80 and cand not in names:
                names.append(cand)
    return names


def extract_entities(text: str, vocabulary: list[str] | None = None) -> list[str]:
    """Canonical entity names mentioned in ``text``, in order of first mention."""
    hits: list[tuple[int, str]] = list(find_entities(text))
    known = {name.lower() for _, name in hits}
    for name in _vocab_names(vocabulary or []):
        canon = entity(name)
        label = canon.name if canon else name
        if label.lower() in known:
            continue
        m = re.search(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", text, re.I)
        if m and (len(name) > 3 or name.isupper() or any(c.isupper() for c in name[1:])):
            hits.append((m.start(), label))
            known.add(label.lower())
    for m in _ACRONYM.finditer(text):
        word = m.group(1)
        if word.upper() in NOT_ENTITIES or word.rstrip("s").upper() in NOT_ENTITIES or _SCALE.fullmatch(word):
            continue
        if word.lower() in known or any(mentions(word, k) for k in known if entity(k)):
            continue
        if any(start <= m.start() < start + len(name) for start, name in hits):
            continue
        hits.append((m.start(), word))
        known.add(word.lower())
    ordered: list[str] = []
    for _, name in sorted(hits):
        if name not in ordered:
            ordered.append(name)
    return ordered


def extract_constraints(text: str) -> dict:
    out: dict = {}
    if m := _SCALE.search(text):
        out["model_size"] = f"{m.group(1)}{m.group(2).upper()}"
    years = [int(y) for y in _YEAR.findall(text)]
    if years:
        out["years"] = sorted(set(years))
    if m := _HARDWARE.search(text):
        out["hardware"] = "single GPU" if re.search(r"single|one|单", m.group(0), re.I) else m.group(0).strip()
    if m := _BITS.search(text):
        out["precision"] = f"{m.group(1)}-bit"
    return out


def entities_of_turn(turn: Turn) -> list[str]:
    """The entities a previous turn was about: recorded ones, else those in its question/answer."""
    if turn.entities:
        return list(turn.entities)
    found = extract_entities(turn.question)
    if found:
        return found
    in_answer = extract_entities(turn.answer)
    named = [e for e in in_answer if (entity(e) is None or entity(e).kind != "concept")]
    return (named or in_answer)[:2]


def _join(names: list[str], conj: str = "and") -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" {conj} " + names[-1]


_LEAD = re.compile(r"^\s*(?:and|also|so|but|then|plus|ok(?:ay)?|那么|那|还有|另外)[\s,，]*", re.I)
_WHAT_ABOUT = re.compile(r"^\s*(?:and\s+)?(?:what|how)\s+about\s+(.+?)\s*[?？]?\s*$|^\s*(?:那|那么)?(.+?)呢\s*[?？]?\s*$", re.I)


def reformulate(question: str, history: list[Turn], vocabulary: list[str] | None = None) -> tuple[str, list[str]]:
    """A self-contained rewrite of a follow-up and the entities it is about."""
    q = " ".join(question.split())
    if not history:
        return q, extract_entities(q, vocabulary)
    last = history[-1]
    prev = entities_of_turn(last)
    own = extract_entities(q, vocabulary)
    m = _WHAT_ABOUT.match(q)
    if m and own and prev:
        # "What about QLoRA?" — ask the previous question again, about the new entity.
        rewritten = last.question
        for old in prev:
            rewritten = _replace_mention(rewritten, old, _join(own))
        if rewritten != last.question:
            return rewritten, own
        subject = (m.group(1) or m.group(2) or "").strip()
        return f"{last.question.rstrip('?？ ')} — and {subject}?", own + prev
    if not prev:
        return _LEAD.sub("", q) or q, own
    plural = _join(prev, "and")
    choice = _join(prev, "or")
    single = prev[0] if len(prev) == 1 else plural
    rules: list[tuple[str, str]] = [
        (r"\bwhich one\b|\bwhich of (?:them|the two|these|those)\b", f"which of {choice}"),
        (r"\b(?:the former)\b", prev[0]),
        (r"\b(?:the latter)\b", prev[-1]),
        (r"\bits\b", f"{single}'s" if len(prev) == 1 else f"{plural}'s"),
        (r"\b(?:they|them)\b", plural),
        (r"\btheir\b", f"{plural}'s"),
        (r"\bit\b", single),
        (r"\b(does|did|do|is|was|are|about|of|with|than|from|for|to|in)\s+(?:that|this)(?=\s|[?.!,]|$)", rf"\1 {single}"),
        (r"\b(?:that|this)(?=\s*[?.!]|\s*$)", single),
        (r"\b(?:that|this)(?=\s+(?:save|saves|use|uses|need|needs|require|requires|cost|costs|take|takes|work|works|achieve|achieves|improve|improves|reduce|reduces|mean|means|compare|compares|do|does)\b)", single),
        (r"它们|前者和后者", plural),
        (r"它|这个|那个", single),
    ]
    rewritten = _LEAD.sub("", q)
    replaced = 0
    for pattern, repl in rules:
        rewritten, n = re.subn(pattern, repl, rewritten, flags=re.I)
        replaced += n
    if not replaced and own:
        return q, own  # self-contained despite the history
    rewritten = rewritten[:1].upper() + rewritten[1:] if rewritten else q
    mentioned = [e for e in prev if mentions(rewritten, e)]
    if not mentioned:
        tail = rewritten.rstrip("?？ ")
        rewritten = f"{tail} ({plural})?" if rewritten.rstrip().endswith(("?", "？")) else f"{tail} ({plural})"
    merged = [e for e in prev if e not in own] + own
    return rewritten, merged


def _replace_mention(text: str, name: str, repl: str) -> str:
    from core.brains.offline.lexicon import mention_pattern

    return mention_pattern(name).sub(repl, text, count=1)


def fill(question: str, intent_type: str, history: list[Turn], vocabulary: list[str]) -> dict:
    """Slots for a question as a plain dict (the brain wraps it in ``SlotFillingOutput``)."""
    q = " ".join(question.split())
    dims = find_dimensions(q)
    constraints = extract_constraints(q)
    if intent_type == "follow_up" and history:
        query, ents = reformulate(q, history, vocabulary)
    else:
        query, ents = q, extract_entities(q, vocabulary)
    return {"entities": ents, "dimensions": dims, "constraints": constraints, "reformulated_query": query}
