"""Pure state updates: per-turn state declared once, reset as one value; checkpoints from before still open."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path
from types import SimpleNamespace

from core.brains.offline.brain import OfflineBrain
from core.events import NodeFinished, TurnFinished
from core.nodes.retry_refine import retry_refine_node
from core.brains.base import RefinePlan
from core.state import AgentState, AttemptState, TurnState, turn_input
from core.telemetry import capture
from core.types import CriticVerdict, Intent, RetrievedContext, SufficiencyJudgement
from tests.integration.helpers import settings

LEGACY = Path(__file__).parents[1] / "data" / "legacy_checkpoints.sqlite3"


class Hub:
    describe = "in-process"
    notices: list = []

    async def search(self, query, top_k=5, collection=None):
        return [RetrievedContext(content="LoRA uses rank r = 8 by default in PEFT; the paper tries r = 1 to 64.",
                                 chunk_id=f"lora_{i:04d}", doc_id="lora", title="LoRA") for i in range(2)]


def _mid_attempt_state() -> AgentState:
    ctx = RetrievedContext(content="x", chunk_id="c1")
    verdict = CriticVerdict(passed=False, score=4, completeness=0.4, faithfulness=1, feedback="say more")
    return AgentState(
        question="q", turn_id="t", intent=Intent(type="exploratory", confidence=0.9),
        sub_questions=["a", "b"], plan_revisions=1, retrieved_contexts=[ctx], retrieval_queries=["a"],
        observations=[SufficiencyJudgement(level="insufficient")], current_react_step=3, draft_answer="draft",
        next_action="synthesize", critic_verdict=verdict, best_draft="draft", best_contexts=[ctx],
        best_verdict=verdict, reflections=["r0"], accumulated_facts=["f"], max_retries=3)


async def test_a_retry_resets_the_attempt_as_one_value_and_keeps_the_turn():
    class Brain:
        async def refine(self, question, intent, verdict):
            return RefinePlan(reflection="look again", extra_queries=["more"], reformulated_query="q sharper")

    state = _mid_attempt_state()
    with capture(lambda ev: None):
        update = await retry_refine_node(state, SimpleNamespace(context=SimpleNamespace(brain=Brain())))
    after = state.model_copy(update=update)
    assert {k: getattr(after, k) for k in AttemptState.model_fields} == AttemptState().model_dump()
    assert (after.retry_count, after.reflections, after.refine_queries) == (1, ["r0", "look again"], ["more"])
    assert after.refined_query == "q sharper"
    kept = set(TurnState.model_fields) - set(AttemptState.model_fields) - {
        "retry_count", "reflections", "refine_queries", "refined_query"}
    assert {k: getattr(after, k) for k in kept} == {k: getattr(state, k) for k in kept}


def test_a_new_turn_resets_every_per_turn_field():
    inp = turn_input("q2", "t2", max_retries=4, max_react_steps=6)
    assert set(inp) == set(AgentState.model_fields)
    fresh = TurnState(question="q2", turn_id="t2", max_retries=4, max_react_steps=6)
    assert {k: v for k, v in inp.items() if k != "messages"} == dict(fresh)


async def test_nodes_update_only_declared_state():
    """No node smuggles extra keys (a trace line, a typo) into LangGraph's state."""
    from core.agent import Agent
    from core.nodes.common import AgentContext

    s = settings(router="rules", critic="rules")
    s.memory.enabled = False
    agent = Agent(s, OfflineBrain(s), Hub())
    declared = set(AgentState.model_fields)
    for q in ("What rank does LoRA use by default?", "Compare LoRA and QLoRA on memory.",
              "How did LoRA influence the method QLoRA builds on?", "Give me an overview of parameter-efficient fine-tuning."):
        ctx = AgentContext(settings=s, brain=agent.brain, hub=agent.hub)
        inp = turn_input(q, "t", max_retries=1, max_react_steps=3)
        async for _ns, chunk in agent.graph.astream(inp, context=ctx, stream_mode="updates", subgraphs=True):
            for node, update in chunk.items():
                assert set(update or {}) <= declared, (node, set(update) - declared)


async def test_a_session_saved_before_turn_state_still_opens_and_continues(tmp_path, caplog):
    from core.agent import Agent
    from core.memory.checkpoints import open_checkpointer

    db = tmp_path / "checkpoints.sqlite3"
    shutil.copy(LEGACY, db)
    s = settings(router="rules", critic="rules")
    s.memory.enabled = False
    with caplog.at_level(logging.WARNING):
        async with open_checkpointer(db) as saver:
            agent = Agent(s, OfflineBrain(s), Hub(), checkpointer=saver)
            [before] = await agent.history("legacy-session")
            assert before.question == "What rank does LoRA use by default?" and "8" in before.answer
            events = [ev async for ev in agent.run_turn("And what rank does the paper try?", "legacy-session")]
            assert isinstance(events[-1], TurnFinished), events[-1]
            assert all(ev.ok for ev in events if isinstance(ev, NodeFinished))
            assert [t.question for t in await agent.history("legacy-session")] == [
                "What rank does LoRA use by default?", "And what rank does the paper try?"]
    assert not [r for r in caplog.records if "deserializ" in r.getMessage().lower()], caplog.text
