"""What the slash commands and ``@paper`` mentions do in the app (:mod:`paperpilot_tui.slash` parses them).

The controller keeps the hub's collections and the active collection's documents for completion
and for resolving a mention (fetched through the agent's hub client whenever the agent opens, an
ingest ends or a document is removed), runs each command with the app's own actions, and runs
``/ingest`` (:mod:`paperpilot_tui.app_ingest`) with its progress bar above the question box. A
command or a mention that cannot run says why in one line in the chat; the box keeps what was typed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paperpilot_tui import slash
from paperpilot_tui.hub_collections import Collection, example_question, fetch
from paperpilot_tui.runtime import one_line


class SlashController:
    def __init__(self, app: Any) -> None:
        self.app = app
        self.collections: list[Collection] = []
        self.loaded = False  # the collections were fetched at least once

    # ---- what completion and mentions read ---------------------------------------------------------

    @property
    def hub(self) -> Any:
        return getattr(self.app.session.agent, "hub", None)

    def docs(self, collection: str | None = None) -> list[tuple[str, str]]:
        """(doc_id, title) of a collection (the active one by default)."""
        name = collection or self.app.session.collection
        return next((list(c.docs) for c in self.collections if c.name == name), [])

    def complete(self, before: str) -> list[slash.Candidate]:
        return slash.complete(before, collections=[c.name for c in self.collections], docs=self.docs(),
                              cwd=Path.cwd())

    def refresh(self) -> None:
        """Fetch the hub's collections again (in a worker; completion reads the last ones fetched)."""
        self.app.run_worker(self._refresh(), group="slash-collections", exclusive=True, exit_on_error=False)

    async def _refresh(self) -> None:
        if self.hub is None or not hasattr(self.hub, "list_collections"):
            return
        try:
            self.collections = await fetch(self.hub)
            self.loaded = True
        except Exception:  # noqa: BLE001 - completion goes without; the commands still say what fails
            return
        name = self.app.session.collection
        active = next((c for c in self.collections if c.name == name), None)
        # a collection the hub does not list (not made yet), or lists without its documents, keeps the plain hint
        if active is not None and (active.docs or active.documents == 0):
            self.chat.suggest(example_question(active), name)

    # ---- the question box ------------------------------------------------------------------------

    @property
    def chat(self) -> Any:
        return self.app.main_screen.query_one("#chat")

    def say(self, text: str, warning: bool = False) -> None:
        self.chat.note(text, warning=warning)

    def scope(self, text: str) -> slash.Scoped | None:
        """The question with its ``@`` mention resolved, or None (said in the chat) when it names no
        document. Without a mention: the question as typed (``//…``: the question ``/…``)."""
        text = slash.literal(text)
        if not slash.has_mention(text):
            return slash.Scoped(text)
        if not self.loaded:
            self.say("the documents of the collection are not listed yet (the hub is starting); ask again in a moment",
                     warning=True)
            return None
        try:
            return slash.resolve(text, self.docs())
        except slash.SlashError as exc:
            self.say(f"{exc} (collection {self.app.session.collection})", warning=True)
            return None

    def run(self, text: str) -> bool:
        """Run ``text`` if it is a command (True: handled, the box cleared only if it ran)."""
        if not slash.is_command(text):
            return False
        try:
            inv = slash.parse(text)
            ran = getattr(self, f"_{inv.command.name}")(inv.arg)
        except slash.SlashError as exc:
            self.say(str(exc), warning=True)
            return True
        if ran is not False:
            self.app.main_screen.query_one("#chat-input").accept(text)
        return True

    # ---- the commands ----------------------------------------------------------------------------

    def _help(self, _: str) -> None:
        self.say("\n".join(slash.help_lines()))

    def _session(self, _: str) -> None:
        self.app.action_open_sessions()

    def _memory(self, _: str) -> None:
        self.app.action_open_memory()

    def _export(self, _: str) -> None:
        self.app.main_screen.action_export_session()

    def _research(self, topic: str) -> bool:
        research = self.app.research
        if not research.active:
            research.toggle()
        return research.start(topic)

    def _llm(self, provider: str) -> None:
        if provider == "offline":
            self.app.action_use_offline_brain()
            return
        status = self.app.main_screen.status
        status.brain, status.activity = "openai (switching)", "starting the agent"
        self.app.session.restart(provider="openai")
        self.app.notify("switching to the OpenAI-compatible LLM (llm.base_url); /llm offline goes back", timeout=5)

    def _collection(self, name: str) -> bool:
        if self.loaded and name not in {c.name for c in self.collections}:
            from paperpilot_tui.hub_collections import unknown_line

            raise slash.SlashError(unknown_line(name, self.collections))
        if not self.app.use_collection(name):
            return False
        self.say(f"questions are now answered from the collection {name}")
        return True

    def _ingest(self, arg: str) -> bool:
        from paperpilot_tui.app_ingest import start_ingest

        paths, collection = slash.ingest_args(arg)
        return start_ingest(self, paths, collection or self.app.session.collection)

    # ---- after an ingest or a removal ------------------------------------------------------------

    def changed(self) -> None:
        """A collection's documents changed: completion and an open Collections screen list them again."""
        self.refresh()
        from paperpilot_tui.screens.collections import CollectionsScreen

        for screen in self.app.screen_stack:
            if isinstance(screen, CollectionsScreen):
                screen.reload()

    def failed(self, what: str, exc: BaseException) -> None:
        self.say(f"{what}: {one_line(exc)}", warning=True)
