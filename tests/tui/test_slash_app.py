"""Slash commands, ``@paper`` mentions, ``/ingest`` and removing a document, in the real app.

The end-to-end test runs ONE app session over a real stdio hub (a copy of the indexed bundled hub):
``/ingest`` two real PDFs into a new collection (the progress bar moves before the first file is
written), ``/collection`` switches to it, a question with an ``@`` mention completed from the titles
is answered from that paper only, and the Collections screen removes the other one. The PDFs are
two papers of the full-text dev set used only as files to ingest (no question of it is read)."""

from __future__ import annotations

from types import SimpleNamespace


from paperpilot_tui.app import PaperPilotApp
from tests.tui.conftest import own_hub_app, settle, wait_until
from tests.tui.test_collections import mine_db  # noqa: F401 - the fixture: a hub with the collection "mine"
from tests.tui.test_collections_screen import RecordedHub



def _notes(app) -> list[str]:
    return [str(n.render()) for n in app.main_screen.query("#chat-log ChatNote")]


def _record_ingest(monkeypatch) -> tuple[list, list]:
    """The app's ingest bars as they mount, and the meter's progress after
    every report of the ingestor (read, vectors, written), in order."""
    from paperpilot_tui import app_ingest

    bars: list = []
    samples: list = []

    class Bar(app_ingest.IngestBar):
        def on_mount(self) -> None:  # Textual calls IngestBar.on_mount as well (each class's handler runs)
            bars.append(self)

    class Meter(app_ingest.IngestMeter):
        def parsed(self, *args) -> None:
            super().parsed(*args)
            samples.append(self.now())

        def embedded(self, *args) -> None:
            super().embedded(*args)
            samples.append(self.now())

        def step(self, *args) -> None:
            super().step(*args)
            samples.append(self.now())

    monkeypatch.setattr(app_ingest, "IngestBar", Bar)
    monkeypatch.setattr(app_ingest, "IngestMeter", Meter)
    return bars, samples


async def _type(pilot, text: str) -> None:
    box = pilot.app.main_screen.query_one("#chat-input")
    box.focus()
    box.clear()
    await pilot.press(*text)


def _recorded_app(settings) -> PaperPilotApp:
    app = PaperPilotApp(settings, session="s001", start_backend=False, blink=False)
    app.session.agent = SimpleNamespace(hub=RecordedHub(), collection="default", brain_name="offline",
                                        hub_status="hub (stdio)")
    return app


async def test_an_unknown_command_says_so_in_one_line_and_keeps_the_text(settings):
    app = _recorded_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        box = app.main_screen.query_one("#chat-input")
        await _type(pilot, "/frobnicate the index")
        assert not app.main_screen.query_one("#slash-menu").is_open  # nothing completes it
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("unknown command /frobnicate" in n for n in _notes(app)))
        [line] = [n for n in _notes(app) if "unknown command" in n]
        assert line == "unknown command /frobnicate; /help lists the commands"
        assert box.text == "/frobnicate the index" and not app.session.busy  # nothing lost, nothing asked
        await _type(pilot, "/help")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("/ingest PATH" in n for n in _notes(app)))
        assert box.text == ""  # a command that ran clears the box
        for command, screen in (("/session", "SessionsScreen"), ("/memory", "MemoryScreen")):
            await _type(pilot, command)
            await pilot.press("enter")
            await wait_until(pilot, lambda screen=screen: type(app.screen).__name__ == screen)
            await pilot.press("escape")
            await wait_until(pilot, lambda: app.screen is app.main_screen)
            assert box.text == ""


async def test_commands_that_cannot_run_say_why_in_one_line(settings, tmp_path):
    from core.config import MCPConnection

    settings.mcp.connections["remote"] = MCPConnection(transport="streamable_http", url="http://10.0.0.9:8000/mcp")
    app = _recorded_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        app.slash.refresh()
        await wait_until(pilot, lambda: app.slash.loaded)
        box = app.main_screen.query_one("#chat-input")
        for text, line in [
            ("/collection nosuch", "unknown collection 'nosuch'; the hub has: default (3 documents, 41 chunks), "
                                   "mine (2 documents, 9 chunks)"),
            (f"/ingest {tmp_path}/missing.pdf", f"/ingest: {tmp_path}/missing.pdf: no such file or directory"),
            (f"/ingest {tmp_path} --collection bad/name", "invalid collection name 'bad/name' (letters, digits, '_', "
                                                          "'-', '.')"),
            ("what does @[No Such Paper] say?", "@No Such Paper: no document of the active collection has that "
                                                "title; type @ to list them (collection default)"),
        ]:
            box.load_text(text)
            await pilot.press("escape", "enter")  # esc: the menu closed first; enter sends
            await wait_until(pilot, lambda line=line: _notes(app) and _notes(app)[-1] == line)
            assert box.text == text and not app.session.busy
        app.settings.mcp.connection = "remote"
        box.load_text(f"/ingest {tmp_path}")
        await pilot.press("enter")
        await wait_until(pilot, lambda: "this app asks http://10.0.0.9:8000/mcp" in _notes(app)[-1])
        assert not app.main_screen.query("#ingest-bar") and box.text == f"/ingest {tmp_path}"


