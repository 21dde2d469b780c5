"""Deep-research prompts: clarifying questions, the outline, one review section per point.

The reply schemas live here too (the model sees their field descriptions); the brain checks every
reply in code before the run uses it (:mod:`core.research.llm`). The section prompt numbers the
point's chunks with their positions in the run's evidence, so a marker maps back to a chunk the
hub returned, and the same citation check as answers then runs over it.
"""

from __future__ import annotations

import json
from typing import ClassVar

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, Field

from core.prompts.common import bullets, chat, context_header, clip, CONTEXT_CHARS
from core.research.types import ClarifyingQuestion, KnowledgePoint
from core.types import RetrievedContext


class QuestionDraft(BaseModel):
    question: str = Field(description="one short question to the user")
    purpose: str = Field("scope", description="scope | focus | time range | depth")


class Questions(BaseModel):
    """Two to four clarifying questions before a literature review."""

    questions: list[QuestionDraft] = Field(description="2-4 questions: scope, focus, time range, depth")
    key_aliases: ClassVar[dict[str, str]] = {"clarifying_questions": "questions", "items": "questions"}


class PointDraft(BaseModel):
    category: str = Field(description="the theme this point belongs to")
    topic: str = Field(description="what this point covers, e.g. 'LoRA: low-rank adapters'")
    search_keywords: list[str] = Field(default_factory=list, description="2-4 search phrases")
    importance: str = Field("medium", description="high | medium | low")
    key_aliases: ClassVar[dict[str, str]] = {"keywords": "search_keywords", "theme": "category", "title": "topic"}


class OutlineDraft(BaseModel):
    """An outline for a literature review: knowledge points grouped by category."""

    title: str = Field(description="the review's title")
    knowledge_points: list[PointDraft] = Field(description="3-8 knowledge points")
    search_strategy: str = Field("", description="one sentence on how the points will be searched")
    key_aliases: ClassVar[dict[str, str]] = {"points": "knowledge_points", "sections": "knowledge_points",
                                              "strategy": "search_strategy"}


QUESTIONS_SYSTEM = """
You help plan a literature review of AI/ML papers. Before any search, ask the user two to four short
clarifying questions: the scope (what to include), the focus (which methods or papers), the time
range, and the depth. Ask only what changes the review. Reply with JSON.
"""

OUTLINE_SYSTEM = """
You plan a literature review over the user's own paper library. Propose an outline: a title and three
to eight knowledge points, each with a category (theme), a topic, two to four search keywords and an
importance (high, medium or low). Use only methods and papers named in the topic, the user's answers
or the library listing below; never invent paper titles, years or numbers. Reply with JSON.
"""

SECTION_SYSTEM = """
You write one section of a literature review, only from the numbered passages. Write three to five
sentences in Markdown prose (no heading). Cite every claim with the number of the passage that
supports it, like [4] or [4][7], right after the claim; never cite a number that is not listed; never
invent results, numbers or paper titles. If the passages do not speak to the point, reply exactly:
NO EVIDENCE
"""


def questions_messages(topic: str, library: list[str]) -> list[BaseMessage]:
    return chat(QUESTIONS_SYSTEM, f"Review topic: {json.dumps(topic, ensure_ascii=False)}\n\n"
                                  f"Papers in the library:\n{bullets(library[:20])}")


def outline_messages(topic: str, questions: list[ClarifyingQuestion], answers: dict[str, str],
                     library: list[str]) -> list[BaseMessage]:
    qa = [f"{q.question} → {answers.get(str(q.id), '') or '(no answer)'}" for q in questions]
    return chat(OUTLINE_SYSTEM, f"Review topic: {json.dumps(topic, ensure_ascii=False)}\n\n"
                                f"The user's answers:\n{bullets(qa)}\n\n"
                                f"Papers and methods in the library:\n{bullets(library[:40])}")


def section_messages(point: KnowledgePoint, contexts: list[tuple[int, RetrievedContext]],
                     limit: int = CONTEXT_CHARS) -> list[BaseMessage]:
    passages = "\n\n".join(f"{context_header(n, c)}\n{clip(c.content, limit)}" for n, c in contexts) or "(none)"
    return chat(SECTION_SYSTEM, f"Section: {point.topic} (theme: {point.category})\n"
                                f"Keywords: {', '.join(point.search_keywords)}\n\nPassages:\n{passages}")
