"""Value types below everything: what events carry, what brains return, what the graph's shape is.

This module imports only Pydantic, the standard library and :mod:`core.text` (which imports nothing
else of core), so the app can import
:mod:`core.events` (which builds on it) before first paint, and ``memory``, ``prompts``, ``tools``
and ``models`` can share these types without importing brains or LangGraph.
The facts about the graph that a consumer would otherwise re-declare (which strategy answers an
intent, which steps each strategy runs) live here too.
"""

from __future__ import annotations

import re

from typing import Literal

from pydantic import BaseModel, Field

from core.text import short_title

IntentType = Literal["factual", "comparative", "multi_hop", "exploratory", "follow_up"]
StrategyName = Literal["simple", "multi_hop", "comparative", "exploratory"]
SufficiencyLevel = Literal["fully_sufficient", "partially_sufficient", "contradictory", "insufficient"]
SynthesisKind = Literal["simple", "follow_up", "multi_hop", "comparative", "exploratory"]

INTENT_TYPES: tuple[str, ...] = ("factual", "comparative", "multi_hop", "exploratory", "follow_up")
STRATEGIES: tuple[str, ...] = ("simple", "multi_hop", "comparative", "exploratory")

# Which strategy answers an intent; follow-ups are answered by ``simple`` with history.
INTENT_STRATEGY: dict[str, str] = {
    "factual": "simple", "follow_up": "simple", "comparative": "comparative",
    "multi_hop": "multi_hop", "exploratory": "exploratory",
}
# The main graph's nodes in drawing order, and each strategy's steps. For multi_hop and exploratory
# these are the subgraph's node names; simple and comparative are single nodes with these phases.
MAIN_NODES: tuple[str, ...] = ("load_memory", "route", "slot_fill", *STRATEGIES, "critic", "retry_refine",
                               "save_memory", "format_output")
STRATEGY_STEPS: dict[str, tuple[str, ...]] = {
    "simple": ("retrieve", "synthesize"),
    "multi_hop": ("plan", "execute", "replan", "synthesize"),
    "comparative": ("plan", "retrieve", "synthesize"),
    "exploratory": ("think", "act", "observe", "synthesize"),
}
STRATEGY_PARADIGM: dict[str, str] = {
    "simple": "Direct", "multi_hop": "Plan-and-Execute", "comparative": "ReWOO", "exploratory": "ReAct",
}


def node_path(node: str, graph: str = "main") -> str:
    """The one spelling of a node's place: ``route`` in the main graph, ``multi_hop.plan`` inside one."""
    return node if graph == "main" else f"{graph}.{node}"


class Intent(BaseModel):
    """Router output (type, confidence) completed by slot filling."""

    type: IntentType
    confidence: float = Field(ge=0, le=1)
    entities: list[str] = Field(default_factory=list)
    dimensions: list[str] = Field(default_factory=list)
    constraints: dict = Field(default_factory=dict)
    reformulated_query: str = ""
    router: str = "rules"  # which classifier decided: rules | lora:<name> | llm:<model>

    def to_strategy(self) -> StrategyName:
        """The strategy node for this intent (:data:`INTENT_STRATEGY`)."""
        return INTENT_STRATEGY[self.type]  # type: ignore[return-value]


class DocMeta(BaseModel):
    """A cited document's bibliographic metadata, as the hub gives it (all optional)."""

    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    citation_key: str | None = None

    def empty(self) -> bool:
        return not (self.authors or self.year or self.venue or self.doi or self.arxiv_id or self.citation_key)

    def publication(self, title: str) -> str:
        """One sentence of what the metadata says about the paper ``title``: who wrote it, and where
        and when it was published ("" when it says none of these). The brain quotes it for a question
        about a paper's publication, and a citation of the paper supports it."""
        # One sentence to the claim splitter: no full stop inside it. Initials and abbreviations lose
        # theirs ("Edward J Hu", "Proc VLDB Endow"), a title's own end mark becomes a colon, and a long
        # author list ends "and others" rather than "et al." (the form an exported citation uses).
        names = [_unstop(a) for a in self.authors if a.strip()]
        who = (", ".join(names[:-1]) + f" and {names[-1]}" if 1 < len(names) <= 3
               else f"{', '.join(names[:3])} and others" if names[3:] else "".join(names))
        where = _unstop(self.venue or "")
        when = str(self.year) if self.year and str(self.year) not in where else ""
        name = re.sub(r"[.!?]+\s+", ": ", short_title(title))
        if where or when:
            return f"{name}{f' ({who})' if who else ''} was published in {', '.join(p for p in (where, when) if p)}."
        return f"{name} was written by {who}." if who else ""


