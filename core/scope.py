"""Scoping a question to one of the collection's topics, when the question names one.

The hub computes topics (``list_topics``, :mod:`core.hub.topics`); slot filling asks for them only
when a question has a topic cue, and :func:`match` decides. A question is scoped in three cases,
from the loosest wording allowed to the strictest match required:

- it says "topic" (or 主题 / 话题): "In the topic \"speech / latent\": …", "within the vision topic, …",
  "topic: reasoning" — the named words must cover at least half of one topic's label words or one
  of its keyphrases, and that topic must be the only best one;
- it asks about a body of work: "papers about reinforcement learning …", "research on speech" —
  the named phrase must be, as a whole, a topic's label, id, a part of its label or one of its
  first three keyphrases;
- "about <label>", where <label> is a topic's whole label (or given name), up to the end of the clause.

Everything else (a question that merely contains a keyphrase: "What does ReAct say about
reasoning traces?") is not scoped. Retrieval of a scoped turn passes ``topic`` to
``query_knowledge_hub``, so only that topic's documents are searched.

Naming: the hub has no LLM, so a topic's label is its two best keyphrases. A name given with the
LLM brain (``paperpilot hub topics --name``, stored by the hub's ``name_topics``) comes back from
``list_topics`` and is matched here exactly like a label (``Topic.names``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from core.text import TOPIC_NAME_WORD, singular

_TOPIC_WORD = re.compile(r"\btopics?\b|主题|话题", re.I)
_QUOTED = r"[\"“”'‘’「」『』]"
# "in the topic X", "topic: X", "the topic of X"; X runs to the end of the clause
_LEAD_IN = r"(?:\b(?:in|within|under|inside|from|for|on|about)\s+)?"
_NAMED_AFTER = re.compile(
    rf"{_LEAD_IN}(?:the\s+)?\btopic(?:\s+of)?\s*(?:[:=]\s*|\s+){_QUOTED}?(?P<name>[^\"“”'‘’「」『』,;:?!.。？！，]+?){_QUOTED}?"
    r"\s*(?=[,;:?!.。？！，]|$|\s+(?:what|which|how|who|why|when|where|does|do|is|are|did|can|and|please)\b)", re.I)
# "in the vision topic", "the «speech / latent» topic"
_NAMED_BEFORE = re.compile(rf"{_LEAD_IN}\b(?:the|this|a)\s+{_QUOTED}?(?P<name>[\w\s/'-]{{2,60}}?){_QUOTED}?\s+topic\b", re.I)
_NAMED_ZH = re.compile(rf"在?\s*{_QUOTED}?(?P<name>[^「」『』“”\"，。？、：:在]{{1,30}}?){_QUOTED}?\s*(?:这个)?(?:主题|话题)(?:下|中|里|内)?")
_NAMED_ZH_AFTER = re.compile(rf"(?:主题|话题)\s*[:：]?\s*{_QUOTED}?(?P<name>[^「」『』“”\"，。？]+?){_QUOTED}?\s*(?=[，。？,?]|$)")
# "papers about X", "research on X", "the documents in X"
_BODY_OF_WORK = re.compile(
    r"\b(?:papers?|documents?|articles?|works?|research|studies|literature)\s+(?:about|on|in|regarding|covering)\s+"
    r"(?:the\s+)?(?P<name>[\w\s/'-]+?)\s*(?=[,;:?!.]|$|\s+(?:what|which|how|who|why|when|where|does|do|is|are|did|say|says|said|and|that|use)\b)",
    re.I)
_ABOUT = re.compile(r"\babout\s+(?:the\s+)?(?P<name>[\w\s/'-]+?)\s*(?=[,;:?!.]|$)", re.I)
# function words a topic's name may carry ("the topic of ..."), and the word "topic" itself
_STOP = frozenset("the a an of and or in on for to with about this that these those".split()) | {"topic", "topics"}


@dataclass(frozen=True)
class Topic:
    """One topic as ``list_topics`` describes it."""

    topic_id: str
    label: str
    keyphrases: tuple[str, ...] = ()
    documents: tuple[str, ...] = ()  # document titles, best first
    doc_ids: tuple[str, ...] = ()
    name: str = ""  # a better name given by someone else (an LLM), matched like the label

    @property
    def names(self) -> list[str]:
        """The exact forms that name this topic: id, label, name, and each part of the label."""
        parts = [p.strip() for p in self.label.split(" / ")]
        return [n for n in dict.fromkeys([self.topic_id, self.label, self.name, *parts]) if n]


@dataclass(frozen=True)
class Scope:
    topic: Topic
    named: str  # the words of the question that named it
    how: str = field(default="topic")  # topic | work | about
    rest: str = ""  # the question without its "in the topic X" clause (what slot filling reads)


def parse_topics(structured: dict | None) -> list[Topic]:
    """Topics from ``list_topics``' structured content (empty when it has none)."""
    out = []
    for t in (structured or {}).get("topics") or []:
        if isinstance(t, dict) and t.get("topic_id") and t.get("label"):
            docs = [d for d in t.get("documents") or [] if isinstance(d, dict)]
            out.append(Topic(str(t["topic_id"]), str(t["label"]), tuple(map(str, t.get("keyphrases") or ())),
                             tuple(str(d.get("title") or d.get("doc_id")) for d in docs),
                             tuple(str(d.get("doc_id")) for d in docs), str(t.get("name") or "")))
    return out


