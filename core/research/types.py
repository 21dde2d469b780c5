"""Value types of a deep-research run (design 002): clarifying questions, the outline, per-point
results and the finished review. Imports only Pydantic and :mod:`core.types`."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from core.types import Source

# initial → clarification (optional) → confirmation (outline shown, waiting for the user)
# → searching → review (the finished review is stored at this stage)
ResearchStage = Literal["initial", "clarification", "confirmation", "searching", "review"]
RESEARCH_STAGES: tuple[str, ...] = ("initial", "clarification", "confirmation", "searching", "review")
Importance = Literal["high", "medium", "low"]


class ClarifyingQuestion(BaseModel):
    id: int
    question: str
    purpose: Literal["scope", "focus", "time range", "depth"] | str = "scope"


class KnowledgePoint(BaseModel):
    id: str  # "KP1", ...
    category: str
    topic: str
    search_keywords: list[str] = Field(default_factory=list)
    importance: Importance = "medium"


class Outline(BaseModel):
    title: str
    knowledge_points: list[KnowledgePoint]
    search_strategy: str = ""


class PointCoverage(BaseModel):
    """One knowledge point in the finished review: what was kept for it and whether the review covers it."""

    point_id: str
    topic: str
    category: str = ""
    importance: Importance = "medium"
    source_indices: list[int] = Field(default_factory=list)  # [n] of the review's sources kept under this point
    also_under: dict[str, list[str]] = Field(default_factory=dict)  # chunk_id → other points that found it
    covered: bool = True


class ResearchReview(BaseModel):
    title: str
    markdown: str
    sources: list[Source] = Field(default_factory=list)  # [n] → retrieved chunk, validated like answers
    points: list[PointCoverage] = Field(default_factory=list)
    gaps: list[str] = Field(default_factory=list)
    uncovered: list[str] = Field(default_factory=list)  # high-importance points still uncovered after the retry
    retried_points: list[str] = Field(default_factory=list)