async def test_a_double_slash_asks_the_question_and_a_mention_asks_it_scoped(settings):
    app = _recorded_app(settings)
    asked: list[tuple[str, str | None]] = []
    app.session.ask = lambda question, doc_id=None: asked.append((question, doc_id)) or True  # the turn itself is
    async with app.run_test(size=(120, 40)) as pilot:  # tested over a real hub below
        app.slash.refresh()
        await wait_until(pilot, lambda: app.slash.loaded)
        box = app.main_screen.query_one("#chat-input")
        for text in ("//etc holds what?", "@qlora how much memory does it save?"):
            box.load_text(text)
            await pilot.press("escape", "enter")
            await wait_until(pilot, lambda: box.text == "")
        assert asked == [("/etc holds what?", None), ("QLoRA: how much memory does it save?", "qlora")]


async def test_completion_takes_a_command_then_its_argument_with_tab_and_enter(settings):
    app = _recorded_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        app.slash.refresh()
        await wait_until(pilot, lambda: app.slash.loaded)
        box = app.main_screen.query_one("#chat-input")
        menu = app.main_screen.query_one("#slash-menu")
        await _type(pilot, "/col")
        assert menu.is_open and [c.insert for c in menu.candidates] == ["/collection "]
        await pilot.press("enter")  # a command name being typed: enter completes it, sends nothing
        assert box.text == "/collection " and not app.session.busy
        assert [c.insert for c in menu.candidates] == ["default", "mine"]
        await pilot.press("down", "tab")
        assert box.text == "/collection mine" and not menu.is_open
        await _type(pilot, "what does @thist")
        assert [c.label for c in menu.candidates] == []  # the active collection (default) has no such paper
        await _type(pilot, "what does @q")
        assert [c.insert for c in menu.candidates] == ["@[QLoRA: Efficient Finetuning of Quantized LLMs]"]
        await pilot.press("tab")
        assert box.text == "what does @[QLoRA: Efficient Finetuning of Quantized LLMs]"
        await _type(pilot, "/")
        assert len(menu.candidates) == 8
        await pilot.press("escape")  # closes the menu, keeps the text
        assert not menu.is_open and box.text == "/"
        box.remember("/ingest ./", "what next?")
        box.clear()
        await pilot.press("up", "up")  # the history, not the menu: a recalled command offers nothing
        assert box.text == "/ingest ./" and not menu.is_open
        await pilot.press("down")
        assert box.text == "what next?"


def test_slash_completion_snapshot(snap_compare, settings):
    async def run_before(pilot):
        await _type(pilot, "/")
        for widget in pilot.app.screen.query("TextArea"):
            widget.cursor_blink = False
        await pilot.pause()

    assert snap_compare(_recorded_app(settings), terminal_size=(100, 30), run_before=run_before)



