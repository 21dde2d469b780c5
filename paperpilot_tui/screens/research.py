"""Deep-research mode of the main screen: Ask ↔ Deep research, and one research run's steps.

The app holds one :class:`ResearchFlow`. In research mode a sent text is a topic: each call of
``Agent.run_research`` runs in the session's turn worker and advances the run until it needs the
user, its events going to the main screen as ``AgentEvent`` like a turn's (chat, graph and trace
panes render them). The app forwards every ``AgentEvent`` and ``TurnEnded`` here after the main
screen has seen it: this flow opens the clarifying-questions form on ``ResearchWaiting(answers)``,
the outline editor on ``ResearchWaiting(outline)``, and puts the per-point progress and the
sources by point into the chat log. It never reaches into the agent beyond ``run_research``.
"""

from __future__ import annotations

from typing import Any

from core.events import (
    ClarificationAsked, Event, OutlineProposed, PointSearched, ResearchStageChanged, ResearchStarted,
    ResearchWaiting, ReviewFinished, TokenDelta, TurnFailed,
)
from core.research.types import ClarifyingQuestion, Outline, ResearchReview
from paperpilot_tui.messages import AgentEvent, AgentWarming, TurnEnded

PLACEHOLDER = "Deep research: type a topic for a cited literature review (enter starts · {key} back to Ask)"
WAITS = {"answers": "waiting for your answers", "outline": "waiting for your outline"}
REVIEW_READY = "research · review ready (ctrl+p: export the review)"


