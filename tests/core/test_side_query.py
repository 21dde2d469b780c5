"""A comparison's side searches: over a hub that can scope a search to a paper, each side's searches
ask the question of that side alone (the rival's name taken out); over one that cannot, the whole
question.

Taken out everywhere (session 16), "Compare LoRA and QLoRA" left an upstream server (no scoping)
nothing to search for but one name per side: each side read whichever chunks merely mention its
name, and the draft's table failed the critic in 10 of 12 tie orders of the upstream stub.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from core.state import AgentState
from core.strategies.comparative import plan_queries, retrieve_side, scoped_query
from core.types import Intent, RetrievedContext
from core.vocabulary import Vocabulary

PAPERS = {"lora": "LoRA: Low-Rank Adaptation", "qlora": "QLoRA: Efficient Finetuning"}


class RecordingHub:
    """A hub whose search answers one chunk of each paper, and records what it was asked."""

    def __init__(self, scopes: bool) -> None:
        self.asked: list[tuple[str, str | None]] = []
        self.scopes = scopes

    def searches_by(self, param: str) -> bool:
        return self.scopes and param == "doc_id"

    async def search(self, query: str, top_k: int, collection: str, **scope) -> list[RetrievedContext]:
        self.asked.append((query, scope.get("doc_id")))
        docs = [scope["doc_id"]] if "doc_id" in scope else list(PAPERS)
        return [RetrievedContext(content=f"{PAPERS[d]} text for {query}", chunk_id=f"{d}-{len(self.asked)}",
                                 doc_id=d, title=PAPERS[d], source=f"{d}.md") for d in docs]


def _sides(hub: RecordingHub, question: str) -> list[tuple[str, str | None]]:
    ctx = SimpleNamespace(hub=hub, collection="c", doc_id=None, vocabulary=Vocabulary(),
                          settings=SimpleNamespace(agent=SimpleNamespace(top_k=5)))
    state = AgentState(question=question, intent=Intent(type="comparative", confidence=1.0, entities=["LoRA", "QLoRA"]))
    planned = plan_queries(["LoRA", "QLoRA"], [], question)

    async def run() -> None:
        for entity, query in planned:
            await retrieve_side(ctx, state, entity, query, ["LoRA", "QLoRA"])

    asyncio.run(run())
    return hub.asked


def test_a_hub_that_scopes_is_asked_the_question_of_each_side_alone():
    asked = _sides(RecordingHub(scopes=True), "How do LoRA and QLoRA differ in what they train?")
    assert asked == [("LoRA: How do LoRA and differ in what they train?", None),
                     ("LoRA: How do LoRA and differ in what they train?", "lora"),
                     ("QLoRA: How do and QLoRA differ in what they train?", None),
                     ("QLoRA: How do and QLoRA differ in what they train?", "qlora")]


def test_a_hub_that_cannot_scope_is_asked_the_whole_question_on_every_side():
    asked = _sides(RecordingHub(scopes=False), "Compare LoRA and QLoRA")
    assert asked == [("LoRA: Compare LoRA and QLoRA", None), ("QLoRA: Compare LoRA and QLoRA", None)]


def test_a_name_inside_a_longer_name_is_not_cut_out_of_it():
    ctx = SimpleNamespace(vocabulary=Vocabulary())
    assert scoped_query(ctx, "Compare QLoRA with LoRA", "QLoRA", ["QLoRA", "LoRA"]) == "Compare QLoRA with"
    assert scoped_query(ctx, "Compare QLoRA with LoRA", "LoRA", ["QLoRA", "LoRA"]) == "Compare with LoRA"


def test_dimensions_still_phrase_the_side_queries():
    assert plan_queries(["A1", "B2"], ["memory"], "Compare A1 and B2 in memory") == [("A1", "A1 memory"), ("B2", "B2 memory")]
