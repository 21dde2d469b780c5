"""A deterministic, scripted agent: the same event stream a real turn produces, with fixed
timestamps and durations, for snapshot tests, screenshots and the TUI benchmark.

It speaks the agent interface the app uses (``brain_name``, ``hub_status``, ``collection``,
``run_turn``, ``history``) and ships in-memory stores with fixed data. Imports ``core.events``
(and so LangGraph), which is fine: it is never on the app's start-up path.
"""

from __future__ import annotations

import asyncio
import re
from contextlib import asynccontextmanager
from types import SimpleNamespace
from typing import Any, AsyncIterator

from core import events as E
from core.state import CriticVerdict, Intent, RetrievedContext, Source, SufficiencyJudgement

T0 = 1_767_225_600.0  # 2026-01-01 00:00 UTC: every scripted timestamp is relative to this

COMPARE_Q = "Compare LoRA and QLoRA in memory use and accuracy"
FOLLOW_Q = "and which one is faster to train?"

CHUNKS = [
    RetrievedContext(content="LoRA freezes the pretrained weights and injects trainable rank decomposition matrices; "
                     "compared to GPT-3 175B fine-tuned with Adam it reduces trainable parameters by 10,000 times "
                     "and GPU memory by 3 times.", title="LoRA: Low-Rank Adaptation of Large Language Models",
                     doc_id="lora", chunk_id="lora#p1-c2", breadcrumb="LoRA > Abstract", page=1,
                     relevance_score=0.91, entity="LoRA"),
    RetrievedContext(content="QLoRA backpropagates through a frozen, 4-bit quantized model into LoRA adapters, "
                     "with 4-bit NormalFloat, double quantization and paged optimizers, so a 65B model can be "
                     "fine-tuned on a single 48GB GPU.", title="QLoRA: Efficient Finetuning of Quantized LLMs",
                     doc_id="qlora", chunk_id="qlora#p1-c1", breadcrumb="QLoRA > Abstract", page=1,
                     relevance_score=0.93, entity="QLoRA"),
    RetrievedContext(content="Guanaco, trained with QLoRA, reaches 99.3% of the performance level of ChatGPT on the "
                     "Vicuna benchmark while preserving full 16-bit fine-tuning task performance.",
                     title="QLoRA: Efficient Finetuning of Quantized LLMs", doc_id="qlora", chunk_id="qlora#p2-c4",
                     breadcrumb="QLoRA > Introduction > Results", page=2, relevance_score=0.88, entity="QLoRA"),
]

COMPARE_ANSWER = """**LoRA vs QLoRA** on memory use and accuracy:

| | LoRA | QLoRA |
|---|---|---|
| Memory use | trains low-rank adapters on frozen weights: 3× less GPU memory [1] | adds a 4-bit NF4 frozen base: a 65B model fits one 48 GB GPU [2] |
| Accuracy | on par with full fine-tuning [1] | matches 16-bit fine-tuning; Guanaco 99.3% of ChatGPT [3] |

QLoRA buys much lower memory with quantization; LoRA is simpler [1][2]."""

FOLLOW_ANSWER = """Following up on LoRA vs QLoRA: **LoRA is faster to train** per step, because QLoRA \
dequantizes its 4-bit weights on every forward and backward pass [1]; QLoRA wins when memory, not time, \
is the limit [2]."""


def _sources(chunks: list[RetrievedContext]) -> list[Source]:
    return [Source(index=n, chunk_id=c.chunk_id, doc_id=c.doc_id, title=c.title, breadcrumb=c.breadcrumb,
                   page=c.page, score=c.relevance_score, text=c.content) for n, c in enumerate(chunks, 1)]


def tokens(text: str) -> list[str]:
    """Split an answer into word-sized stream tokens (whitespace kept)."""
    return re.findall(r"\S+\s*|\s+", text)


class _Clock:
    def __init__(self, start: float) -> None:
        self.t = start

    def __call__(self, ms: float = 1.0) -> float:
        self.t += ms / 1000
        return self.t


