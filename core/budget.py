"""What a turn's LLM calls cost, and the per-turn budget that stops them.

Prices come from ``llm.pricing`` (US dollars per million input / output tokens, by model name; a
dated name uses its longest listed prefix; a model not listed costs 0). The agent installs one
:class:`TurnBudget` per turn (:func:`scope`, a context variable the graph's tasks inherit), and
:class:`core.brains.llm.caller.ModelCaller` asks it to :meth:`~TurnBudget.admit` every request before
sending it: that is the one place every model request passes, so no node, brain part or repair
request can spend past ``agent.max_llm_calls_per_turn`` or ``agent.max_cost_per_turn``.

A refused request raises :class:`BudgetExceeded`. The node it happened in attaches the best draft
so far (:func:`core.nodes.common.traced`); the agent then delivers that draft as a forced pass with
the limit named in a notice, or fails the turn with one line (category ``budget``) when there is none.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from core.config import AgentSettings, Price
from core.errors import BrainError
from core.types import CriticVerdict, RetrievedContext


def price_of(pricing: dict[str, Price], model: str) -> Price | None:
    """The price of ``model``: its own entry, else the longest listed prefix of its name, else None."""
    name = model.strip().lower()
    table = {k.lower(): v for k, v in pricing.items()}
    if name in table:
        return table[name]
    prefixes = [k for k in table if name.startswith(k)]
    return table[max(prefixes, key=len)] if prefixes else None


def cost_of(price: Price | None, prompt_tokens: int, completion_tokens: int) -> float:
    """US dollars for one call (0 for an unpriced model)."""
    if price is None:
        return 0.0
    return (prompt_tokens * price.input_per_mtok + completion_tokens * price.output_per_mtok) / 1_000_000


def dollars(amount: float) -> str:
    """A cost as people read it: $0 for nothing, two significant digits below a cent, else cents."""
    if amount <= 0:
        return "$0"
    if amount >= 0.01:
        return f"${amount:.2f}"
    return f"${amount:.{max(4, 1 - math.floor(math.log10(amount)))}f}"


@dataclass
class Draft:
    """The answer a stopped turn delivers: the text, the contexts its markers number, its verdict."""

    answer: str
    contexts: list[RetrievedContext]
    verdict: CriticVerdict


class BudgetExceeded(BrainError):
    """A model request refused because the turn reached a budget; ``str()`` names the limit."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.draft: Draft | None = None  # attached by the node the turn stopped in


@dataclass
class TurnBudget:
    """Calls admitted and money spent in one turn, against optional limits."""

    max_calls: int | None = None
    max_cost: float | None = None
    calls: int = 0
    cost: float = 0.0
    refused: list[str] = field(default_factory=list)  # purposes of the requests refused

    @classmethod
    def of(cls, agent: AgentSettings) -> TurnBudget:
        return cls(max_calls=agent.max_llm_calls_per_turn, max_cost=agent.max_cost_per_turn)

    def admit(self, purpose: str) -> None:
        """Count one more request, or raise :class:`BudgetExceeded` when a limit is reached."""
        message = None
        if self.max_calls is not None and self.calls >= self.max_calls:
            message = (f"LLM call budget reached: agent.max_llm_calls_per_turn = {self.max_calls} "
                       f"({self.calls} call{'s' if self.calls != 1 else ''} made; the {purpose} call was not sent)")
        elif self.max_cost is not None and self.cost >= self.max_cost:
            message = (f"LLM cost budget reached: agent.max_cost_per_turn = {dollars(self.max_cost)} "
                       f"({dollars(self.cost)} spent; the {purpose} call was not sent)")
        if message is not None:
            self.refused.append(purpose)
            raise BudgetExceeded(message)
        self.calls += 1

    def charge(self, cost: float) -> None:
        self.cost += cost


_current: ContextVar[TurnBudget | None] = ContextVar("paperpilot_turn_budget", default=None)


def current() -> TurnBudget | None:
    """The running turn's budget (None outside a turn: a brain used on its own is not limited)."""
    return _current.get()


@contextmanager
def scope(budget: TurnBudget) -> Iterator[TurnBudget]:
    """Make ``budget`` the current one inside the block (the graph's tasks copy it)."""
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)
