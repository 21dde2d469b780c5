"""The main screen: chat, graph/strategy, trace and memory panes, fed by one message type.

``AgentEvent`` (live or replayed) arrives here from the app's session and is handed to every
pane's ``apply``; panes only render state. Messages of a run the session has since replaced are
dropped. From 100×24 up all four panes are visible, sized in proportion (``main.tcss``);
narrower or lower, they become tabs (F5–F8, or alt+1..4 where the terminal sends alt); from 140
columns the conversations sidebar is beside them (:mod:`paperpilot_tui.screens.main_layout`). A
focused answer has its own actions (:mod:`paperpilot_tui.answer_actions`).
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static, Tab, Tabs

from core.events import NodeStarted, Notice, TurnFailed, TurnFinished, TurnStarted
from paperpilot_tui.actions import bindings
from paperpilot_tui.answer_actions import AnswerActions
from paperpilot_tui.screens.main_layout import PANES, PaneLayout
from paperpilot_tui.cost import CostMeter
from paperpilot_tui.messages import AgentEvent, HistoryLoaded, ReplayState, TurnEnded
from paperpilot_tui.widgets.chat import ChatPane, CodeBlock
from paperpilot_tui.widgets.chat_search import ChatSearch
from paperpilot_tui.widgets.chat_input import ChatInput
from paperpilot_tui.widgets.footer import FittedFooter
from paperpilot_tui.widgets.graph import GraphPane
from paperpilot_tui.widgets.memory_pane import MemoryPane
from paperpilot_tui.widgets.sidebar import ConversationsSidebar
from paperpilot_tui.widgets.status import StatusBar
from paperpilot_tui.widgets.trace import TracePane



class MainScreen(PaneLayout, AnswerActions, Screen):
    CSS_PATH = "main.tcss"
    BINDINGS = bindings("main")
    HELP_SCOPES = ("main", "input", "answer", "app")

    def __init__(self) -> None:
        super().__init__(id="main")
        self.turns_ended = 0
        self.last_question = ""  # the last answered question: the lineage view's topic (alt+l)
        self.shown = "chat"
        self.cost = CostMeter()
        self.sidebar_choice: bool | None = None  # shown/hidden by the user; None: by the width

    def compose(self) -> ComposeResult:
        yield Tabs(*(Tab(f"{self._pane_key(p)} {p.title()}", id=f"tab-{p}") for p in PANES), id="pane-tabs")
        with Horizontal(id="panes"):
            yield ConversationsSidebar(id="sidebar")
            with Vertical(id="left"):
                yield ChatPane(id="chat", classes="pane")
            with Vertical(id="right"):
                with VerticalScroll(id="graph", classes="pane"):
                    yield GraphPane(id="graph-view")
                yield TracePane(id="trace", classes="pane")
                yield MemoryPane(id="memory", classes="pane")
        yield Static("", id="replay-bar")
        yield StatusBar(id="status")
        yield FittedFooter()

    def _pane_key(self, pane: str) -> str:
        """The tab's label key: the first key bound to the pane (F5..F8 unless remapped), as the footer writes it."""
        key = self.app.keys_for(f"pane_{pane}").split(" / ")[0]
        return key.upper() if len(key) <= 3 else key

    def on_mount(self) -> None:
        titles = {"chat": "Chat", "graph": "Graph · strategy", "trace": "Trace", "memory": "Memory"}
        for pane, title in titles.items():
            self.query_one(f"#{pane}").border_title = title
        self.status.session = self.app.session.session_id
        self.status.collection = self.app.session.collection
        self.query_one(ChatInput).focus()
        self._layout(self.size.width, self.size.height)

    @on(Tabs.TabActivated)
    def _tab(self, event: Tabs.TabActivated) -> None:
        if event.tab.id and event.tab.id.startswith("tab-"):
            self._show(event.tab.id[4:])

    # ---- panes ---------------------------------------------------------------------------------

    @property
    def status(self) -> StatusBar:
        return self.query_one(StatusBar)

    def panes(self) -> tuple:
        return (self.query_one(ChatPane), self.query_one(GraphPane), self.query_one(TracePane),
                self.query_one(MemoryPane))

    def clear(self) -> None:
        if self.app.session.session_id != self.cost.session_id:  # another session: its own costs
            self.cost = CostMeter()
            self.status.cost = self.status.cost_short = ""
        self.query_one(ChatPane).clear()
        self.query_one(TracePane).clear()
        self.query_one(MemoryPane).clear()
        self.query_one(GraphPane).reset()
        self.query_one(GraphPane).refresh_view()
        self.query_one(ConversationsSidebar).reload()

    @property
    def replaying(self) -> bool:
        """A replay is playing (read by the input, which then leaves space and +/- to the player)."""
        return self.app.session.replaying

    def _stale(self, run: int) -> bool:
        return run != self.app.session.run

    @on(AgentEvent)
    def _agent_event(self, message: AgentEvent) -> None:
        if self._stale(message.run):
            return
        ev = message.event
        for pane in self.panes():
            pane.apply(ev)
        if not message.replay and self.cost.apply(ev):  # a replay costs nothing
            self.status.cost, self.status.cost_short = self.cost.line(), self.cost.short()
        match ev:
            case TurnStarted():
                self.status.activity = "replaying" if message.replay else "thinking"
                if not message.replay:
                    self.status.session = ev.session_id
                    self.query_one(ChatPane).record[-1].doc_id = self.app.session.scopes.get(message.run)
            case NodeStarted():
                where = "" if ev.graph == "main" else f"{ev.graph} · "
                self.status.activity = f"{where}{ev.node}"
            case Notice(source="session"):  # another window runs a turn in this session: this one waits
                self.status.activity = "waiting for the session"
                self.notify(ev.message, title="Session busy", severity="warning", timeout=6)
            case Notice(level="warning" | "error"):
                self.notify(ev.message, severity="error" if ev.level == "error" else "warning", timeout=6)
            case TurnFinished():
                self.status.activity = "ready"
                self.last_question = ev.result.question
            case TurnFailed(category="cancelled"):
                self.status.activity = "cancelled"
            case TurnFailed():
                self.status.activity = "turn failed"
                self.notify(ev.error, title="Turn failed", severity="error", timeout=8)

    @on(TurnEnded)
    def _turn_ended(self, message: TurnEnded) -> None:
        if self._stale(message.run):
            return
        self.turns_ended += 1
        self.query_one(ConversationsSidebar).reload()
        if self.status.activity not in ("turn failed", "cancelled"):
            self.status.activity = "ready"

    @on(HistoryLoaded)
    def _history(self, message: HistoryLoaded) -> None:
        if message.session_id != self.app.session.session_id:
            return
        self.clear()
        self.replay_shown = False
        self.status.session = message.session_id
        chat = self.query_one(ChatPane)
        if message.last_events:  # the last turn as recorded: with its sources, trace and graph
            chat.show_history(message.turns[:-1])
            for ev in message.last_events:
                for pane in self.panes():
                    pane.apply(ev)
        else:
            chat.show_history(message.turns)
        for record in chat.record:  # a reopened session's scoped questions stay scoped (regenerate)
            record.doc_id = message.scopes.get(record.question, record.doc_id)
        self.query_one(ChatInput).remember(*(q for q, _ in message.turns))
        if not message.restored:
            chat.note(f"resumed session {message.session_id} · {len(message.turns)} earlier turn(s)")
        if message.then_ask is not None:
            self._ask(message.then_ask)

    @property
    def replay_shown(self) -> bool:
        """The panes show a replay (playing or ended) instead of this session's conversation."""
        return self.query_one("#replay-bar").has_class("-on")

    @replay_shown.setter
    def replay_shown(self, on: bool) -> None:
        self.query_one("#replay-bar").set_class(on, "-on")

    @on(ReplayState)
    def _replay_state(self, message: ReplayState) -> None:
        if self._stale(message.run):
            return
        control = self.app.session.replay_control
        if control is not None:
            control.trace_id, control.position, control.total = message.trace_id, message.position, message.total
        paused = control.paused if control is not None and not message.done else message.paused  # now, not when posted
        self._replay_bar(message.trace_id, paused, message.speed, message.position, message.total, message.done)

    def _replay_bar(self, trace_id: str, paused: bool, speed: float, position: int, total: int,
                    done: bool) -> None:
        self.replay_shown = True
        if done:
            state = "done" if position == total else "stopped"
            keys = "  esc back to your conversation"
        else:
            state = "paused" if paused else "playing"
            keys = "  space pause/resume · +/- speed · esc stop"
        self.query_one("#replay-bar", Static).update(
            f"⏵ replay {trace_id}  {state}  {position}/{total}  speed ×{speed:g}{keys}")

    def _control_changed(self) -> None:
        control = self.app.session.replay_control
        if control is not None and self.replaying:
            self._replay_bar(control.trace_id, control.paused, control.speed, control.position, control.total,
                             False)

    @on(ChatInput.Submitted)
    def _submitted(self, message: ChatInput.Submitted) -> None:
        if self.app.slash.run(message.text):  # a /command: run (or refused in one line), never asked
            return
        if self.replay_shown and not self.app.session.busy:
            self.app.session.restore(then_ask=message.text)  # the conversation first, then the question
            return
        self._ask(message.text)

    def _ask(self, text: str) -> None:
        research = self.app.research  # in Deep research mode the text is a research topic
        if research.active:
            started = research.start(text)
        else:  # an @paper mention: answered from that document only (None: said why in the chat)
            scoped = self.app.slash.scope(text)
            started = scoped is not None and self.app.session.ask(scoped.question, scoped.doc_id)
        if started:
            self.query_one(ChatInput).accept(text)

    # ---- actions -------------------------------------------------------------------------------

    def action_cancel_turn(self) -> None:
        search = self.query_one(ChatSearch)
        if search.is_open and search.has_focus_within:  # esc in the search bar closes it first
            search.close()
            return
        if self.query_one(ChatInput).close_menu():  # esc closes the completion menu first
            return
        session = self.app.session
        replaying = session.replaying
        if not session.cancel(by_user=True):
            if self.replay_shown:
                session.restore()
            elif self.focused is not self.query_one(ChatInput):
                self.query_one(ChatInput).focus()
        elif replaying:
            self.notify("Replay stopped; esc again goes back to your conversation.")

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        """Replay keys (space, +, -) only act during a replay; otherwise they type as usual."""
        if action in ("replay_pause", "replay_speed"):
            return self.replaying
        return True

    def action_focus_input(self) -> None:
        self._show("chat")
        self.query_one(ChatInput).focus()

    def action_focus_sources(self) -> None:
        self._show("chat")
        self.query_one("#source-list").focus()

    def action_focus_trace(self) -> None:
        self._show("trace")
        steps = self.query_one(TracePane).steps
        if steps:
            steps[-1].query_one("CollapsibleTitle").focus()

    def action_copy_answer(self) -> None:
        """The focused code block's code, else the last answer (as written, with its [n]), via OSC 52."""
        focused = self.focused
        if isinstance(focused, CodeBlock):
            text, what = focused.code, "the code block"
        else:
            text, what = self.query_one(ChatPane).last_answer(), "the answer"
        if not text:
            self.notify("No answer to copy yet.", severity="warning", timeout=3)
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"Copied {what} to the clipboard ({len(text)} characters).", timeout=3)

    def action_search_chat(self) -> None:
        self._show("chat")
        self.query_one(ChatSearch).open()

    def action_export_session(self) -> None:
        from paperpilot_tui.screens.export import export_session

        export_session(self)

    def action_replay_pause(self) -> None:
        control = self.app.session.replay_control
        if self.replaying and control is not None:
            control.toggle()
            self._control_changed()

    def action_replay_speed(self, factor: float) -> None:
        control = self.app.session.replay_control
        if control is not None:
            control.speed = min(max(control.speed * factor, 0.25), 16.0)
            self._control_changed()
