"""Graph / strategy pane: the main graph with the active node highlighted live, the running
strategy's subgraph with iteration counters, retries, and the intent (type, confidence, strategy).

The turn's bounds (``max_retries``, ``max_react_steps``) come from its ``TurnStarted`` event and
the graph's shape (strategies, their steps and paradigms) from :mod:`core.types`; nothing here
re-declares them."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from core.events import (
    CriticVerdictIssued, Event, IntentClassified, NodeFinished, NodeStarted, PlanUpdated, RetrievalStarted,
    RetryStarted, SlotsFilled, ThoughtEmitted, TokenDelta, TurnFailed, TurnFinished, TurnStarted,
)
from core.types import STRATEGIES, STRATEGY_PARADIGM
from paperpilot_tui.widgets.graph_art import BOXES, render_main, render_subgraph


class GraphPane(Static):
    """Renders from plain state; :meth:`apply` folds one agent event into that state."""

    DEFAULT_CSS = """
    GraphPane { padding: 0 1; height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reset()

    def reset(self, started: TurnStarted | None = None) -> None:
        self.started = started  # the turn's bounds; None before the first turn
        self.status: dict[str, str] = {}
        self.active: str | None = None
        self.sub_active: str | None = None
        self.sub_done: set[str] = set()
        self.intent: Any = None
        self.strategy = ""
        self.step = 0
        self.plan_size = 0
        self.revision = 0
        self.parallel = 0
        self.retries = 0
        self.critic: Any = None
        self.outcome = ""

    def on_mount(self) -> None:
        self.refresh_view()

    def apply(self, ev: Event) -> None:
        match ev:
            case TurnStarted():
                self.reset(ev)
            case NodeStarted(graph="main"):
                self.active = ev.node
                self.status[ev.node] = "active"
                if ev.node in STRATEGIES:
                    self._enter_strategy(ev.node)
            case NodeStarted():
                self.sub_active = ev.node
                if ev.node in ("execute", "think"):
                    self.step += 1
            case NodeFinished(graph="main"):
                self.status[ev.node] = "done" if ev.ok else "failed"
                if self.active == ev.node:
                    self.active = None
            case NodeFinished():
                self.sub_done.add(ev.node)
                if self.sub_active == ev.node:
                    self.sub_active = None
            case IntentClassified() | SlotsFilled():
                self.intent = ev.intent
                self.strategy = self.strategy or ev.intent.to_strategy()
            case PlanUpdated():
                self.plan_size, self.revision = len(ev.sub_questions), ev.revision
                if self.strategy == "comparative":
                    self.sub_active = "plan"
            case RetrievalStarted() if self.strategy in ("comparative", "simple"):
                if self.strategy == "comparative":
                    self.parallel += 1
                    self.sub_done.add("plan")
                self.sub_active = "retrieve"
            case TokenDelta() if self.strategy in ("comparative", "simple"):
                self.sub_done.add("retrieve")
                self.sub_active = "synthesize"
            case ThoughtEmitted():
                self.step = max(self.step, ev.step)
            case CriticVerdictIssued():
                self.critic = ev.verdict
            case RetryStarted():
                self.retries = ev.attempt
                for node in ("critic", *STRATEGIES):
                    self.status.pop(node, None)
            case TurnFinished():
                self.active, self.sub_active = None, None
                self.retries = ev.result.retry_count
                self.outcome = "finished"
            case TurnFailed():
                if self.active:
                    self.status[self.active] = "failed"
                elif ev.node in BOXES:
                    self.status[ev.node] = "failed"
                self.active, self.sub_active = None, None
                self.outcome = "cancelled" if ev.category == "cancelled" else "failed"
            case _:
                return
        self.refresh_view()

    def _enter_strategy(self, strategy: str) -> None:
        self.strategy = strategy
        self.sub_active, self.sub_done = None, set()
        self.step = self.revision = self.parallel = 0
        for other in STRATEGIES:
            if other != strategy and self.status.get(other) != "done":
                self.status[other] = "skipped"

    def _colors(self) -> dict[str, str]:
        try:
            v = self.app.theme_variables
        except Exception:  # noqa: BLE001 - not mounted yet
            v = {}
        return {"accent": v.get("accent", "cyan"), "success": v.get("success", "green"),
                "error": v.get("error", "red"), "warning": v.get("warning", "yellow"),
                "muted": v.get("foreground-muted", "grey50")}

    def _counters(self) -> str:
        if self.strategy == "multi_hop":
            return f"step {self.step}/{self.plan_size or '?'} · revision {self.revision}"
        if self.strategy == "exploratory":
            return f"step {self.step}/{self.started.max_react_steps if self.started else '?'}"
        if self.strategy == "comparative" and self.parallel:
            return f"×{self.parallel} parallel"
        return ""

    def refresh_view(self) -> None:
        colors = self._colors()
        lines: list[Text] = [render_main(self.status, colors),
                             render_subgraph(self.strategy, self.sub_active, self.sub_done, self._counters(), colors)]
        info = Text(no_wrap=True, overflow="ellipsis")
        if self.intent is not None:
            info.append("intent ", style="dim")
            info.append(f"{self.intent.type} {self.intent.confidence:.2f}", style="bold")
            info.append(f" ({self.intent.router})", style="dim")
            strat = self.strategy or self.intent.to_strategy()
            info.append("  strategy ", style="dim")
            info.append(f"{strat} · {STRATEGY_PARADIGM.get(strat, '')}", style="bold")
        else:
            info.append("intent —  strategy —", style="dim")
        lines.append(info)
        tail = Text(no_wrap=True, overflow="ellipsis")
        tail.append("retries ", style="dim")
        tail.append(f"{self.retries}/{self.started.max_retries if self.started else '—'}")
        if self.critic is not None:
            verdict = "forced pass" if self.critic.forced else "pass" if self.critic.passed else "fail"
            tone = "warning" if self.critic.forced else "success" if self.critic.passed else "error"
            tail.append("  critic ", style="dim")
            tail.append(f"{self.critic.score:.1f}/10 {verdict}", style=colors[tone])
        if self.outcome:
            tail.append(f"  · {self.outcome}", style="dim")
        lines.append(tail)
        self.update(Group(*lines))
