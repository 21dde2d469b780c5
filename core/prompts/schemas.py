"""What the LLM is asked to return, one schema per judgement.

These are the tool/JSON schemas the model sees (field descriptions become its instructions), kept
apart from the graph's own types: the model never decides ``passed``/``forced`` for the critic or
which router answered; the brain computes those. ``key_aliases`` lists keys models commonly use
instead of ours; :mod:`core.brains.llm.structured` renames them.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import BaseModel, Field

from core.types import IntentType, SufficiencyLevel


class IntentClassification(BaseModel):
    """The intent of a research question."""

    type: IntentType = Field(description="factual | comparative | multi_hop | exploratory | follow_up")
    confidence: float = Field(0.5, ge=0, le=1, description="how sure you are, 0..1")
    key_aliases: ClassVar[dict[str, str]] = {"intent": "type", "label": "type", "category": "type",
                                              "intent_type": "type", "class": "type", "score": "confidence",
                                              "probability": "confidence"}


class Slots(BaseModel):
    """Slots of a research question, for retrieval."""

    entities: list[str] = Field(default_factory=list, description="papers, methods, models, concepts named or implied")
    dimensions: list[str] = Field(default_factory=list, description="aspects to compare (comparative questions)")
    constraints: dict = Field(default_factory=dict, description="implicit constraints, e.g. model_scale, year")
    reformulated_query: str = Field("", description="a self-contained, unambiguous search query")
    key_aliases: ClassVar[dict[str, str]] = {"query": "reformulated_query", "rewritten_query": "reformulated_query",
                                              "search_query": "reformulated_query", "rewrite": "reformulated_query",
                                              "aspects": "dimensions", "criteria": "dimensions", "entity": "entities"}


class Plan(BaseModel):
    """An ordered list of sub-questions; each is one retrieval."""

    sub_questions: list[str] = Field(description="ordered, standalone search questions")
    reason: str = Field("", description="one sentence on why this plan")
    key_aliases: ClassVar[dict[str, str]] = {"questions": "sub_questions", "steps": "sub_questions",
                                              "plan": "sub_questions", "subquestions": "sub_questions",
                                              "queries": "sub_questions", "rationale": "reason"}


class Replan(BaseModel):
    """What to do after executing a plan step."""

    action: Literal["next_step", "replan", "synthesize"] = Field(description="next_step | replan | synthesize")
    reason: str = Field("", description="one sentence")
    key_aliases: ClassVar[dict[str, str]] = {"decision": "action", "next": "action", "choice": "action",
                                              "rationale": "reason", "explanation": "reason"}


class ReactChoice(BaseModel):
    """One ReAct step: a thought and an action."""

    thought: str = Field("", description="what is known, what is missing, what to do next")
    action: Literal["search", "finish"] = Field(description="search | finish")
    query: str = Field("", description="the search query when action is search")
    key_aliases: ClassVar[dict[str, str]] = {"reasoning": "thought", "thoughts": "thought", "next_action": "action",
                                              "action_input": "query", "search_query": "query", "input": "query"}


class Sufficiency(BaseModel):
    """Whether the evidence answers the question."""

    level: SufficiencyLevel = Field(description="fully_sufficient | partially_sufficient | contradictory | insufficient")
    reason: str = Field("", description="one sentence")
    missing: list[str] = Field(default_factory=list, description="what is still missing")
    key_aliases: ClassVar[dict[str, str]] = {"sufficiency": "level", "judgement": "level", "judgment": "level",
                                              "verdict": "level", "rationale": "reason", "gaps": "missing"}


class Critique(BaseModel):
    """A strict review of a draft answer against its evidence."""

    score: float = Field(ge=0, le=10, description="overall quality 0..10")
    completeness: float = Field(ge=0, le=1, description="share of the question's parts answered, 0..1")
    faithfulness: float = Field(ge=0, le=1, description="share of claims supported by the contexts, 0..1")
    citations_ok: bool = Field(True, description="every claim carries a valid [n] citation")
    issues: list[str] = Field(default_factory=list, description="concrete problems")
    feedback: str = Field("", description="what the next attempt must change")
    suggested_queries: list[str] = Field(default_factory=list, description="searches that would fill the gaps")
    key_aliases: ClassVar[dict[str, str]] = {"overall": "score", "overall_score": "score", "quality": "score",
                                              "faithful": "faithfulness", "groundedness": "faithfulness",
                                              "complete": "completeness", "coverage": "completeness",
                                              "citation_ok": "citations_ok", "citations": "citations_ok",
                                              "problems": "issues", "queries": "suggested_queries",
                                              "comments": "feedback", "suggestions": "feedback"}


class Refinement(BaseModel):
    """How the next attempt changes after a failed critique (Reflexion)."""

    reflection: str = Field(description="what went wrong and what to do differently")
    extra_queries: list[str] = Field(default_factory=list, description="up to 3 new search queries")
    reformulated_query: str | None = Field(None, description="a better main query, or null")
    key_aliases: ClassVar[dict[str, str]] = {"queries": "extra_queries", "new_queries": "extra_queries",
                                              "search_queries": "extra_queries", "plan": "reflection",
                                              "refined_question": "reformulated_query", "query": "reformulated_query"}


class Facts(BaseModel):
    """Durable facts worth remembering from an answer."""

    facts: list[str] = Field(default_factory=list, description="short, self-contained factual sentences")
    key_aliases: ClassVar[dict[str, str]] = {"items": "facts", "statements": "facts", "memories": "facts"}
