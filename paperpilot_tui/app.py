"""The PaperPilot Textual app.

The first paint needs only Textual and the settings file: the agent (LangGraph, models, the MCP
hub subprocess) and the SQLite stores open in workers afterwards, owned by one
:class:`~paperpilot_tui.session.Session`, with their progress in the status bar. Every action
comes from :mod:`paperpilot_tui.actions`.
"""

from __future__ import annotations

import sys
from typing import Any

from textual import on
from textual.app import App
from textual.filter import LineFilter
from textual.worker import Worker
from textual.notifications import SeverityLevel

from paperpilot_tui.actions import BY_ID, bindings
from paperpilot_tui.commands import ActionsProvider
from paperpilot_tui.escape_filter import EscapeFilter
from paperpilot_tui.keycheck import check_keymap
from paperpilot_tui.messages import (
    AgentEvent, AgentReady, AgentUnavailable, AgentWarm, AgentWarming, HubIndexing, LastSession, StoresReady,
    TurnEnded,
)
from paperpilot_tui.prefs import load_prefs, save_pref
from paperpilot_tui.protocols import AgentFactory, StoresFactory
from paperpilot_tui.screens.main import MainScreen
from paperpilot_tui.screens.research import ResearchFlow
from paperpilot_tui.session import Session
from paperpilot_tui.slash_controller import SlashController
from paperpilot_tui.themes import CYCLE, HIGH_CONTRAST