def comparative_turn(session_id: str, turn_id: str = "trace-compare", start: float = T0) -> list[Any]:
    """The demo turn: comparative routing, two parallel per-entity retrievals, a table, a passing critic."""
    t = _Clock(start)
    intent = Intent(type="comparative", confidence=0.94, router="rules")
    filled = intent.model_copy(update={"entities": ["LoRA", "QLoRA"], "dimensions": ["memory", "accuracy"],
                                       "reformulated_query": "LoRA vs QLoRA memory use and accuracy"})
    queries = ["LoRA memory accuracy", "QLoRA memory accuracy"]
    evs: list[Any] = [E.TurnStarted(question=COMPARE_Q, session_id=session_id, brain="offline", ts=t(0))]
    evs += _node("load_memory", t, 3, "1 fact recalled", [E.MemoryRecalled(
        facts=["QLoRA quantizes the frozen base model to 4-bit NormalFloat (NF4)."], fact_ids=[1], ts=t())])
    evs += _node("route", t, 4, "comparative (0.94)", [E.IntentClassified(intent=intent, latency_ms=2.0, ts=t(2))])
    evs += _node("slot_fill", t, 6, "entities LoRA, QLoRA", [E.SlotsFilled(intent=filled, ts=t(5))])
    body: list[Any] = [E.PlanUpdated(sub_questions=queries, reason="ReWOO: one retrieval per entity", ts=t())]
    body += [E.RetrievalStarted(query=q, entity=e, ts=t()) for q, e in zip(queries, ["LoRA", "QLoRA"])]
    body += [E.RetrievalFinished(query=queries[0], entity="LoRA", chunk_ids=["lora#p1-c2"], duration_ms=38, ts=t(38)),
             E.RetrievalFinished(query=queries[1], entity="QLoRA", chunk_ids=["qlora#p1-c1", "qlora#p2-c4"],
                                 duration_ms=41, ts=t(3))]
    body += [E.SourcesFound(contexts=CHUNKS, ts=t())]
    body += [E.TokenDelta(text=tok, node="comparative", ts=t(5)) for tok in tokens(COMPARE_ANSWER)]
    body += [E.DraftReady(answer=COMPARE_ANSWER, node="comparative", ts=t())]
    evs += _node("comparative", t, 0, "2 parallel retrievals, 3 chunk(s)", body,
                 detail={"queries": queries, "entities": ["LoRA", "QLoRA"], "dimensions": ["memory", "accuracy"]})
    verdict = CriticVerdict(passed=True, score=8.6, completeness=0.9, faithfulness=0.95,
                            feedback="Covers both entities on both dimensions, every claim cited.")
    evs += _node("critic", t, 5, "pass 8.6/10", [E.CriticVerdictIssued(verdict=verdict, ts=t(4))])
    evs += _node("save_memory", t, 7, "1 fact saved", [E.MemoryWritten(
        facts=["QLoRA fine-tunes a 65B model on a single 48 GB GPU."], added=1, ts=t(6))])
    evs += _node("format_output", t, 1, "3 source(s) cited", [])
    result = E.TurnResult(question=COMPARE_Q, session_id=session_id, trace_id=turn_id, intent=filled,
                          strategy="comparative", final_answer=COMPARE_ANSWER, sources=_sources(CHUNKS), critic=verdict,
                          retry_count=0, llm_calls=0, tokens={"prompt": 0, "completion": 0, "total": 0},
                          timings_ms={"total": round((t.t - start) * 1000, 3)},
                          recalled_facts=["QLoRA quantizes the frozen base model to 4-bit NormalFloat (NF4)."])
    evs.append(E.TurnFinished(result=result, ts=t()))
    return _tag(evs, turn_id)


