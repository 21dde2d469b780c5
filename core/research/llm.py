"""The LLM brain's part in deep research: questions, outline and sections, each checked in code.

A reply that cannot be parsed (after the caller's one repair request) or fails its check is not
used: that step is answered by the offline brain and a warning Notice says which check failed, as
:mod:`core.brains.llm.checks` does for turns. Checks: 2–4 questions; an outline of 2–10 points whose
topics and keywords bring in no name or number the topic, the answers or the library lack; a section
that keeps at least one valid citation after the citation check.
"""

from __future__ import annotations

from typing import Any

from core.brains.llm.checks import query_problems
from core.events import Notice
from core.prompts import research as prompts
from core.research.types import ClarifyingQuestion, KnowledgePoint, Outline
from core.telemetry import emit
from core.types import RetrievedContext

PURPOSES = ("scope", "focus", "time range", "depth")


def llm_of(brain: Any) -> Any | None:
    """The LLM brain that writes syntheses, if the configured brain has one (else None: offline)."""
    part = brain.brain_for("synthesize") if hasattr(brain, "brain_for") else brain
    return part if hasattr(part, "caller") else None


def _warn(llm: Any, step: str, why: str) -> None:
    emit(Notice(level="warning", source=llm.name,
                message=f"{llm.name}: research {step} {why}; used the offline brain for this step"))


async def questions(llm: Any, topic: str, library: list[str]) -> list[ClarifyingQuestion] | None:
    out = await llm.caller.structured(prompts.Questions, prompts.questions_messages(topic, library),
                                      "research.questions")
    if out is None:
        _warn(llm, "questions", "reply was unusable")
        return None
    items = [q for q in out.questions if q.question.strip()]
    if not 2 <= len(items) <= 4:
        _warn(llm, "questions", f"failed the check: {len(items)} questions (2-4 wanted)")
        return None
    return [ClarifyingQuestion(id=n, question=q.question.strip(),
                               purpose=q.purpose.strip().lower() if q.purpose.strip().lower() in PURPOSES else "scope")
            for n, q in enumerate(items, 1)]


async def outline(llm: Any, topic: str, questions_: list[ClarifyingQuestion], answers: dict[str, str],
                  library: list[str]) -> Outline | None:
    out = await llm.caller.structured(prompts.OutlineDraft,
                                      prompts.outline_messages(topic, questions_, answers, library),
                                      "research.outline")
    if out is None:
        _warn(llm, "outline", "reply was unusable")
        return None
    known = " ".join([topic, *answers.values(), *library]).lower()
    problems: list[str] = []
    if not 2 <= len(out.knowledge_points) <= 10:
        problems.append(f"{len(out.knowledge_points)} knowledge points (2-10 wanted)")
    points = []
    for n, p in enumerate(out.knowledge_points, 1):
        if not p.topic.strip() or not p.category.strip():
            problems.append(f"point {n} has no topic or category")
        for text in [p.topic, *p.search_keywords]:
            problems += query_problems(text, known)
        importance = p.importance.strip().lower()
        points.append(KnowledgePoint(id=f"KP{n}", category=p.category.strip(), topic=p.topic.strip(),
                                     search_keywords=[k.strip() for k in p.search_keywords if k.strip()][:5],
                                     importance=importance if importance in ("high", "medium", "low") else "medium"))
    if problems:
        more = f" (+{len(problems) - 2} more)" if len(problems) > 2 else ""
        _warn(llm, "outline", f"failed the check: {'; '.join(problems[:2])}{more}")
        return None
    return Outline(title=out.title.strip() or f"A review of {topic}", knowledge_points=points,
                   search_strategy=out.search_strategy.strip())


async def section(llm: Any, point: KnowledgePoint, contexts: list[RetrievedContext], indexes: list[int],
                  on_token: Any) -> str | None:
    """The point's section streamed by the model; None when it found no evidence or the reply is empty."""
    if not indexes:
        return None
    numbered = [(n, contexts[n - 1]) for n in indexes]
    text = await llm.caller.stream(prompts.section_messages(point, numbered), "research.section", on_token)
    text = text.strip()
    if not text or text.upper().startswith("NO EVIDENCE"):
        return None
    return text
