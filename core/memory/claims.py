"""Numeric claims, and whether other sources disagree with them: the contradiction check on facts.

A planted descriptive claim ("the default rank of X is 4096") reads like any finding, so no
wording rule can refuse it. What gives it away is that the collection's other documents state the
same quantity with another value. This module finds that structurally, for any text:

- a *quantity* is a number in a sentence together with its *key*: the content words right before
  it and the unit word right after it ("default rank is 4096" -> key {default, rank};
  "by 40 points" -> key {points}; "2e-4 learning rate" -> {learning, rate}). Citation markers
  and table or section numbers are not quantities, and a number nothing names ("In 2021, ...")
  has no key and is left out;
- another source *contradicts* a claim when it mentions the claim's subject (its named terms:
  "LoRA", "Zephyrine"; any keyword when it names none), states a quantity sharing a key word other
  than the subject and a unit with one of the claim's, with another value, and states the claim's
  value for that key nowhere.

Only sources other than the claim's own document are passed in: a paper that reports several
settings of its own method does not contradict itself.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from core.memory.text import clean_fact
from core.text import FACT_STOPWORDS, LETTER_WORD, line_sentences, singular

_NUM = re.compile(r"(?<![\w.\-/\[])(\d+(?:[.,]\d+)*(?:e-?\d+)?)\s*(%|×|x(?![A-Za-z])|k\b|m\b|b\b)?", re.I)
_CLAUSE = re.compile(r"[,;:()\[\]]")
_REFERENCE = frozenset("table figure fig section sec eq equation appendix chapter algorithm line step ref".split())
_SCALE = {"k": 1e3, "m": 1e6, "b": 1e9}
# words that sit between a quantity's name and its value without naming anything
_LINK = FACT_STOPWORDS | frozenset("approximately about around roughly nearly over under up least most set equal "
                              "equals r n d k value values of".split())
KEY_BEFORE = 3  # content words (not names) before a number that name it
KEY_AFTER = 1  # a unit word right after it


@dataclass(frozen=True)
class Quantity:
    value: float
    unit: str  # "%", "x" or "" (a unit word, when there is one, is part of the key)
    key: frozenset[str]
    text: str  # as written, for reasons


def quantities(sentence: str) -> list[Quantity]:
    """Every quantity of one sentence with its key (see the module docstring)."""
    sentence = clean_fact(sentence)
    out = []
    prev_end = 0
    for m in _NUM.finditer(sentence):
        start, prev_end = prev_end, m.end()
        raw, unit = m.group(1), (m.group(2) or "").lower()
        try:
            value = float(raw.replace(",", ""))
        except ValueError:
            continue
        value *= _SCALE.get(unit, 1.0)
        unit = {"×": "x", "k": "", "m": "", "b": ""}.get(unit, unit)
        clause = _CLAUSE.split(sentence[start: m.start()])[-1]  # the name stops at a comma or another number
        words = LETTER_WORD.findall(clause)
        if words and words[-1].lower() in _REFERENCE:
            continue  # "Table 2", "Section 3"
        # names ("Quillon", "LoRA") say what is measured about, not which quantity: left out of the key
        before = [singular(w) for w in words
                  if len(w) > 1 and (w.islower() or (start == 0 and clause.lstrip().startswith(w)))]
        before = [w for w in before if w not in _LINK][-KEY_BEFORE:]
        after = [singular(w) for w in LETTER_WORD.findall(_CLAUSE.split(sentence[m.end():])[0]) if len(w) > 1][:KEY_AFTER]
        after = [w for w in after if w not in _LINK]
        key = frozenset(before + after)
        if key:
            out.append(Quantity(value, unit, key, m.group(0).strip()))
    return out


def subject_terms(text: str) -> set[str]:
    """The named terms of a claim (a capital after its first letter or a capitalized word past the
    sentence start: "LoRA", "GPT-3", "Zephyrine"); its keywords when it names nothing."""
    words = LETTER_WORD.findall(clean_fact(text))
    named = {w.lower() for i, w in enumerate(words)
             if any(c.isupper() for c in w[1:]) or (i > 0 and w[0].isupper())}
    if not named and words and words[0][0].isupper() and words[0].lower() not in FACT_STOPWORDS:
        named = {words[0].lower()}
    return named or {singular(w) for w in words if w.lower() not in _LINK and len(w) > 2}


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=0.02, abs_tol=1e-12)


@dataclass
class Weighing:
    """How other documents bear on a claim's numbers: the documents stating another value (with why)
    and those stating the claim's own value."""

    against: dict[str, str]
    agreeing: set[str]

    @property
    def contradicted(self) -> bool:
        """More documents state another value than state the claim's: a lone dissenting document
        does not sink a claim two documents make."""
        return len(self.against) > len(self.agreeing)


