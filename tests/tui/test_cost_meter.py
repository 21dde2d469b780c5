"""The status bar's cost segment folds LLM calls, tokens and money per turn and per session."""

from __future__ import annotations

from core.events import LLMCall, TurnFinished, TurnStarted
from core.types import TurnResult
from paperpilot_tui.cost import CostMeter


def turn(meter: CostMeter, calls: list[tuple[int, int, float]], t0: float) -> None:
    meter.apply(TurnStarted(question="q", session_id="s", ts=t0))
    for prompt, completion, cost in calls:
        meter.apply(LLMCall(purpose="synthesis", model="gpt-4o-mini", prompt_tokens=prompt,
                            completion_tokens=completion, cost=cost, ts=t0 + 0.5))
    result = TurnResult(question="q", session_id="s", trace_id="t", intent=None, strategy="simple", final_answer="a",
                        sources=[], critic=None, retry_count=0, llm_calls=len(calls),
                        tokens={"total": sum(p + c for p, c, _ in calls)}, timings_ms={"total": 2000.0},
                        cost=sum(x for _, _, x in calls))
    assert meter.apply(TurnFinished(result=result, ts=t0 + 2))


def test_money_per_turn_and_session_total():
    meter = CostMeter()
    turn(meter, [(1000, 200, 0.00027), (500, 100, 0.000135)], 100.0)
    assert meter.line() == "last 2.0 s · 2 calls · 1800 tok · $0.00040 · total 2.0 s"
    turn(meter, [(2000, 1000, 0.0009)], 200.0)
    assert meter.line() == ("last 2.0 s · 1 call · 3000 tok · $0.00090 · total 4.0 s · 3 calls · 4800 tok · $0.0013")


def test_an_offline_turn_shows_no_money():
    meter = CostMeter()
    turn(meter, [], 100.0)
    assert "$" not in meter.line()