_CLAUSE = (  # a topic clause that leads or ends the question, set off by punctuation
    re.compile(rf"^\s*(?:(?:in|within|under|inside|for|on|about)\s+)?(?:the\s+)?(?:topic(?:\s+of)?\s*:?\s*{_QUOTED}?[^,:;—\"“”]+?"
               rf"{_QUOTED}?|{_QUOTED}?[^,:;—\"“”]+?{_QUOTED}?\s+topic)\s*[,:;—–-]\s*", re.I),
    re.compile(r"[,;]\s*(?:in|within|under)\s+(?:the\s+)?(?:topic\s+[^,:;?]+?|[^,:;?]+?\s+topic)\s*(?=[?？.!]?\s*$)", re.I),
    re.compile(rf"^\s*在?\s*{_QUOTED}?[^，,：:]+?{_QUOTED}?\s*(?:主题|话题)(?:下|中|里|内)?\s*[，,：:]\s*"),
    re.compile(r"^\s*(?:主题|话题)\s*[：:]\s*[^，,]+?[，,]\s*"),
)


def without_topic_clause(question: str) -> str:
    """The question without a leading or trailing "in the topic X" clause, whether or not X names a
    topic: what the router classifies ("In the topic \"reward / policy\": how is …" is factual)."""
    for pat in _CLAUSE:
        if (m := pat.search(question)) is not None and m.end() - m.start() < len(question):
            return _without(question, m.start(), m.end())
    return question


def has_cue(question: str) -> bool:
    """Whether the question could name a topic at all (cheap: no hub call without a cue)."""
    return bool(_TOPIC_WORD.search(question) or _BODY_OF_WORK.search(question) or _ABOUT.search(question))


def match(question: str, topics: list[Topic]) -> Scope | None:
    """The topic the question names, or None (see the module docstring for the three cases)."""
    if not topics:
        return None
    if _TOPIC_WORD.search(question):
        for pat in (_NAMED_AFTER, _NAMED_BEFORE, _NAMED_ZH_AFTER, _NAMED_ZH):
            for m in pat.finditer(question):
                if (t := _covered(m.group("name"), topics)) is not None:
                    return Scope(t, m.group("name").strip(), "topic", _without(question, m.start(), m.end()))
    for m in _BODY_OF_WORK.finditer(question):
        if (t := _exact(m.group("name"), topics, keyphrases=3)) is not None:
            return Scope(t, m.group("name").strip(), "work", question)
    for m in _ABOUT.finditer(question):
        if (t := _exact(m.group("name"), topics, keyphrases=0, whole=True)) is not None:
            return Scope(t, m.group("name").strip(), "about", question)
    return None


def _without(question: str, start: int, end: int) -> str:
    """The question with the span that named the topic cut out, and the punctuation around it."""
    rest = (question[:start].rstrip(" ,:;—–-") + " " + question[end:].lstrip(" \"”'」』,:;—–-，：")).strip()
    rest = re.sub(r"\s+(?=[?？!.。])", "", rest)
    return (rest[:1].upper() + rest[1:]) if rest else question


def _words(text: str) -> list[str]:
    return [singular(w) for w in TOPIC_NAME_WORD.findall(text) if w.lower() not in _STOP]


def _exact(name: str, topics: list[Topic], keyphrases: int, whole: bool = False) -> Topic | None:
    """The one topic named exactly: by a form of :attr:`Topic.names` (``whole``: its whole label or
    given name only) or one of its first ``keyphrases`` keyphrases."""
    want = _words(name)
    if not want:
        return None
    hits = [t for t in topics if any(_words(n) == want for n in [
        *([t.label, t.name] if whole else t.names), *t.keyphrases[:keyphrases]] if n)]
    return hits[0] if len(hits) == 1 else None


def _covered(name: str, topics: list[Topic]) -> Topic | None:
    """The one topic whose label (or one keyphrase) the named words cover best, at least half."""
    want = set(_words(name))
    if not want:
        return None
    exact = _exact(name, topics, keyphrases=len(max((t.keyphrases for t in topics), key=len)))
    if exact is not None:
        return exact
    scored = []
    for t in topics:
        best = 0.0
        for n in [*t.names, *t.keyphrases]:
            have = set(_words(n))
            if have and want & have:
                best = max(best, len(want & have) / max(len(have), len(want)))
        scored.append((best, t))
    scored.sort(key=lambda s: -s[0])
    if scored[0][0] >= 0.5 and (len(scored) == 1 or scored[1][0] < scored[0][0]):
        return scored[0][1]
    return None


async def fetch_topics(hub: Any, collection: str) -> list[Topic]:
    """The collection's topics from the hub; none when the hub has no ``list_topics`` (an upstream
    server, a test double) or the call fails (scoping is optional, never a failed turn)."""
    call = getattr(hub, "list_topics", None)
    if call is None:
        return []
    try:
        res = await call(collection)
    except Exception:  # noqa: BLE001 - ToolError, an unknown tool: no scoping
        return []
    return parse_topics(getattr(res, "structured", None))