class ResearchFlow:
    """The research mode and the state of this session's research run, as the user sees it."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.active = False  # research mode (else Ask)
        self._reset("")

    def _reset(self, session_id: str) -> None:
        self.session_id = session_id  # the session the run belongs to
        self.topic = ""
        self.questions: list[ClarifyingQuestion] = []
        self.answers: dict[int, str] = {}  # typed in the form before leaving it with esc
        self.outline: Outline | None = None  # proposed, then as edited in the editor
        self._proposed: Outline | None = None
        self.waiting: str | None = None  # "answers" | "outline" while the run waits for the user
        self.review: ResearchReview | None = None
        self.progress: Any = None  # the ResearchProgress in the chat log, while a search runs
        self._run = -1  # the session run number of the latest research call
        self._new_topic = False  # that call sent a topic (a session with a research keeps its own)

    # ---- mode ----------------------------------------------------------------------------------

    @property
    def main(self) -> Any:
        return self.app.main_screen

    def toggle(self) -> None:
        self.active = not self.active
        self.show_mode()

    def show_mode(self) -> None:
        """The mode, visible: the input's placeholder, the chat pane's title, the graph pane."""
        main = self.main
        if not main.is_mounted:
            return
        key = self.app.keys_for("toggle_research").split(" / ")[0]
        main.query_one("#chat-input").placeholder = PLACEHOLDER.format(key=key) if self.active else ""
        main.query_one("#chat").border_title = "Chat · Deep research" if self.active else "Chat"
        main.query_one("#graph-view").show_research(self.active)
        if not self.app.session.busy:
            waiting = self.waiting if self.session_id == self.app.session.session_id else None
            main.status.activity = WAITS.get(waiting or "", "research mode") if self.active else "ready"

    # ---- what the user does --------------------------------------------------------------------

    def start(self, topic: str) -> bool:
        """A new research run on ``topic`` (False, with a notice, if it cannot start now)."""
        limit = self.app.settings.limits.question_chars
        if len(topic) > limit:
            self.app.notify(f"The topic is {len(topic)} characters; the limit is {limit} "
                            "(limits.question_chars). It stays in the box.", severity="error", timeout=8)
            return False
        if not self._can_run():
            return False
        self._reset(self.app.session.session_id)
        self.topic = topic
        return self._call(topic=topic, clarify=True)

    def continue_(self) -> None:
        """Reopen what the run waits for; with nothing known here, ask the agent to resume the session's run."""
        if self.session_id != self.app.session.session_id:
            self._reset(self.app.session.session_id)
        if self.waiting == "answers":
            self._ask_answers()
        elif self.waiting == "outline" and self.outline is not None:
            self._edit_outline()
        elif self._can_run():
            self._call()  # the agent resumes from the session's checkpointed stage

    def export(self) -> None:
        from paperpilot_tui.screens.research_export import export_review

        export_review(self.main, self.review, self.topic)

    def _can_run(self) -> bool:
        session = self.app.session
        if session.agent is None and session.warm.is_set():
            self.app.notify(f"The agent is not running ({session.agent_error or 'stopped'}); ctrl+p → Retry.",
                            severity="error")
            return False
        if session.busy and not (session.run == self._run and self.waiting):  # a waiting run is only ending
            self.app.notify("A turn or research step is running: wait for it or cancel it (esc).", severity="warning")
            return False
        return True

    def _call(self, **kwargs: Any) -> bool:
        """One ``run_research`` call in the session's turn worker (a research run that just
        reported what it waits for may still be finishing: it is replaced)."""
        session = self.app.session
        self.waiting, self._new_topic = None, "topic" in kwargs
        session._start(self._research(session, kwargs), "turn")
        self._run = session.run
        return True

    async def _research(self, session: Any, kwargs: dict[str, Any]) -> None:
        run, target = session.run, session.target
        if not session.warm.is_set():
            target.post_message(AgentWarming("your research waits for the warm-up"))
            await session.warm.wait()
        agent = session.agent
        if agent is None or not hasattr(agent, "run_research"):
            why = f"the agent could not start: {session.agent_error}" if agent is None else \
                "this agent has no deep research (run_research)"
            target.post_message(AgentEvent(TurnFailed(error=why, category="backend"), run))
            return
        async for event in agent.run_research(session_id=session.session_id, **kwargs):
            target.post_message(AgentEvent(event, run))

    # ---- forms ---------------------------------------------------------------------------------

    def _ask_answers(self) -> None:
        from paperpilot_tui.screens.research_clarify import ClarifyScreen

        screen = ClarifyScreen(self.topic or "your topic", self.questions, self.answers)

        def done(answers: dict[int, str] | None) -> None:
            if answers is None:
                self.answers = screen.answers
                self._later("answers")
            elif self._can_run():
                self.answers = answers
                self._note(f"answered {len(answers)} of {len(self.questions)} question(s)" if answers
                           else "questions skipped: the outline comes from the topic alone")
                self._call(answers=answers)

        self.app.push_screen(screen, done)

    def _edit_outline(self) -> None:
        from paperpilot_tui.screens.research_outline import OutlineScreen

        if self.outline is None:  # the agent said it waits for an outline without proposing one
            self.app.notify("The research waits for an outline, but none was proposed: send the topic again.",
                            severity="error", timeout=8)
            return
        screen = OutlineScreen(self.outline)

        def done(outline: Outline | None) -> None:
            self.outline = screen.outline  # kept as edited, also when the user leaves with esc
            if outline is None:
                self._later("outline")
            elif self._can_run():
                self._search(outline)

        self.app.push_screen(screen, done)

    def _search(self, outline: Outline) -> None:
        edited = " (edited)" if self._proposed is not None and outline != self._proposed else ""
        self._note(f"outline{edited}: {outline.title} · {len(outline.knowledge_points)} knowledge point(s)")
        self.outline = outline
        self._show_progress()
        self._call(outline=outline)

    def _show_progress(self) -> Any:
        """The per-point progress of the outline being searched, in the chat log (None without an outline)."""
        from paperpilot_tui.widgets.research import ResearchProgress

        if self.progress is None and self.outline is not None:
            self.progress = ResearchProgress(self.outline, classes="research-progress")
            self.main.query_one("#chat-log").mount(self.progress)
        return self.progress

    def _note(self, text: str, warning: bool = False) -> None:
        self.main.query_one("#chat").note(text, warning=warning)

    def _later(self, what: str) -> None:
        self.waiting = what
        self.main.status.activity = f"research · {WAITS[what]}"
        self.app.notify(f"The research waits for your {'answers' if what == 'answers' else 'outline'}: "
                        "ctrl+p → 'Deep research: continue' reopens it.", timeout=6)

    # ---- events (after the main screen has rendered them) ----------------------------------------

    def on_event(self, message: AgentEvent) -> None:
        if message.run != self.app.session.run or message.replay:
            return
        self.apply(message.event)

    def apply(self, ev: Event) -> None:
        status = self.main.status
        match ev:
            case ResearchStarted():
                if self._new_topic and ev.stage != "initial":  # the session's research goes on instead
                    self._note(f"This session already holds the research “{ev.topic}” ({ev.stage}): it goes on "
                               f"from there. {self.app.keys_for('new_session')} starts a new session for a new topic.",
                               warning=True)
                    self.topic = ev.topic
                self._new_topic = False
                self.topic = self.topic or ev.topic
                self.session_id = ev.session_id or self.session_id
                status.activity = "research · " + ("clarifying" if ev.stage == "initial" else f"from {ev.stage}")
            case ClarificationAsked():
                self.questions = list(ev.questions)
            case OutlineProposed():
                self.outline = self._proposed = ev.outline
            case ResearchStageChanged(stage="searching") if self._show_progress() is not None:
                self.progress.start_search()
                status.activity = "research · searching"
            case ResearchStageChanged():
                status.activity = f"research · {ev.stage}"
            case PointSearched():
                if self._show_progress() is not None:  # also when a resumed run searches
                    self.progress.point_searched(ev)
                status.activity = f"research · searched {ev.index}/{ev.total} points"
            case TokenDelta(node="review") if self.progress is not None and self.progress.phase != "writing the review":
                self.progress.set_phase("writing the review")
                status.activity = "research · writing the review"
            case ResearchWaiting():
                self.waiting = ev.needs
                status.activity = f"research · {WAITS[ev.needs]}"
                if ev.needs == "answers":
                    self._ask_answers()
                else:
                    self._edit_outline()
            case ReviewFinished():
                self._finished(ev.review)
            case TurnFailed():
                if self.progress is not None:
                    self.progress.set_phase("cancelled" if ev.category == "cancelled" else "failed")
                    self.progress = None

    def _finished(self, review: ResearchReview) -> None:
        from paperpilot_tui.widgets.research import ResearchSources

        self.review, self.waiting = review, None
        if self.progress is not None:
            self.progress.set_phase(f"done · {len(review.sources)} source(s) in the review")
            self.progress = None
        self.main.query_one("#chat-log").mount(ResearchSources(review, classes="research-sources"))
        self.main.status.activity = REVIEW_READY

    def on_turn_ended(self, message: TurnEnded) -> None:
        """The main screen said "ready"; a run that waits for the user, or has its review, says so instead."""
        if message.run != self.app.session.run or message.run != self._run:
            return
        if self.waiting:
            self.main.status.activity = f"research · {WAITS[self.waiting]}"
        elif self.review is not None and self.main.status.activity == "ready":
            self.main.status.activity = REVIEW_READY
