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
    ClarificationAsked, CriticVerdictIssued, Event, IntentClassified, NodeFinished, NodeStarted, OutlineEdited,
    OutlineProposed, PlanUpdated, PointSearched, ResearchStageChanged, ResearchStarted, ResearchWaiting,
    RetrievalStarted, RetryStarted, ReviewFinished, SlotsFilled, ThoughtEmitted, TokenDelta, TurnFailed,
    TurnFinished, TurnStarted,
)
from core.research.types import RESEARCH_STAGES
from core.types import STRATEGIES, STRATEGY_PARADIGM
from paperpilot_tui.widgets.graph_art import BOXES, WIDTH, render_main, render_research, render_stacked, render_subgraph


class GraphPane(Static):
    """Renders from plain state; :meth:`apply` folds one agent event into that state."""

    DEFAULT_CSS = """
    GraphPane { padding: 0 1; height: auto; }
    """

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.research_shown = False  # the deep-research stages instead of the main graph
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
        if started is None:
            self.reset_research()

    def reset_research(self) -> None:
        self.r_stage: str | None = None
        self.r_status: dict[str, str] = {}  # research stage → active | waiting | done | failed | skipped
        self.r_notes: dict[str, str] = {}

    def show_research(self, on: bool) -> None:
        """Deep-research mode on or off: the research stages, or the main graph."""
        self.research_shown = on
        self.refresh_view()

    def on_mount(self) -> None:
        self.refresh_view()

    def apply(self, ev: Event) -> None:
        if self._apply_research(ev):
            self.refresh_view()
            return
        match ev:
            case TurnStarted():
                self.research_shown = False
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

    def _apply_research(self, ev: Event) -> bool:
        """Fold a deep-research event into the research stages; False for any other event."""
        notes = self.r_notes
        match ev:
            case ResearchStarted():
                if ev.stage == "initial":
                    self.reset_research()
                self.research_shown = True
                self._enter_stage(ev.stage)
            case ResearchStageChanged():
                self._enter_stage(ev.stage)
            case ClarificationAsked():
                notes["clarification"] = f"{len(ev.questions)} question(s)"
            case OutlineProposed():
                notes["confirmation"] = f"{len(ev.outline.knowledge_points)} points proposed"
            case OutlineEdited():
                notes["confirmation"] = (f"{len(ev.outline.knowledge_points)} points · edited "
                                         f"+{len(ev.added)} −{len(ev.removed)} ~{len(ev.changed)}")
            case PointSearched():
                self._enter_stage("searching")
                notes["searching"] = f"{ev.index}/{ev.total} points searched"
            case ResearchWaiting():
                self._enter_stage(ev.stage)
                self.r_status[ev.stage] = "waiting"
                notes[ev.stage] = notes.get(ev.stage, "") + " · waiting for you"
            case TokenDelta(node="review"):
                if self.r_stage != "review":
                    self._enter_stage("review")
                    notes["review"] = "writing"
            case ReviewFinished(review=r):
                self._enter_stage("review")
                self.r_status["review"] = "done"
                notes["review"] = f"{len(r.points)} points · {len(r.sources)} source(s)"
            case TurnFailed() if self.research_shown and self.r_stage:
                self.r_status[self.r_stage] = "failed"
            case _:
                return False
        return True

    def _enter_stage(self, stage: str) -> None:
        """``stage`` is now active; the stages before it are done (or skipped, never entered)."""
        if stage not in RESEARCH_STAGES:
            return
        at = RESEARCH_STAGES.index(stage)
        for before in RESEARCH_STAGES[:at]:
            self.r_status[before] = "done" if before in self.r_status else "skipped"
            self.r_notes[before] = self.r_notes.get(before, "").removesuffix(" · waiting for you")
        if self.r_status.get(stage) not in ("waiting", "done"):
            self.r_status[stage] = "active"
        self.r_stage = stage

    def _research_view(self, colors: dict[str, str]) -> Group:
        keys = getattr(self.app, "keys_for", lambda a: "")
        head = Text(no_wrap=True, overflow="ellipsis")
        head.append("Deep research", style="bold")
        head.append(f"  {keys('toggle_research')} back to Ask", style="dim")
        tail = Text(no_wrap=True, overflow="ellipsis")
        if self.r_stage is None:
            tail.append("send a topic: questions → outline → search → cited review", style="dim")
        else:
            state = self.r_status.get(self.r_stage, "")
            tail.append("stage ", style="dim")
            tail.append(f"{self.r_stage} ({state})", style="bold")
        return Group(head, render_research(RESEARCH_STAGES, self.r_status, self.r_notes, colors), tail)

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
        if self.research_shown:
            self.update(self._research_view(colors))
            return
        subgraph = render_subgraph(self.strategy, self.sub_active, self.sub_done, self._counters(), colors)
        info = Text(no_wrap=True, overflow="ellipsis")
        strategy = Text(no_wrap=True, overflow="ellipsis")  # a line of its own: beside the intent it was cut off
        if self.intent is not None:
            info.append("intent ", style="dim")
            info.append(f"{self.intent.type} {self.intent.confidence:.2f}", style="bold")
            info.append(f" ({self.intent.router})", style="dim")
            strat = self.strategy or self.intent.to_strategy()
            strategy.append("strategy ", style="dim")
            strategy.append(f"{strat} · {STRATEGY_PARADIGM.get(strat, '')}", style="bold")
        else:
            info.append("intent —", style="dim")
            strategy.append("strategy —", style="dim")
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
        if self.stacked:  # what the turn is doing first, then the graph in rows that wrap
            self.update(Group(info, strategy, tail, subgraph, render_stacked(self.status, colors)))
        else:
            self.update(Group(render_main(self.status, colors), subgraph, info, strategy, tail))

    @property
    def stacked(self) -> bool:
        """The box drawing does not fit the pane's width (e.g. 100×30, where the pane is ~46 wide)."""
        width = self.parent.content_region.width if self.parent is not None and self.is_mounted else 0
        return 0 < width < WIDTH + 2  # + this pane's padding

    def on_resize(self) -> None:
        if self.stacked != getattr(self, "_was_stacked", None):
            self._was_stacked = self.stacked
            self.refresh_view()
