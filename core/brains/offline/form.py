"""The form a question asks its answer to take ("in two sentences", "briefly", "as a bulleted list").

A length or layout instruction says how to answer, not what about: it is parsed out of the question
structurally, kept out of the search query and key terms (:func:`core.brains.offline.text.strip_question_form`),
and applied to a prose answer's shape by :func:`shaped`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.brains.offline.text import strip_markers

_COUNT = r"(?:\d+|a|an|one|a single|two|three|four|five|six|seven|eight|nine|ten|a few|few|a couple of)"
_COUNT_WORDS = {"a": 1, "an": 1, "one": 1, "a single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "seven": 7, "eight": 8, "nine": 9, "ten": 10, "a few": 3, "few": 3, "a couple of": 2}
_LIMIT = r"(?:(?:no more than|at most|under|fewer than|less than|within|up to)\s+)?"
# An instruction on the answer's length or layout ("in two sentences", "briefly", "as a bulleted
# list"): it says how to answer, so it shapes the answer and is never searched for.
FORMAT_INSTRUCTION = re.compile(
    rf"[,;:]?\s*\b(?:(?:(?:answer|reply|respond|explain|summari[sz]e)\s+)?(?:in|with|using|as)\s+{_LIMIT}(?P<n>{_COUNT})\s+(?P<unit>sentences?|words?|paragraphs?|lines?|"
    rf"bullet(?:\s+point)?s?|points?)"
    r"|(?:as|in)\s+(?:a\s+)?(?:short\s+|brief\s+)?(?P<list>(?:bulleted|bullet|numbered)\s+list|bullet\s+points|list)"
    r"|(?P<brief>briefly|in brief|in short|concisely|in a nutshell|(?:keep it|be)\s+(?:short|brief))"
    r")\b[.,]?", re.I)


@dataclass(frozen=True)
class AnswerForm:
    """How the question asks the answer to be laid out: at most ``sentences`` sentences or
    ``words`` words, and whether as a bulleted list (``None``/``False``: no instruction)."""

    sentences: int | None = None
    words: int | None = None
    bullets: bool = False


def answer_form(question: str) -> tuple[str, AnswerForm]:
    """The question without its format instruction, and the form that instruction asks for."""
    sentences = words = None
    bullets = False
    for m in FORMAT_INSTRUCTION.finditer(question):
        if m.group("unit"):
            n = m.group("n").lower()
            count = int(n) if n.isdigit() else _COUNT_WORDS.get(n, 3)
            unit = m.group("unit").lower()
            if unit.startswith("word"):
                words = count
            elif unit.startswith(("bullet", "point")):
                sentences, bullets = count, True
            elif unit.startswith("sentence") or unit.startswith("line"):
                sentences = count
            else:  # paragraphs: a direct answer is one
                sentences = 3 * count
        elif m.group("list"):
            bullets = True
        elif m.group("brief"):
            sentences = sentences or 2
    stripped = FORMAT_INSTRUCTION.sub("", question)
    stripped = re.sub(r"\s+([?.!])", r"\1", " ".join(stripped.split())).strip(" ,;:")
    stripped = stripped[:1].upper() + stripped[1:]
    return (stripped or question), AnswerForm(sentences, words, bullets)


def shaped(body: str, form: AnswerForm) -> str:
    """A prose answer laid out as the question asked: its first ``form.sentences`` sentences (or as
    many whole sentences as fit ``form.words``, at least one), as bullets when a list was asked for.
    Headings and the direct answer's order are kept; only trailing support is dropped."""
    from core.brains.offline.synthesis import pieces  # synthesis sits above slots, which imports this module

    if form == AnswerForm():
        return body
    sents = [p.strip() for p in pieces(body) if p.strip() and not p.strip().startswith("#")]
    sents = [re.sub(r"^[-*]\s+", "", s) for s in sents]
    if form.sentences:
        sents = sents[: form.sentences]
    if form.words:
        kept, total = [], 0
        for s in sents:
            n = len(strip_markers(s).split())
            if kept and total + n > form.words:
                break
            kept.append(s)
            total += n
        sents = kept
    return "\n".join(f"- {s}" for s in sents) if form.bullets else " ".join(sents)
