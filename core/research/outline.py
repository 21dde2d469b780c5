"""The offline brain's clarifying questions and outline, and reading an outline a user edited.

The outline comes from what the library holds, not from a list of method names: the topic is cut
into facets ("Parameter-efficient fine-tuning and alignment of LLMs" → two facets), each facet is
searched once through the hub, and the documents that answer it become knowledge points, named by
their entry in the collection's vocabulary (title head, year) with the headings of their hits as
keywords. Each facet also gets an overview point. The answers to the clarifying questions narrow it:
focus names become high-importance points, a scope answer keeps only the facets it names, a time
range drops papers outside it, and the depth answer sets how many points there are.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import ValidationError

from core.brains.offline.slots import extract_entities
from core.brains.offline.text import content_terms, covered, term_set
from core.research.types import ClarifyingQuestion, KnowledgePoint, Outline
from core.types import RetrievedContext
from core.vocabulary import Vocabulary, title_head

DEPTH_POINTS = {"overview": 4, "standard": 6, "detailed": 8}
_FACET_SPLIT = re.compile(r"\s*(?:,|;|/|\band\b|\bvs\.?\b|\bversus\b|\bor\b|&)\s*", re.I)
_YEARS = re.compile(r"\b((?:19|20)\d{2})\b")
_SINCE = re.compile(r"\b(?:since|after|from)\s+((?:19|20)\d{2})\b", re.I)
_UNTIL = re.compile(r"\b(?:before|until|up to|to)\s+((?:19|20)\d{2})\b", re.I)


class OutlineError(ValueError):
    """An outline file that does not validate; the message names the field."""


def facets(topic: str) -> list[str]:
    """The parts of a topic joined by "and", commas, "vs" …; each keeps at least one content word."""
    parts = [p.strip(" .?!") for p in _FACET_SPLIT.split(topic) if p and p.strip(" .?!")]
    parts = [p for p in parts if content_terms(p, drop_frame=True)]
    return parts or [topic.strip()]


def clarifying_questions(topic: str, vocabulary: Vocabulary) -> list[ClarifyingQuestion]:
    """Four questions (scope, focus, time range, depth), each grounded in the topic or the library."""
    parts = facets(topic)
    scope = (f"Should the review cover all of: {'; '.join(parts)}, or only some of them?" if len(parts) > 1
             else f"What should “{topic.strip()}” include, and what should it leave out?")
    papers = [t for t in vocabulary.terms if t.kind == "paper"]
    names = ", ".join([head for head in (title_head(t.name) for t in papers) if head][:6])
    focus = "Which methods or papers should it focus on?" + (f" The library holds, among others: {names}." if names else "")
    years = sorted(t.year for t in papers if t.year)
    span = f" (the indexed papers span {years[0]}–{years[-1]})" if years else ""
    return [
        ClarifyingQuestion(id=1, question=scope, purpose="scope"),
        ClarifyingQuestion(id=2, question=focus, purpose="focus"),
        ClarifyingQuestion(id=3, question=f"Which years should it cover{span}? e.g. “since 2021”, or blank for all.",
                           purpose="time range"),
        ClarifyingQuestion(id=4, question="How deep: an overview (about 4 points), standard (6), or detailed (8)?",
                           purpose="depth"),
    ]


def depth_of(answer: str) -> int:
    low = answer.lower()
    if re.search(r"overview|brief|short|quick|high.level", low):
        return DEPTH_POINTS["overview"]
    if re.search(r"detail|deep|thorough|comprehensive|in.depth", low):
        return DEPTH_POINTS["detailed"]
    m = re.search(r"\b(\d{1,2})\b", low)
    return max(2, min(10, int(m.group(1)))) if m else DEPTH_POINTS["standard"]


def year_range(answer: str) -> tuple[int, int]:
    since, until = _SINCE.search(answer), _UNTIL.search(answer)
    years = [int(y) for y in _YEARS.findall(answer)]
    lo = int(since.group(1)) if since else (min(years) if len(years) >= 2 else 0)
    hi = int(until.group(1)) if until else (max(years) if len(years) >= 2 else 9999)
    return lo, hi


def answer_of(questions: list[ClarifyingQuestion], answers: dict[str, str], purpose: str) -> str:
    for q in questions:
        if q.purpose == purpose:
            return str(answers.get(str(q.id), "")).strip()
    return ""


def paper_of(ctx: RetrievedContext, vocabulary: Vocabulary) -> tuple[str, int]:
    """The name (vocabulary title head) and year of the paper a chunk comes from."""
    title = ctx.title or ctx.source or ctx.doc_id
    head = title_head(title) or title
    term = vocabulary.get(head) or vocabulary.get(title)
    if term is not None:
        return title_head(term.name) or term.name, term.year
    return head, 0


def _doc_terms(ctxs: list[RetrievedContext]) -> frozenset[str]:
    return frozenset().union(*(term_set(f"{c.title} {c.breadcrumb} {c.content}") for c in ctxs))


def specific_terms(terms: list[str], docs: list[frozenset[str]]) -> list[str]:
    """The facet's words that tell its documents apart: a word most hit documents carry
    ("large language models" in every paper) says nothing about which one is on the facet."""
    if len(docs) < 3:
        return terms
    out = [t for t in terms if sum(covered(t, d) for d in docs) / len(docs) < 0.6]
    return out or terms


def _on_topic(have: frozenset[str], terms: list[str]) -> bool:
    """Whether a document's hits carry at least half of the facet's specific words."""
    return not terms or sum(covered(t, have) for t in terms) * 2 >= len(terms)


def build_outline(topic: str, hits: dict[str, list[RetrievedContext]], vocabulary: Vocabulary, *,
                  answers: dict[str, str] | None = None,
                  questions: list[ClarifyingQuestion] | None = None) -> Outline:
    """An outline from the facets' hits (``hits``: facet → the hub's chunks for it, best first)."""
    answers, questions = answers or {}, questions or []
    limit = depth_of(answer_of(questions, answers, "depth"))
    lo, hi = year_range(answer_of(questions, answers, "time range"))
    scope = answer_of(questions, answers, "scope")
    chosen = [f for f in hits if not scope or _named(scope, f)] or list(hits)
    focus_names = extract_entities(answer_of(questions, answers, "focus"), vocabulary, vocabulary.names())
    points: list[KnowledgePoint] = []
    taken: set[str] = set()
    for name in focus_names:
        points.append(KnowledgePoint(id="", category="Focus", topic=name, importance="high",
                                     search_keywords=[name, *(_aliases(name, vocabulary)[:2])]))
        taken.add(name.lower())
    per_facet: list[list[KnowledgePoint]] = []
    shared = shared_headings(hits)
    for facet in chosen:
        category = facet[:1].upper() + facet[1:]
        terms = content_terms(facet, drop_frame=True)
        mine = [KnowledgePoint(id="", category=category, topic=f"Overview of {facet}", importance="high",
                               search_keywords=[facet, *_headings(hits[facet][:5], shared)[:2]])]
        docs: dict[str, list[RetrievedContext]] = {}
        for c in hits[facet]:
            docs.setdefault(c.doc_id or c.source, []).append(c)
        have = {d: _doc_terms(ctxs) for d, ctxs in docs.items()}
        specific = specific_terms(terms, list(have.values()))
        for d, ctxs in docs.items():
            name, year = paper_of(ctxs[0], vocabulary)
            if name.lower() in taken or not _on_topic(have[d], specific) or (year and not lo <= year <= hi):
                continue
            taken.add(name.lower())
            label = f"{name} ({year})" if year else name
            mine.append(KnowledgePoint(id="", category=category, topic=f"{label}: {facet}",
                                       search_keywords=[name, *_headings(ctxs, shared)[:2]]))
        per_facet.append(mine)
    # facets take turns so a short outline still spans every facet
    for rank in range(max((len(m) for m in per_facet), default=0)):
        for mine in per_facet:
            if rank < len(mine) and len(points) < limit:
                points.append(mine[rank])
    for n, p in enumerate(points, 1):
        p.id = f"KP{n}"
        p.search_keywords = list(dict.fromkeys(k for k in p.search_keywords if k))[:5]
    years = f", papers from {lo} to {hi}" if (lo, hi) != (0, 9999) else ""
    strategy = (f"{len(points)} points over {len(chosen)} theme(s){years}: each point searched with its topic "
                f"and keywords (20 candidates per query), reranked to 10, shared chunks kept under the most "
                f"relevant point.")
    return Outline(title=f"A review of {topic.strip().rstrip('?.')}", knowledge_points=points, search_strategy=strategy)


def _named(scope: str, facet: str) -> bool:
    if re.search(r"\b(all|every|both|everything)\b", scope, re.I):
        return True
    have = term_set(scope)
    return any(covered(t, have) for t in content_terms(facet, drop_frame=True))


def _aliases(name: str, vocabulary: Vocabulary) -> list[str]:
    term = vocabulary.get(name)
    return list(term.aliases) if term else []


def _last_heading(c: RetrievedContext) -> str:
    return c.breadcrumb.split(">")[-1].strip() if c.breadcrumb else ""


def shared_headings(hits: dict[str, list[RetrievedContext]]) -> frozenset[str]:
    """Headings found under two or more documents ("Key results", "Relation to other work"): a
    section name papers share says nothing about what one of them is about."""
    docs: dict[str, set[str]] = {}
    for ctxs in hits.values():
        for c in ctxs:
            if last := _last_heading(c).lower():
                docs.setdefault(last, set()).add(c.doc_id or c.source)
    return frozenset(h for h, ids in docs.items() if len(ids) >= 2)


def _headings(ctxs: list[RetrievedContext], shared: frozenset[str] = frozenset()) -> list[str]:
    """The last breadcrumb segment of each hit, generic ones ("Summary", "Problem", and any heading
    in ``shared``) left out."""
    out: list[str] = []
    for c in ctxs:
        last = _last_heading(c)
        if (last and len(last.split()) >= 2 and last.lower() not in shared
                and last.lower() not in (o.lower() for o in out)):
            out.append(last)
    return out


def load_outline(data: Any) -> Outline:
    """An outline from parsed JSON; :class:`OutlineError` naming the first bad field
    (``knowledge_points[2].importance: …``) when it does not validate."""
    if not isinstance(data, dict):
        raise OutlineError("the outline must be a JSON object with title and knowledge_points")
    try:
        outline = Outline.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        raise OutlineError(f"{_path(err['loc'])}: {err['msg']}") from None
    if not outline.knowledge_points:
        raise OutlineError("knowledge_points: the outline has no knowledge points")
    seen: set[str] = set()
    for n, p in enumerate(outline.knowledge_points):
        if not p.id.strip() or p.id in seen:
            raise OutlineError(f"knowledge_points[{n}].id: {'empty' if not p.id.strip() else 'duplicate ' + repr(p.id)}")
        if not p.topic.strip():
            raise OutlineError(f"knowledge_points[{n}].topic: empty")
        seen.add(p.id)
    return outline


def _path(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "outline"


def diff(proposed: Outline, edited: Outline) -> tuple[list[str], list[str], list[str]]:
    """(added, removed, changed) point ids of an edited outline against the proposed one."""
    before = {p.id: p for p in proposed.knowledge_points}
    after = {p.id: p for p in edited.knowledge_points}
    added = [i for i in after if i not in before]
    removed = [i for i in before if i not in after]
    changed = [i for i in after if i in before and after[i] != before[i]]
    return added, removed, changed
