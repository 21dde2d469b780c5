"""A recorded-shape follow-up turn's events, for the trace tests and ``bench/memory.py`` (no pytest import:
the benches run from the default install)."""

from __future__ import annotations

from core import events as ev
from core.state import CriticVerdict, Intent, RetrievedContext, Source, SufficiencyJudgement

HUB_TOKEN = "hubtoken-42-secret"


def turn_events(question: str = "And how much memory does it save compared to full fine-tuning?") -> list:
    """A realistic follow-up turn: route, slots, retrieval, sufficiency, a failed critic, a retry, a pass."""
    t = 1000.0
    intent = Intent(type="follow_up", confidence=0.9, entities=["LoRA"],
                    reformulated_query="How much memory does LoRA save compared to full fine-tuning?")
    ctx = RetrievedContext(content="LoRA reduces GPU memory by 3x.", chunk_id="lora-3", doc_id="lora", title="LoRA")
    verdict_fail = CriticVerdict(passed=False, score=5, completeness=0.5, faithfulness=0.9, feedback="missing numbers")
    verdict_pass = CriticVerdict(passed=True, score=8.5, completeness=0.9, faithfulness=0.95)
    result = ev.TurnResult(
        question=question, session_id="s1", trace_id="t1", intent=intent, strategy="simple",
        final_answer="LoRA reduces GPU memory by about 3x [1].", critic=verdict_pass, retry_count=1,
        sources=[Source(index=1, chunk_id="lora-3", doc_id="lora", title="LoRA")], llm_calls=1,
        tokens={"prompt": 100, "completion": 20}, timings_ms={})
    seq = [
        ev.TurnStarted(question=question, session_id="s1"),
        ev.NodeStarted(node="route"), ev.IntentClassified(intent=intent), ev.NodeFinished(node="route", duration_ms=5, summary="follow_up"),
        ev.NodeStarted(node="slot_fill"), ev.SlotsFilled(intent=intent), ev.NodeFinished(node="slot_fill", duration_ms=3),
        ev.NodeStarted(node="simple"), ev.RetrievalStarted(query=intent.reformulated_query),
        ev.RetrievalFinished(query=intent.reformulated_query, chunk_ids=["lora-3", "lora-4"], duration_ms=30),
        ev.SourcesFound(contexts=[ctx]),
        ev.SufficiencyJudged(judgement=SufficiencyJudgement(level="partially_sufficient", reason="no table")),
        ev.TokenDelta(text="LoRA "), ev.DraftReady(answer="LoRA reduces memory."),
        ev.NodeFinished(node="simple", duration_ms=50),
        ev.NodeStarted(node="critic"), ev.CriticVerdictIssued(verdict=verdict_fail), ev.NodeFinished(node="critic", duration_ms=4),
        ev.RetryStarted(attempt=1, feedback="missing numbers", queries=["LoRA memory savings table"]),
        ev.NodeStarted(node="critic", attempt=1), ev.CriticVerdictIssued(verdict=verdict_pass, attempt=1),
        ev.NodeFinished(node="critic", attempt=1, duration_ms=4),
        ev.LLMCall(purpose="synthesis", model="gpt-4o-mini", prompt_tokens=100, completion_tokens=20, duration_ms=900),
        ev.Notice(level="warning", message=f"retrying after 401 with Authorization: Bearer {HUB_TOKEN}"),
        ev.TurnFinished(result=result),
    ]
    for i, e in enumerate(seq):
        e.ts = t + i * 0.01
        e.turn_id = "t1"
    return seq
