"""One fold and one describer: a recorded turn folds to its summary; every event has its line."""

from __future__ import annotations

import typing

import pytest

from core import events as ev
from core.brains.offline.brain import OfflineBrain
from core.research.types import ClarifyingQuestion, KnowledgePoint, Outline, ResearchReview
from core.tracing.describe import describe, details, node_summary
from core.tracing.fold import apply, fold
from core.types import CriticVerdict, Intent, RetrievedContext, Source, SufficiencyJudgement
from tests.core.test_state import Hub
from tests.integration.helpers import settings

from .test_store import turn_events


def test_a_recorded_turn_folds_to_its_summary():
    s = fold(turn_events())
    assert (s.turn_id, s.session_id, s.question.startswith("And how much"), s.brain) == ("t1", "s1", True, "offline")
    assert (s.intent.type, s.strategy, s.retries, s.max_retries) == ("follow_up", "simple", 1, 2)
    assert s.queries == ["How much memory does LoRA save compared to full fine-tuning?"]
    assert s.chunk_ids == ["lora-3", "lora-4"]
    assert [o.judgement.level for o in s.observations] == ["partially_sufficient"]
    assert [v.verdict.passed for v in s.verdicts] == [False, True] and s.verdict.score == 8.5
    assert s.retry_feedback == ["missing numbers"]
    assert s.final_answer == "LoRA reduces GPU memory by about 3x [1]." and [x.chunk_id for x in s.sources] == ["lora-3"]
    assert (s.llm_calls, s.prompt_tokens, s.completion_tokens) == (1, 100, 20)
    assert [(x.node, x.attempt, x.duration_ms) for x in s.steps] == [
        ("route", 0, 5), ("slot_fill", 0, 3), ("simple", 0, 50), ("critic", 0, 4), ("critic", 1, 4)]
    assert s.timings_ms == {"route": 5, "slot_fill": 3, "simple": 50, "critic": 8, "router": 0}
    assert s.duration_ms == pytest.approx(240) and s.error is None  # 25 events 10 ms apart


def test_a_prefix_folds_too_and_apply_is_the_step():
    events = turn_events()
    live = fold([])
    for e in events[:15]:
        assert apply(live, e) is live
    assert live.result is None and live.final_answer == "LoRA reduces memory." and live.strategy == "simple"
    assert fold(events[:15]) == live


def test_a_failed_turn_folds_to_its_error():
    events = [*turn_events()[:9], ev.TurnFailed(error="knowledge hub unreachable", category="backend", node="simple")]
    s = fold(events)
    assert s.error == "knowledge hub unreachable (in simple)" and s.result is None


async def test_the_turn_result_is_the_fold_of_the_turns_events():
    from core.agent import Agent

    st = settings(router="rules", critic="rules", max_retries=1)
    st.memory.enabled = False
    agent = Agent(st, OfflineBrain(st), Hub())
    events = [e async for e in agent.run_turn("What rank does LoRA use by default?", "s1")]
    finished = events[-1]
    assert isinstance(finished, ev.TurnFinished)
    expected = fold(events[:-1]).to_result().model_dump(exclude={"timings_ms"})
    assert finished.result.model_dump(exclude={"timings_ms"}) == expected
    assert finished.result.final_answer and finished.result.sources and finished.result.critic is not None
    assert set(finished.result.timings_ms) >= {"load_memory", "router", "route", "simple", "critic", "total"}
    assert any(isinstance(e, ev.AnswerReady) for e in events)