def weigh(claim: str, others: list[tuple[str, str]]) -> Weighing:
    """Weigh ``claim`` against ``(label, text)`` sources, grouped by label (one label per document)."""
    out = Weighing({}, set())
    claimed = [q for s in line_sentences(claim) for q in quantities(s)]
    if not claimed:
        return out
    subject = subject_terms(claim)
    for label, text in others:
        low = text.lower()
        if not any(re.search(rf"(?<![a-z0-9]){re.escape(t)}", low) for t in subject):
            continue
        stated = [q for s in line_sentences(text) for q in quantities(s)]
        for q in claimed:
            same_kind = [o for o in stated if o.unit == q.unit and (o.key & q.key) - subject]
            if any(_same(o.value, q.value) for o in same_kind):
                out.agreeing.add(label)
                out.against.pop(label, None)
            elif same_kind and label not in out.agreeing and label not in out.against:
                o = same_kind[0]
                what = " ".join(sorted((o.key & q.key) - subject))
                out.against[label] = f"{label} states {what} {o.text}, not {q.text}"
    return out


def contradictions(claim: str, others: list[tuple[str, str]]) -> list[str]:
    """Why ``claim`` is contradicted (one reason per disagreeing document), or [] when it is not:
    see :attr:`Weighing.contradicted`."""
    w = weigh(claim, others)
    return list(w.against.values()) if w.contradicted else []


def confirmed(claim: str, others: list[tuple[str, str]]) -> bool:
    """Whether another document states one of the claim's values for a quantity of the same kind."""
    return bool(weigh(claim, others).agreeing)


class SourceIndex:
    """Texts of many documents indexed by word, so a claim is compared only with those that name its
    subject (the audit checks every fact against every indexed chunk)."""

    def __init__(self, items: list[tuple[str, str, str]]) -> None:
        """``items``: (document id, label, text)."""
        self.items = items
        self.words: dict[str, set[int]] = {}
        for i, (_, _, text) in enumerate(items):
            for w in set(LETTER_WORD.findall(text.lower())):
                self.words.setdefault(w, set()).add(i)

    def about(self, claim: str, not_doc: str) -> list[tuple[str, str]]:
        """(label, text) of the items naming the claim's subject, from documents other than ``not_doc``."""
        hits: set[int] = set()
        for term in subject_terms(claim):
            hits |= self.words.get(term, set()) | self.words.get(term + "s", set())
        return [(self.items[i][1], self.items[i][2]) for i in sorted(hits) if self.items[i][0] != not_doc]


def has_quantity(text: str) -> bool:
    return any(quantities(s) for s in line_sentences(text))


def instruction_sentences(texts: list[str], limit: int = 3) -> list[str]:
    """Sentences of ``texts`` that read like instructions (:mod:`core.memory.hygiene`), at most ``limit``."""
    from core.memory.hygiene import instruction_reason

    found: list[str] = []
    for text in texts:
        for s in line_sentences(text):
            if instruction_reason(s) and s not in found:
                found.append(s)
                if len(found) >= limit:
                    return found
    return found
