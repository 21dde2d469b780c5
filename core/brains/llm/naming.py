"""Naming the hub's topics with the LLM (``LLMBrain.name_topics``): one request, then a check of each name.

The prompt (:mod:`core.prompts.topics`) shows every topic's keyphrases and document titles,
numbered; the reply maps numbers (or ids) to names and goes through the tolerant parser with one
repair request, like every structured step.

A name is kept when it is a plain phrase of 2 to 5 words (letters, digits, spaces and ``-/+&``: no
punctuation that would end a quoted topic clause in a question, see :mod:`core.scope`), is not a
format word or a placeholder ("list of strings", "Topic 3"), is not a copy of a document title (the
whole title or the part before or after its colon: a topic is a line of work, not one paper), and
no earlier topic took it. Every other topic keeps its keyphrase label.
"""

from __future__ import annotations

import re

from typing import Any

from core.brains.llm.checks import FORMAT_WORDS
from core.events import Notice
from core.prompts.topics import TopicNames, topic_messages
from core.scope import Topic
from core.telemetry import emit

MIN_WORDS, MAX_WORDS, MAX_CHARS = 2, 5, 60
PLACEHOLDERS = frozenset({"topic", "topic name", "name", "cluster", "label", "untitled", "other", "misc",
                          "miscellaneous", "general", "unknown topic", "no name", "none"})
_PLAIN = re.compile(r"[^\W_][\w\s\-/+&]*", re.UNICODE)
_NUMBERED = re.compile(r"(?:topic|cluster|group|name)\s*#?\d+", re.I)
_TITLE_PARTS = re.compile(r"\s*[:—–]\s*|\s+-\s+")


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[\s\-_]+", " ", text.lower()).split())


def _title_forms(topics: list[Topic]) -> set[str]:
    forms = set()
    for t in topics:
        for title in t.documents:
            forms.add(_norm(title))
            forms.update(_norm(p) for p in _TITLE_PARTS.split(title) if p.strip())
    return forms


def topic_for(key: str, topics: list[Topic]) -> Topic | None:
    """The topic a reply's key means: its number in the prompt (1-based), its id or its label."""
    key = str(key).strip().lower().removeprefix("topic").strip(" #")
    if key.isdigit():
        return topics[int(key) - 1] if 1 <= int(key) <= len(topics) else None
    return next((t for t in topics if key in (t.topic_id, t.label.lower())), None)


def name_problem(name: str, titles: set[str], taken: set[str]) -> str | None:
    """Why ``name`` cannot name a topic, or None when it can."""
    norm = _norm(name)
    words = len(name.split())  # "Fine-tuning" is one word
    if not norm:
        return "is empty"
    if norm in FORMAT_WORDS or norm in PLACEHOLDERS or _NUMBERED.fullmatch(norm):
        return "is a format word"
    if not _PLAIN.fullmatch(name) or len(name) > MAX_CHARS:
        return "is not a plain phrase"
    if not MIN_WORDS <= words <= MAX_WORDS:
        return f"has {words} word(s), not {MIN_WORDS}-{MAX_WORDS}"
    if norm in titles:
        return "copies a document title"
    if norm in taken:
        return "names another topic too"
    return None


def check_names(topics: list[Topic], proposed: dict) -> tuple[dict[str, str], list[str]]:
    """The names to keep (topic id -> name) and, for the trace, what was wrong with the others."""
    titles = _title_forms(topics)
    kept: dict[str, str] = {}
    problems: list[str] = []
    for key, value in proposed.items():
        topic = topic_for(key, topics)
        if topic is None:
            problems.append(f"topic {key!r} is not one of the {len(topics)}")
            continue
        name = " ".join(str(value if isinstance(value, (str, int, float)) else "").split()).strip(" \"'“”.")
        if topic.topic_id in kept:
            continue
        why = name_problem(name, titles, {_norm(n) for n in kept.values()})
        if why is None:
            kept[topic.topic_id] = name
        else:
            problems.append(f"{topic.label}: {name!r} {why}")
    problems += [f"{t.label}: no name" for t in topics if t.topic_id not in kept
                 and not any(p.startswith(f"{t.label}:") for p in problems)]
    return kept, problems


async def ask_names(caller: Any, topics: list[Topic], source: str) -> dict[str, str]:
    """The checked names (topic id -> name) from one structured request through ``caller``
    (:class:`core.brains.llm.caller.ModelCaller`); a warning Notice lists what was refused."""
    if not topics:
        return {}
    out = await caller.structured(TopicNames, topic_messages(topics), "topics")
    kept, problems = check_names(topics, out.names if isinstance(out, TopicNames) else {})
    if out is None:
        problems = ["unusable reply (after one repair request)"]
    if problems:
        more = f" (+{len(problems) - 3} more)" if len(problems) > 3 else ""
        emit(Notice(level="warning", source=source,
                    message=f"{source}: topic names: {'; '.join(problems[:3])}{more}; "
                            f"{len(topics) - len(kept)} of {len(topics)} topic(s) keep their keyphrase label"))
    return kept