async def test_ingest_switch_ask_about_one_paper_and_remove_the_other_in_one_session(settings, hub_db, tmp_path,
                                                                                      pdfs, monkeypatch):
    # What the bar showed is recorded as it happens, so a fast machine (the ingest over before the
    # test looks) cannot hide it or race the bar's removal.
    bars, samples = _record_ingest(monkeypatch)
    app = own_hub_app(settings, hub_db, tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.warm.is_set(), timeout=180)
        assert app.session.agent is not None, app.session.agent_error
        box = app.main_screen.query_one("#chat-input")

        # /ingest: the bar is shown and moves before the first file is written
        box.load_text(f"/ingest {pdfs[0]} {pdfs[1]} --collection mine")
        await pilot.press("enter")
        await wait_until(pilot, lambda: any("collection 'mine': 2 added" in n for n in _notes(app)), timeout=600)
        assert [b.collection for b in bars] == ["mine"]
        assert any(p.fraction > 0 and p.files_done == 0 for p in samples), samples
        assert samples[-1].files_done == 2 and samples[-1].fraction == 1.0
        [summary] = [n for n in _notes(app) if "collection 'mine'" in n]
        assert "0 failed" in summary and summary.rstrip(")").endswith("pages/s")
        rate = summary.rsplit(", ", 1)[1].split()[0]
        assert len(rate.split(".")[1]) == 2, summary  # pages/s with two decimals
        assert not app.main_screen.query("#ingest-bar")

        # /collection mine: completion lists it once the ingest is done
        await wait_until(pilot, lambda: "mine" in [c.name for c in app.slash.collections], timeout=60)
        box.load_text("/collection mine")
        await pilot.press("enter")
        await wait_until(pilot, lambda: getattr(app.session.agent, "collection", "") == "mine"
                         and app.session.warm.is_set(), timeout=180)
        await wait_until(pilot, lambda: len(app.slash.docs("mine")) == 2, timeout=60)

        # @: complete the first paper's title, ask, and the answer cites only it
        doc_id, title = app.slash.docs("mine")[0]
        other = next(d for d, _ in app.slash.docs("mine") if d != doc_id)
        word = title.split()[0].strip(":,").lower()[:4]
        await _type(pilot, f"what does @{word}")
        menu = app.main_screen.query_one("#slash-menu")
        assert f"@[{title}]" in [c.insert for c in menu.candidates]
        while menu.chosen().insert != f"@[{title}]":
            await pilot.press("down")
        await pilot.press("tab")
        box.insert(" propose?")
        assert box.text == f"what does @[{title}] propose?"
        before = app.main_screen.turns_ended
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main_screen.turns_ended > before, timeout=180)
        await settle(pilot)
        sources = app.main_screen.query_one("SourcesPanel").sources
        assert sources and {s.doc_id for s in sources} == {doc_id}, [(s.doc_id, s.title) for s in sources]
        answer = app.main_screen.query_one("#chat").last_answer()
        assert "[1]" in answer, answer

        # the Collections screen removes the other paper, after asking
        from paperpilot_tui.screens.collections import CollectionsScreen
        from paperpilot_tui.screens.dialogs import ConfirmScreen

        await pilot.press("alt+c")
        await wait_until(pilot, lambda: isinstance(app.screen, CollectionsScreen) and bool(app.screen.collections))
        screen = app.screen
        screen.query_one("#collections").move_cursor(row=[c.name for c in screen.collections].index("mine"))
        await pilot.press("enter")
        docs = screen.query_one("#documents")
        await wait_until(pilot, lambda: docs.row_count == 2 and docs.has_focus)
        docs.move_cursor(row=[d for d, _ in screen.shown.docs].index(other))
        await pilot.press("d")
        await wait_until(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        await pilot.press("y")
        await wait_until(pilot, lambda: app.screen is screen and docs.row_count == 1, timeout=60)
        assert [d for d, _ in screen.shown.docs] == [doc_id]
        await wait_until(pilot, lambda: [d for d, _ in app.slash.docs("mine")] == [doc_id])


async def test_a_mention_searches_only_that_paper_even_when_the_question_names_another(settings, request):
    """Unscoped, a question about Glimmerbeam is answered from Glimmerbeam; with ``@thistlenet`` every
    retrieval of the turn searches Thistlenet only (the hub's doc_id filter, passed by the agent)."""
    from tests.tui.conftest import ask

    settings.memory.enabled = False
    settings.mcp.collection = "mine"
    db = request.getfixturevalue("mine_db")
    settings.mcp.connections["hub"].args = ["-m", "core.hub", "serve", "--db", str(db)]
    app = PaperPilotApp(settings, blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.warm.is_set() and app.slash.loaded, timeout=180)
        question = "What does Thistlenet classify, and how much memory does Glimmerbeam save?"
        await ask(pilot, question)
        await ask(pilot, f"@thistlenet {question}")
        scoped = {s.doc_id for s in app.main_screen.query_one("SourcesPanel").sources}
        assert scoped <= {"thistlenet"}, scoped  # (it may decline: Thistlenet says nothing of Glimmerbeam)
        turns = app.main_screen.query_one("#chat").record
        assert turns[-1].question == f"Thistlenet: {question}"  # what was asked
        traces = app.session.stores.traces
        [last, first] = traces.list(app.session.session_id, 2)
        retrieved = [c for ev in traces.get(last.trace_id).events if type(ev).__name__ == "RetrievalFinished"
                     for c in ev.chunk_ids]
        assert retrieved and all(c.startswith("thistlenet_") for c in retrieved), retrieved
        before = [c for ev in traces.get(first.trace_id).events if type(ev).__name__ == "RetrievalFinished"
                  for c in ev.chunk_ids]
        assert any(c.startswith("glimmerbeam_") for c in before), before
