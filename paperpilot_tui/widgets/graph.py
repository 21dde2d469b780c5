"""Graph / strategy pane: the main graph with the active node highlighted live, the running
strategy's subgraph with iteration counters, retries, and the intent (type, confidence, strategy)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from paperpilot_tui.widgets.graph_art import BOXES, STRATEGY_NODES, render_main, render_subgraph

INTENT_TO_STRATEGY = {"factual": "simple", "follow_up": "simple", "comparative": "comparative",
                      "multi_hop": "multi_hop", "exploratory": "exploratory"}
PARADIGM = {"simple": "direct", "multi_hop": "Plan-and-Execute", "comparative": "ReWOO", "exploratory": "ReAct"}


class GraphPane(Static):
    """Renders from plain state; :meth:`apply` folds one agent event into that state."""

    DEFAULT_CSS = """
    GraphPane { padding: 0 1; height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.reset()

    def reset(self) -> None:
        self.status: dict[str, str] = {}
        self.active: str | None = None
        self.sub_active: str | None = None
        self.sub_done: set[str] = set()
        self.intent: Any = None
        self.strategy = ""
        self.step = 0
        self.max_steps = 0
        self.plan_size = 0
        self.revision = 0
        self.parallel = 0
        self.retries = 0
        self.max_retries = 2
        self.critic: Any = None
        self.outcome = ""

    def on_mount(self) -> None:
        self.refresh_view()

    def apply(self, ev: Any) -> None:
        kind = ev.kind
        if kind == "turn_started":
            self.reset()
        elif kind == "node_started":
            if ev.graph == "main":
                self.active = ev.node
                self.status[ev.node] = "active"
                if ev.node in STRATEGY_NODES:
                    self.strategy = ev.node
                    self.sub_active, self.sub_done = None, set()
                    self.step = self.revision = self.parallel = 0
                    for other in STRATEGY_NODES:
                        if other != ev.node and self.status.get(other) != "done":
                            self.status[other] = "skipped"
            else:
                self.sub_active = ev.node
                if ev.node in ("execute", "think"):
                    self.step += 1
        elif kind == "node_finished":
            state = "done" if ev.ok else "failed"
            if ev.graph == "main":
                self.status[ev.node] = state
                if self.active == ev.node:
                    self.active = None
            else:
                self.sub_done.add(ev.node)
                if self.sub_active == ev.node:
                    self.sub_active = None
        elif kind in ("intent_classified", "slots_filled"):
            self.intent = ev.intent
            self.strategy = self.strategy or INTENT_TO_STRATEGY.get(ev.intent.type, "")
        elif kind == "plan_updated":
            self.plan_size, self.revision = len(ev.sub_questions), ev.revision
            if self.strategy in ("comparative", "simple"):
                self.sub_active = "plan"
        elif kind == "retrieval_started":
            if self.strategy == "comparative":
                self.parallel += 1
                self.sub_done.add("plan")
                self.sub_active = "retrieve ∥"
            elif self.strategy == "simple":
                self.sub_active = "retrieve"
        elif kind == "token" and self.strategy in ("comparative", "simple"):
            self.sub_done.add("retrieve ∥" if self.strategy == "comparative" else "retrieve")
            self.sub_active = "compare" if self.strategy == "comparative" else "synthesize"
        elif kind == "thought":
            self.step = max(self.step, ev.step)
        elif kind == "critic_verdict":
            self.critic = ev.verdict
        elif kind == "retry":
            self.retries = ev.attempt
            for node in ("critic", *STRATEGY_NODES):
                self.status.pop(node, None)
        elif kind == "turn_finished":
            self.active, self.sub_active = None, None
            self.retries = ev.result.retry_count
            self.outcome = "finished"
        elif kind == "turn_failed":
            if self.active:
                self.status[self.active] = "failed"
            elif getattr(ev, "node", None) in BOXES:
                self.status[ev.node] = "failed"
            self.active, self.sub_active = None, None
            self.outcome = "cancelled" if ev.category == "cancelled" else "failed"
        else:
            return
        self.refresh_view()

    def _colors(self) -> dict[str, str]:
        try:
            v = self.app.theme_variables
        except Exception:  # noqa: BLE001 - not mounted yet
            v = {}
        return {"accent": v.get("accent", "cyan"), "success": v.get("success", "green"),
                "error": v.get("error", "red"), "muted": v.get("foreground-muted", "grey50")}

    def _counters(self) -> str:
        if self.strategy == "multi_hop":
            return f"step {self.step}/{self.plan_size or '?'} · revision {self.revision}"
        if self.strategy == "exploratory":
            return f"step {self.step}/{self.max_steps or 5}"
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
            strat = self.strategy or INTENT_TO_STRATEGY.get(self.intent.type, "")
            info.append("  strategy ", style="dim")
            info.append(f"{strat} · {PARADIGM.get(strat, '')}", style="bold")
        else:
            info.append("intent —  strategy —", style="dim")
        lines.append(info)
        tail = Text(no_wrap=True, overflow="ellipsis")
        tail.append("retries ", style="dim")
        tail.append(f"{self.retries}/{self.max_retries}")
        if self.critic is not None:
            verdict = "pass" if self.critic.passed else "fail"
            tail.append("  critic ", style="dim")
            tail.append(f"{self.critic.score:.1f}/10 {verdict}", style=colors["success" if self.critic.passed else "error"])
        if self.outcome:
            tail.append(f"  · {self.outcome}", style="dim")
        lines.append(tail)
        self.update(Group(*lines))