class PaperPilotApp(App):
    """Chat, live graph, trace and memory for one session; browsers for memory, sessions, traces."""

    TITLE = "PaperPilot"
    BINDINGS = bindings("app")
    COMMANDS = App.COMMANDS | {ActionsProvider}
    ENABLE_COMMAND_PALETTE = True

    def __init__(self, settings: Any = None, *, session: str | None = None, replay: str | None = None,
                 agent_factory: AgentFactory | None = None, stores_factory: StoresFactory | None = None,
                 start_backend: bool = True, check_collection: bool = False,
                 blink: bool = True) -> None:
        super().__init__()
        self.blink = blink  # cursor blink; off for snapshots
        self.first_paint_at: float | None = None
        if settings is None:
            from core.config import Settings

            settings = Settings()
        self.settings = settings
        self._replay_id = replay
        self._start_backend = start_backend
        self.main_screen = MainScreen()
        self.session = Session(self, self.main_screen, settings, session_id=session,
                               agent_factory=agent_factory, stores_factory=stores_factory,
                               check_collection=check_collection)
        self.research = ResearchFlow(self)  # Ask ↔ Deep research, and the research run's forms
        self.slash = SlashController(self)  # /commands and @paper mentions of the question box
        self._escape_filter = EscapeFilter()

    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = False) -> None:
        """Notifications show their text as written: they carry stored names and error lines, which
        Textual would otherwise read as markup (``[@click=...]`` would become an action)."""
        super().notify(message, title=title, severity=severity, timeout=timeout, markup=markup)

    def get_line_filters(self) -> list[LineFilter]:
        """Textual's filters, then :class:`EscapeFilter`: stored text never drives the terminal."""
        return [*super().get_line_filters(), self._escape_filter]

    def on_mount(self) -> None:
        from core.paths import too_open

        if warning := too_open(self.settings.paths.home_dir()):
            self.notify(warning, title="Data directory", severity="warning", timeout=10)
        self.register_theme(HIGH_CONTRAST)
        theme = load_prefs(self.settings).get("theme") or self.settings.tui.theme  # the last one chosen
        if theme in self.available_themes:
            self.theme = theme
        else:
            self.notify(f"unknown theme {theme!r} in settings; using {self.theme}", severity="warning")
        self._theme_restored = True  # from now on a theme change is the user's: remember it
        keymap, problems = check_keymap(self._normalize_keymap(dict(self.settings.tui.keymap)))
        if problems:
            self.notify("\n".join(problems), title="tui.keymap: these remaps are ignored (defaults kept)",
                        severity="warning", timeout=12)
        self.set_keymap(keymap)
        self.push_screen(self.main_screen)
        self.call_after_refresh(self._painted)

    def _painted(self) -> None:
        """First frame is up: only now start the heavy work (agent import, hub, stores)."""
        import time

        self.first_paint_at = time.time()
        if self._start_backend:
            self.set_timer(0.05, self.session.start)

    def keys_for(self, action_id: str) -> str:
        """The keys bound to an action now (user keymap first, else the registry default)."""
        keys = self._keymap.get(action_id) or BY_ID[action_id].keys
        return keys.replace(",", " / ")

    @on(AgentReady)
    def _agent_ready(self, message: AgentReady) -> None:
        status = self.main_screen.status
        _, why = self.session.settings.llm.choice()
        status.brain = f"{message.brain} ({why})" if why.startswith("auto") else message.brain
        status.hub, status.collection = message.hub, message.collection
        self.slash.refresh()  # completion lists this hub's collections and documents
        for screen in self.screen_stack:  # a browser opened while the agent started (Collections) lists now
            if hasattr(screen, "agent_ready"):
                screen.agent_ready()
        if not self.session.busy:
            status.activity = "warming up"

    @on(AgentWarming)
    def _agent_warming(self, message: AgentWarming) -> None:
        status = self.main_screen.status
        if self.session.busy and not message.phase.startswith("your question"):
            status.activity = f"{message.phase} · your question waits"
        else:
            status.activity = message.phase
        if message.total:
            filled = round(8 * message.done / message.total)
            status.activity += f" {message.done}/{message.total} {'▰' * filled}{'▱' * (8 - filled)}"

    @on(HubIndexing)
    def _hub_indexing(self, message: HubIndexing) -> None:
        self.main_screen.status.indexing = message.files

    @on(AgentWarm)
    def _agent_warm(self) -> None:
        status = self.main_screen.status
        if not self.session.busy:
            status.activity = "ready"
        elif "waits" in status.activity:
            status.activity = "thinking"

    @on(AgentUnavailable)
    def _agent_unavailable(self, message: AgentUnavailable) -> None:
        status = self.main_screen.status
        if message.part == "brain":  # the LLM endpoint: the hub was never the problem
            status.brain, status.hub = "LLM unreachable", "not started"
            status.activity = "agent not running · ctrl+p: retry, or use the offline brain"
            self.notify(f"{message.error}\nctrl+p → 'Use the offline brain', or 'Retry' once the server is up.",
                        title="LLM endpoint unreachable", severity="error", timeout=20)
            return
        status.hub = "unavailable" if message.part == "hub" else status.hub
        status.brain, status.activity = "—", "agent not running · ctrl+p: retry"
        self.notify(message.error, title="Agent could not start", severity="error", timeout=12)

    @on(StoresReady)
    def _stores_ready(self) -> None:
        for screen in self.screen_stack:
            if hasattr(screen, "reload"):
                screen.reload()
        if self._replay_id:  # `paperpilot replay ID`
            self.replay(self._replay_id)
            self._replay_id = None

    @on(LastSession)
    def _last_session(self, message: LastSession) -> None:
        from paperpilot_tui.resume import continue_last

        continue_last(self, message.session_id)

    @on(AgentEvent)
    def _research_event(self, message: AgentEvent) -> None:
        self.research.on_event(message)  # after the main screen's panes have rendered it

    @on(TurnEnded)
    def _research_turn_ended(self, message: TurnEnded) -> None:
        self.research.on_turn_ended(message)

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        self.session.worker_changed(event)

    # ---- actions -------------------------------------------------------------------------------

    def action_help(self) -> None:
        from paperpilot_tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen(self.screen))

    def action_open_memory(self) -> None:
        from paperpilot_tui.screens.memory import MemoryScreen

        self._open(MemoryScreen)

    def action_open_sessions(self) -> None:
        from paperpilot_tui.screens.sessions import SessionsScreen

        self._open(SessionsScreen)

    def action_open_replay(self) -> None:
        from paperpilot_tui.screens.replay import ReplayScreen

        self._open(ReplayScreen)

    def action_open_topics(self) -> None:
        from paperpilot_tui.screens.topics import TopicsScreen

        self._open(TopicsScreen)

    def action_open_collections(self) -> None:
        from paperpilot_tui.screens.collections import CollectionsScreen

        self._open(CollectionsScreen)

    def action_open_lineage(self) -> None:
        """The lineage of the last question's topic; with no question yet, of a topic typed in."""
        from paperpilot_tui.screens.dialogs import PromptScreen

        if topic := self.main_screen.last_question:
            self.open_lineage(topic)
        else:
            self.push_screen(PromptScreen("Lineage of which topic?", placeholder="e.g. how attention evolved"),
                             lambda text: self.open_lineage(text) if text and text.strip() else None)

    def open_lineage(self, topic: str) -> None:
        from paperpilot_tui.screens.lineage import LineageScreen

        while len(self.screen_stack) > 2:  # one browser at a time, over the main screen
            self.pop_screen()
        self.push_screen(LineageScreen(topic.strip()))

    def use_collection(self, name: str) -> bool:
        """Answer the next questions from collection ``name`` (the status bar follows)."""
        if not self.session.use_collection(name):
            return False
        status = self.main_screen.status
        status.collection = self.session.collection
        if self.session.agent is None:
            status.activity = f"opening collection {name}"
        return True

    def ask_in_topic(self, text: str) -> None:
        """Back on the main screen with ``text`` (a question scoped to a topic) typed in, to finish."""
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.main_screen.action_focus_input()
        box = self.main_screen.query_one("#chat-input")
        box.load_text(text)
        box.move_cursor(box.document.end)

    def _open(self, screen_type: type) -> None:
        if isinstance(self.screen, screen_type):
            return
        while len(self.screen_stack) > 2:  # one browser at a time, over the main screen
            self.pop_screen()
        self.push_screen(screen_type())

    def action_new_session(self) -> None:
        self.session.new()
        self._back_to_main()
        self.notify(f"new session {self.session.session_id}", timeout=3)

    def session_deleted(self, session_id: str) -> None:
        """A stored session was deleted: if it is the current one, continue in a fresh session
        (its conversation is gone; a next question must not recreate it under the old id)."""
        if session_id != self.session.session_id:
            return
        self.session.new()
        self.main_screen.clear()
        self.main_screen.status.session = self.session.session_id
        self.notify(f"the current session was deleted; new session {self.session.session_id}", timeout=4)

    def open_session(self, session_id: str) -> None:
        """Resume a stored session on the main screen."""
        self.session.resume(session_id)
        self._back_to_main()
        self.main_screen.status.collection = self.session.collection

    def replay(self, trace_id: str, speed: float = 1.0) -> None:
        """Play a recorded turn on the main screen."""
        self.session.replay(trace_id, speed)
        self._back_to_main()

    def _back_to_main(self) -> None:
        """After the session switched (it has cancelled what ran): close the browser, clear the panes."""
        while len(self.screen_stack) > 2:
            self.pop_screen()
        self.main_screen.clear()
        self.main_screen.replay_shown = False
        self.main_screen.status.session = self.session.session_id

    def action_toggle_research(self) -> None:
        self.research.toggle()

    def action_research_continue(self) -> None:
        self.research.continue_()

    def action_research_export(self) -> None:
        self.research.export()

    def action_retry_agent(self) -> None:
        self.main_screen.status.activity = "starting the agent"
        self.session.restart()

    def action_use_offline_brain(self) -> None:
        status = self.main_screen.status
        status.brain, status.activity = "offline (switching)", "starting the agent"
        self.session.restart(provider="offline")
        self.notify("switching to the offline brain (no network); --llm openai picks the LLM again", timeout=5)

    def action_cycle_theme(self) -> None:
        names = [t for t in CYCLE if t in self.available_themes]
        idx = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(idx + 1) % len(names)]
        self.notify(f"theme: {self.theme}", timeout=2)

    def action_high_contrast(self) -> None:
        self.theme = HIGH_CONTRAST.name

    def action_dismiss_screen(self) -> None:
        if len(self.screen_stack) > 2:
            self.pop_screen()

    def watch_theme(self, theme: str) -> None:
        if getattr(self, "_theme_restored", False):
            try:
                save_pref(self.settings, "theme", theme)
            except OSError as exc:
                self.notify(f"could not remember the theme: {exc}", severity="warning")
        if self.main_screen.is_mounted:
            self.main_screen.query_one("#graph-view").refresh_view()


