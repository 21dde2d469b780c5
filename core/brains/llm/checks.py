"""Checks on a model's structured output before the graph uses it (a weak model's slots and
queries are often format words, misspellings or invented specifics).

- an entity must occur in the question, the conversation or the collection's vocabulary;
- a dimension must be a plain phrase (words only, at most six), never a format word;
- a query must not bring in a number or a name that the question, the conversation (and, for
  steps that have read evidence, the retrieved text) does not contain.

Each check returns the problems it found, as short phrases for the trace; none means usable.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.brains.base import SlotFillingOutput, Turn
from core.brains.offline.text import content_terms, covered, term_set
from core.text import LOOSE_SENTENCE_END, line_sentences, name_tokens, written_numbers

FORMAT_WORDS = frozenset({
    "list of strings", "list", "string", "strings", "str", "entity", "entities", "dimension", "dimensions",
    "constraint", "constraints", "reformulated query", "reformulated_query", "query", "null", "none", "n/a",
    "na", "array", "object", "json", "example", "examples", "value", "values", "item", "items", "text",
    "...", "…", "tbd", "unknown",
})
_PLAIN_PHRASE = re.compile(r"[^\W_][\w\s\-/+.&']*", re.UNICODE)
_CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,}\b")
MAX_DIMENSION_WORDS = 6


def known_text(question: str, history: list[Turn], *more: str) -> str:
    """What a step may draw names and numbers from, lower-cased."""
    parts = [question, *(f"{t.question} {t.answer}" for t in history), *more]
    return " ".join(parts).lower()


def _norm(text: str) -> str:
    return re.sub(r"[\s\-_]+", " ", text.lower()).strip()


def entity_problems(entities: Iterable[str], known: str, vocabulary: Iterable[str]) -> list[str]:
    have = _norm(known)
    vocab = {_norm(v) for v in vocabulary}
    out = []
    for entity in entities:
        e = _norm(entity)
        if not e or e in FORMAT_WORDS or not (e in have or e in vocab):
            out.append(f"entity {entity!r} is not in the question, the conversation or the collection")
    return out


def dimension_problems(dimensions: Iterable[str]) -> list[str]:
    out = []
    for dim in dimensions:
        text = dim.strip()
        if (text.lower() in FORMAT_WORDS or not _PLAIN_PHRASE.fullmatch(text)
                or len(text.split()) > MAX_DIMENSION_WORDS):
            out.append(f"dimension {dim!r} is not a plain phrase")
    return out


def query_problems(query: str, known: str) -> list[str]:
    """Numbers and names of ``query`` that ``known`` (lower-cased) lacks. A capitalised word counts
    as a name unless a word of ``known`` shares its stem (``Comparison`` after "compare")."""
    have_numbers = set(written_numbers(known))
    out = [f"query {query!r} adds the number {n}" for n in written_numbers(query) if n not in have_numbers]
    out += [f"query {query!r} adds the name {n}" for n in name_tokens(query) if n.lower() not in known]
    have_terms = term_set(known)
    for word in _CAPITALISED.findall(query):
        if word in name_tokens(query) or word.lower() in known:
            continue
        if not all(covered(t, have_terms) for t in content_terms(word)):
            out.append(f"query {query!r} adds the name {word}")
    return out


def slot_problems(out: SlotFillingOutput, question: str, history: list[Turn], vocabulary: list[str]) -> list[str]:
    known = known_text(question, history)
    return (entity_problems(out.entities, known, vocabulary) + dimension_problems(out.dimensions)
            + query_problems(out.reformulated_query, known))


ECHO_RUN = 10  # consecutive words shared with the instructions: an echo, not an answer
HEADER_CHARS = 40  # a draft line opening with this much of a context's header ("[1] Title › …") copies it
DRAFT_CHARS_PER_TOKEN = 8  # a draft longer than llm.max_tokens × this ignored the reply budget


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", re.sub(r"\[\d+\]", " ", text.lower()))


def _copies(line: str, header: str) -> bool:
    """``line`` is a context header of the prompt: it opens with the first ``HEADER_CHARS`` of a long
    one, or is a short one whole (a line "[1] LoRA reduces …" merely opens with a marker and a name)."""
    if len(header) >= HEADER_CHARS:
        return line.startswith(header[:HEADER_CHARS])
    return line == header or line.startswith(header + " ›")


def draft_problems(draft: str, instructions: str, plan: Iterable[str], max_tokens: int,
                   headers: Iterable[str] = ()) -> list[str]:
    """Why a synthesized draft is not an answer: only citation markers, an echo of its own
    instructions (``ECHO_RUN`` words in a row), of its plan's steps or of its evidence block (a line
    that opens with one of the prompt's context ``headers``, "[1] Title › Section", as a small model
    copies the block it was given), or far past the reply budget (a server that ignores ``max_tokens``
    and streams junk)."""
    words = _words(draft)
    problems: list[str] = []
    if not words:  # a terse answer ("Rank 8 [1].") is an answer; markers alone are not
        problems.append("the draft is only citation markers" if re.search(r"\[\d+\]", draft) else
                        "the draft is empty")
    said = _words(instructions)
    runs = {tuple(said[i:i + ECHO_RUN]) for i in range(len(said) - ECHO_RUN + 1)}
    if any(tuple(words[i:i + ECHO_RUN]) in runs for i in range(len(words) - ECHO_RUN + 1)):
        problems.append(f"the draft repeats its instructions ({ECHO_RUN}+ words in a row)")
    steps = {" ".join(_words(s)) for s in plan if len(_words(s)) >= 3}
    lines = [" ".join(_words(x)) for x in line_sentences(draft, end=LOOSE_SENTENCE_END, abbreviation=None) if _words(x)]
    if steps and lines and sum(line in steps for line in lines) * 2 >= len(lines):
        problems.append("the draft repeats its plan's steps instead of answering them")
    copied = [h for h in headers if any(_copies(line.strip(), h) for line in draft.splitlines())]
    if copied:
        problems.append(f"the draft copies its evidence block ({copied[0][:60]})")
    if len(draft) > max_tokens * DRAFT_CHARS_PER_TOKEN:
        problems.append(f"the draft is {len(draft):,} characters, far past the reply budget (llm.max_tokens)")
    return problems