def follow_up_turn(session_id: str, turn_id: str = "trace-follow", start: float = T0 + 60) -> list[Any]:
    """A follow-up answered by ``simple`` with history, after one critic-driven retry."""
    t = _Clock(start)
    intent = Intent(type="follow_up", confidence=0.88, router="rules", entities=["LoRA", "QLoRA"],
                    reformulated_query="LoRA vs QLoRA training speed")
    chunks = [CHUNKS[1], CHUNKS[0]]
    evs: list[Any] = [E.TurnStarted(question=FOLLOW_Q, session_id=session_id, brain="offline", ts=t(0))]
    evs += _node("load_memory", t, 2, "0 facts recalled", [E.MemoryRecalled(facts=[], ts=t())])
    for attempt in (0, 1):
        evs += _node("route", t, 3, "follow_up (0.88)", [E.IntentClassified(intent=intent, latency_ms=2, ts=t(2))], attempt)
        evs += _node("slot_fill", t, 2, "history resolved", [E.SlotsFilled(intent=intent, ts=t())], attempt)
        body: list[Any] = [E.RetrievalStarted(query=intent.reformulated_query, ts=t()),
                           E.RetrievalFinished(query=intent.reformulated_query, chunk_ids=[c.chunk_id for c in chunks],
                                               duration_ms=35, ts=t(35)),
                           E.SourcesFound(contexts=chunks, ts=t())]
        if attempt == 0:
            body += [E.TokenDelta(text=tok, node="simple", ts=t(5)) for tok in tokens("LoRA is faster. ")]
        else:
            body += [E.TokenDelta(text=tok, node="simple", ts=t(5)) for tok in tokens(FOLLOW_ANSWER)]
        evs += _node("simple", t, 0, f"{len(chunks)} chunk(s)", body, attempt=attempt)
        ok = attempt == 1
        verdict = CriticVerdict(passed=ok, score=8.1 if ok else 4.5, completeness=0.85 if ok else 0.4,
                                faithfulness=0.9 if ok else 0.7, feedback="Grounded and cited." if ok else
                                "Too short: say why, with citations.", suggested_queries=[] if ok else ["QLoRA speed"])
        evs += _node("critic", t, 4, "pass" if ok else "retry", [E.CriticVerdictIssued(verdict=verdict, attempt=attempt, ts=t(3))], attempt)
        if not ok:
            evs += _node("retry_refine", t, 2, "1 extra query", [E.RetryStarted(
                attempt=1, feedback=verdict.feedback, queries=["QLoRA speed"], ts=t())], attempt)
    evs += _node("save_memory", t, 3, "nothing new", [E.MemoryWritten(facts=[], skipped_reason="follow-up", ts=t())], 1)
    evs += _node("format_output", t, 1, "2 source(s) cited", [], 1)
    result = E.TurnResult(question=FOLLOW_Q, session_id=session_id, trace_id=turn_id, intent=intent, strategy="simple",
                          final_answer=FOLLOW_ANSWER, sources=_sources(chunks), critic=verdict, retry_count=1,
                          llm_calls=0, tokens={"prompt": 0, "completion": 0, "total": 0},
                          timings_ms={"total": round((t.t - start) * 1000, 3)})
    evs.append(E.TurnFinished(result=result, ts=t()))
    return _tag(evs, turn_id)


def hub_failure_turn(session_id: str, question: str = "What rank does LoRA use?", turn_id: str = "trace-fail",
                     start: float = T0 + 120) -> list[Any]:
    """The knowledge hub dies during retrieval: a warning, a failed node and a failed turn."""
    t = _Clock(start)
    intent = Intent(type="factual", confidence=0.91, router="rules", reformulated_query=question)
    err = "MCP server hub (stdio) failed during query_knowledge_hub: connection closed"
    evs: list[Any] = [E.TurnStarted(question=question, session_id=session_id, ts=t(0))]
    evs += _node("load_memory", t, 2, "0 facts recalled", [])
    evs += _node("route", t, 3, "factual (0.91)", [E.IntentClassified(intent=intent, latency_ms=2, ts=t(2))])
    evs += _node("slot_fill", t, 2, "", [E.SlotsFilled(intent=intent, ts=t())])
    evs += [E.NodeStarted(node="simple", ts=t()), E.RetrievalStarted(query=question, ts=t()),
            E.Notice(level="error", message=f"knowledge hub: {err}", source="retrieval", ts=t(12)),
            E.NodeFinished(node="simple", ok=False, duration_ms=14, summary=err, ts=t(2)),
            E.TurnFailed(error=err, category="backend", node="simple", ts=t())]
    return _tag(evs, turn_id)


def _node(name: str, t: _Clock, ms: float, summary: str, inner: list[Any], attempt: int = 0,
          detail: dict | None = None) -> list[Any]:
    started = E.NodeStarted(node=name, attempt=attempt, ts=t())
    end = t(ms)
    duration = round((end - started.ts) * 1000, 3)
    return [started, *inner, E.NodeFinished(node=name, attempt=attempt, duration_ms=duration, summary=summary,
                                            detail=detail or {}, ts=end)]


def _tag(evs: list[Any], turn_id: str) -> list[Any]:
    for ev in evs:
        ev.turn_id = turn_id
    return evs


def script_for(question: str, session_id: str, n: int) -> list[Any]:
    q = question.lower()
    if "fail" in q or "hub down" in q:
        return hub_failure_turn(session_id, question)
    if n > 0 or q.startswith("and "):
        evs = follow_up_turn(session_id, turn_id=f"trace-follow-{n}")
    else:
        evs = comparative_turn(session_id, turn_id=f"trace-compare-{n}")
    evs[0].question = question
    evs[-1].result.question = question
    return evs