def main(config: str | None = None, session: str | None = None, replay: str | None = None,
         llm: str | None = None, offline: bool = False, collection: str | None = None,
         resume_last: bool = False) -> int:
    """Entry point for ``paperpilot`` (and ``paperpilot replay``): load settings, run the app
    (``offline``: no network, so no web search fallback either; ``collection``: answer from it, and
    say so once the hub is up if it has no such collection; ``resume_last``: ``--continue``)."""
    from core.config import ConfigError, load_settings

    try:
        settings = load_settings(config)
    except ConfigError as exc:
        for line in exc.lines:
            print(f"paperpilot: config error: {line}", file=sys.stderr)
        return 2
    if llm:  # --llm: this run's brain, whatever llm.provider says
        settings.llm.provider = llm
    if offline:
        settings.agent.web_search_fallback.enabled = False
    if collection:
        settings.mcp.collection = collection
    if resume_last:
        settings.tui.resume = "last"
    for key in ("state_db", "checkpoints_db"):  # a data dir or file not ours: one line (UnsafePath) before the screen
        settings.paths.file(key)
    return run_app(PaperPilotApp(settings, session=session, replay=replay, check_collection=bool(collection)))


def run_app(app: App, **run_kwargs: Any) -> int:
    """Run the app to the end, then leave the process ready to exit at once.

    When ``run`` returns, everything is saved and the terminal restored. The interpreter's final
    garbage collection would then walk every object torch and transformers made, which took
    2-4 s after the screen was gone (``bench/tui.py`` measures quit): frozen objects are left to
    the OS, which frees the memory at once."""
    import gc

    app.run(**run_kwargs)
    gc.freeze()
    return 0
