"""What turns cost: seconds, LLM calls, tokens and money for the last turn and the session so far.

Folded from the turn's own events: ``LLMCall`` (one per call to a language model, with its prompt
and completion tokens and its cost from ``llm.pricing``) and the ``TurnResult`` on ``TurnFinished``
(``llm_calls``, ``tokens``, ``cost``, ``timings_ms["total"]``). Money shows once a turn made a call
(a local model's calls cost $0). The offline brain makes no LLM calls, so it truthfully shows 0 calls and
0 tokens. A failed or cancelled turn counts the time until it ended and the calls it had made.
Streamed ``TokenDelta`` chunks are not tokens and are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.budget import dollars
from core.events import Event, LLMCall, TurnFailed, TurnFinished, TurnStarted


@dataclass
class Cost:
    seconds: float = 0.0
    calls: int = 0
    tokens: int = 0
    turns: int = 0
    money: float = 0.0  # US dollars

    def add(self, other: Cost) -> None:
        self.seconds += other.seconds
        self.calls += other.calls
        self.tokens += other.tokens
        self.turns += other.turns
        self.money += other.money


def _calls(n: int) -> str:
    return f"{n} call" if n == 1 else f"{n} calls"


class CostMeter:
    """Feed it a session's live events; :meth:`line` is the status-bar segment."""

    def __init__(self) -> None:
        self.session_id = ""
        self.last: Cost | None = None
        self.total = Cost()
        self._started: float | None = None
        self._running = Cost()

    def apply(self, ev: Event) -> bool:
        """Take one event; True when a turn ended (the line changed)."""
        match ev:
            case TurnStarted():
                if ev.session_id != self.session_id:  # another session: its own totals
                    self.session_id, self.last, self.total = ev.session_id, None, Cost()
                self._started, self._running = ev.ts, Cost(turns=1)
            case LLMCall():
                self._running.calls += 1
                self._running.tokens += ev.prompt_tokens + ev.completion_tokens
                self._running.money += ev.cost
            case TurnFinished(result=result) if self._started is not None:
                total_ms = result.timings_ms.get("total")
                self._running.seconds = total_ms / 1000 if total_ms is not None else ev.ts - self._started
                self._running.calls = max(self._running.calls, result.llm_calls)
                self._running.tokens = max(self._running.tokens, result.tokens.get("total", 0))
                self._running.money = max(self._running.money, result.cost)
                return self._end()
            case TurnFailed() if self._started is not None:
                self._running.seconds = max(ev.ts - self._started, 0.0)
                return self._end()
        return False

    def _end(self) -> bool:
        self.last, self._started = self._running, None
        self.total.add(self._running)
        return True

    def line(self) -> str:
        if self.last is None:
            return ""
        last, total = self.last, self.total
        out = f"last {last.seconds:.1f} s · {_calls(last.calls)} · {last.tokens} tok"
        out += f" · {dollars(last.money)}" if last.calls else ""
        out += f" · total {total.seconds:.1f} s"
        if total.turns > 1 and (total.calls or total.tokens):
            out += f" · {_calls(total.calls)} · {total.tokens} tok · {dollars(total.money)}"
        return out

    def short(self) -> str:
        """The line for a narrow status bar: seconds (and money, once a call cost some) only."""
        if self.last is None:
            return ""
        last, total = self.last, self.total
        money = total.calls > 0
        return (f"last {last.seconds:.1f} s" + (f" · {dollars(last.money)}" if money else "")
                + f" · total {total.seconds:.1f} s" + (f" · {dollars(total.money)}" if money and total.turns > 1 else ""))