def _unstop(text: str) -> str:
    """An author's name or a venue without the full stops of its initials and abbreviations."""
    return re.sub(r"\b([A-Za-z][a-z]{0,5})\.(?=\s|$)", r"\1", " ".join(text.split())).strip(" .,;")


class RetrievedContext(BaseModel):
    """One retrieved chunk, as the knowledge hub returned it."""

    content: str
    source: str = ""
    title: str = ""
    doc_id: str = ""
    chunk_id: str
    relevance_score: float = 0.0
    chunk_index: int | None = None
    breadcrumb: str = ""
    page: int | None = None
    url: str | None = None
    query: str = ""  # the query that found it
    entity: str | None = None  # comparative: the entity whose retrieval found it
    meta: DocMeta | None = None  # its document's bibliographic metadata, when the hub gives it


class SufficiencyJudgement(BaseModel):
    """Whether the evidence so far answers the question (ADR: adaptive retrieval)."""

    level: SufficiencyLevel
    reason: str = ""
    missing: list[str] = Field(default_factory=list)


class CriticVerdict(BaseModel):
    """The critic's judgement of a draft (Reflexion)."""

    passed: bool
    score: float = Field(ge=0, le=10)
    completeness: float = Field(ge=0, le=1)
    faithfulness: float = Field(ge=0, le=1)
    feedback: str = ""
    issues: list[str] = Field(default_factory=list)
    suggested_queries: list[str] = Field(default_factory=list)
    forced: bool = False


class Source(BaseModel):
    """A citation in the final answer: ``[index]`` maps to a chunk retrieved in this turn."""

    index: int
    chunk_id: str
    doc_id: str = ""
    title: str = ""
    source: str = ""
    breadcrumb: str = ""
    page: int | None = None
    score: float = 0.0
    text: str = ""
    url: str | None = None  # a web fallback result's page (arXiv abs URL, ...)
    meta: DocMeta | None = None  # the document's authors, year, venue, DOI, arXiv id, citation key


class Turn(BaseModel):
    """One previous exchange, as history is shown to brains."""

    question: str
    answer: str
    entities: list[str] = Field(default_factory=list)


class RouteDecision(BaseModel):
    """What a router returns: the intent type, a calibrated confidence and who decided."""

    type: IntentType
    confidence: float = Field(ge=0, le=1)
    router: str = "rules"
    scores: dict[str, float] = Field(default_factory=dict)


class SynthesisRequest(BaseModel):
    """Everything a brain needs to draft an answer."""

    kind: SynthesisKind
    question: str
    intent: Intent
    contexts: list[RetrievedContext]
    sub_questions: list[str] = Field(default_factory=list)
    prior_facts: list[str] = Field(default_factory=list)  # long-term memory, never citations
    history: list[Turn] = Field(default_factory=list)  # only filled for follow_up
    reflections: list[str] = Field(default_factory=list)  # critic feedback from earlier attempts


class NodeUsage(BaseModel):
    """The LLM calls one node made in a turn (its path as :func:`node_path` spells it)."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float = 0.0  # US dollars


class TurnResult(BaseModel):
    """What ``ask --json`` prints and what the app shows when a turn ends."""

    question: str
    session_id: str
    trace_id: str
    intent: Intent | None
    strategy: str
    final_answer: str
    sources: list[Source]
    critic: CriticVerdict | None
    retry_count: int
    llm_calls: int
    tokens: dict[str, int]
    cost: float = 0.0  # US dollars for the turn's LLM calls (llm.pricing)
    llm_by_node: dict[str, NodeUsage] = Field(default_factory=dict)
    timings_ms: dict[str, float]
    recalled_facts: list[str] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list)
    hub: str = ""  # which hub connection answered, e.g. "hub (stdio)" or "hub (daemon :PORT)"
    used_web_fallback: bool = False  # the answer was written from a web search (stage K)
    web_query: str = ""  # that search's query, and how many results it gave ("", 0: no search)
    web_result_count: int = 0