def _one_of_each() -> list:
    intent = Intent(type="comparative", confidence=0.8, entities=["LoRA", "QLoRA"], reformulated_query="q")
    verdict = CriticVerdict(passed=False, score=4, completeness=0.4, faithfulness=0.9, feedback="more")
    src = Source(index=1, chunk_id="c1", title="LoRA")
    outline = Outline(title="T", knowledge_points=[KnowledgePoint(id="KP1", category="Methods", topic="LoRA")])
    result = ev.TurnResult(question="q", session_id="s", trace_id="t", intent=intent, strategy="comparative",
                           final_answer="A [1].", sources=[src], critic=verdict, retry_count=0, llm_calls=0,
                           tokens={}, timings_ms={})
    return [
        ev.TurnStarted(question="q", session_id="s"), ev.NodeStarted(node="plan", graph="multi_hop", attempt=1),
        ev.NodeFinished(node="plan", graph="multi_hop", attempt=1, duration_ms=1500, summary="3 steps"),
        ev.IntentClassified(intent=intent), ev.SlotsFilled(intent=intent),
        ev.PlanUpdated(sub_questions=["a", "b"], revision=1, reason="why"), ev.RetrievalStarted(query="q", entity="LoRA"),
        ev.RetrievalFinished(query="q", entity="LoRA", chunk_ids=["c1"], duration_ms=12),
        ev.SourcesFound(contexts=[RetrievedContext(content="x", chunk_id="c1")]), ev.ThoughtEmitted(content="hm", step=2),
        ev.SufficiencyJudged(judgement=SufficiencyJudgement(level="insufficient", reason="thin")),
        ev.ReplanDecided(action="replan", reason="stale"), ev.TokenDelta(text="A "), ev.DraftReady(answer="A [1]."),
        ev.AnswerReady(answer="A [1].", sources=[src], removed_markers=[7]), ev.CriticVerdictIssued(verdict=verdict),
        ev.RetryStarted(attempt=1, feedback="more"), ev.MemoryRecalled(facts=["f"]),
        ev.MemoryWritten(facts=[], skipped_reason="memory off"),
        ev.LLMCall(purpose="critic", model="m", prompt_tokens=3, completion_tokens=4, duration_ms=5),
        ev.Notice(level="warning", message="careful"),
        ev.WebSearched(provider="arxiv", query="mamba", result_count=2, urls=["http://arxiv.org/abs/2312.00752v2"],
                       used=True, duration_ms=210), ev.TurnFinished(result=result),
        ev.TurnFailed(error="boom", category="backend", node="critic"),
        ev.ResearchStarted(topic="t", session_id="s"), ev.ResearchStageChanged(stage="searching", previous="confirmation"),
        ev.ClarificationAsked(questions=[ClarifyingQuestion(id=1, question="Which years?", purpose="time range")]),
        ev.OutlineProposed(outline=outline), ev.OutlineEdited(outline=outline, removed=["KP2"]),
        ev.PointSearched(point_id="KP1", topic="LoRA", index=1, total=2, candidates=20, kept=10, duration_ms=30),
        ev.ResearchWaiting(stage="confirmation", needs="outline"),
        ev.ReviewFinished(review=ResearchReview(title="T", markdown="# T")),
    ]


def test_every_event_class_has_its_own_line():
    samples = _one_of_each()
    assert {type(e) for e in samples} == set(typing.get_args(typing.get_args(ev.Event)[0]))
    for e in samples:
        line = describe(e)
        assert line and line != e.kind and "\n" not in line, e


def test_describe_spells_each_thing_one_way():
    by_kind = {e.kind: e for e in _one_of_each()}
    assert describe(by_kind["node_started"]) == "▸ multi_hop.plan #1"
    assert describe(by_kind["node_finished"]) == "✓ multi_hop.plan #1  1.50 s — 3 steps"
    assert describe(by_kind["retrieval_finished"]) == "search [LoRA] “q” → 1 chunk(s)  12 ms"
    assert describe(by_kind["critic_verdict"]) == "critic: fail 4.0/10 (faithfulness 0.90, completeness 0.40)"
    assert details(by_kind["critic_verdict"]) == ["feedback: more"]
    assert describe(by_kind["answer_ready"]) == "answer: 1 source(s) cited, 1 bad marker removed"
    assert describe(by_kind["turn_failed"]) == "✗ failed (backend, in critic): boom"
    assert details(by_kind["plan_updated"]) == ["1. a", "2. b"]
    assert details(by_kind["turn_finished"]) == ["A [1].", "[1] LoRA  (c1)"]
    assert describe(by_kind["web_search"]) == \
        "web search (arxiv) “mamba” → 2 results, used_web_fallback: the answer rests on them  210 ms"
    assert details(by_kind["web_search"]) == ["· http://arxiv.org/abs/2312.00752v2"]


def test_a_node_is_summarized_from_what_it_emitted():
    found = ev.RetrievalFinished(query="q", chunk_ids=["c1", "c2"])
    again = ev.RetrievalFinished(query="r", chunk_ids=["c2", "c3"])
    draft = ev.DraftReady(answer="x" * 12)
    assert node_summary([ev.RetrievalStarted(query="q"), found, again, ev.TokenDelta(text="x"), draft]) == \
        "2 searches, 3 chunk(s); draft: 12 chars"
    assert node_summary([ev.MemoryWritten(facts=[], skipped_reason="memory off")]) == "memory: skipped (memory off)"
    assert node_summary([]) == ""
