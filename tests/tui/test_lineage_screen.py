"""The Lineage screen over a real ``get_lineage`` answer recorded from four invented papers that cite
each other (``tests/data/lineage_quokka.json``, ``python -m tests.support.record_lineage``): a list
at 80×24, a graph with year columns and cite arrows at 140×45, arrows move, enter opens a paper's
sources; alt+l after an answer and the palette open it. SVG snapshots at both sizes."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from textual.command import CommandList, CommandPalette

from core.types import TurnResult
from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.screens.dialogs import PromptScreen
from paperpilot_tui.screens.lineage import LineageScreen
from paperpilot_tui.widgets.chat import LINEAGE_HINT
from paperpilot_tui.widgets.lineage_graph import render_graph, render_list
from tests.tui.conftest import wait_until

RECORDED = json.loads((Path(__file__).resolve().parents[1] / "data" / "lineage_quokka.json").read_text())
QUESTION = "How did quokka attention evolve?"


class RecordedHub:
    """Answers get_lineage with the recorded structured content, as HubClient returns it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    async def get_lineage(self, topic: str | None = None, doc_ids=None, collection: str | None = None):
        self.calls.append((topic or "", collection or ""))
        return SimpleNamespace(structured=RECORDED, texts=[])


def _app(settings) -> PaperPilotApp:
    app = PaperPilotApp(settings, start_backend=False, blink=False)
    app.session.agent = SimpleNamespace(hub=RecordedHub(), collection="quokkas", brain_name="offline",
                                        hub_status="hub (stdio)")
    return app


def _answered(app: PaperPilotApp) -> None:
    """The main screen as after an exploratory answer to QUESTION."""
    app.main_screen.last_question = QUESTION


async def _open_lineage(pilot) -> None:
    app = pilot.app
    _answered(app)
    await pilot.press("alt+l")
    await wait_until(pilot, lambda: isinstance(app.screen, LineageScreen) and bool(app.screen.lineage))
    for widget in app.screen.query("TextArea, Input"):
        widget.cursor_blink = False
    await pilot.pause()


def test_the_list_and_the_graph_draw_years_papers_and_cite_arrows():
    narrow = render_list(RECORDED, 78, 0).plain.splitlines()
    assert [line[:4] for line in narrow] == ["2014", "2016", "2018", "2020"]
    assert narrow[2].endswith("◀ 1, 2") and narrow[3].endswith("◀ 2, 3") and all(len(line) <= 78 for line in narrow)
    wide = render_graph(RECORDED, 138, 3).plain.splitlines()
    years, rows = wide[0], wide[2:]
    assert years.split() == ["2014", "2016", "2018", "2020"]
    col = years.index("2016")
    assert rows[0].startswith("[1] Quokka Attention")
    assert rows[1].startswith("●" + "─" * (col - 2) + "▶[2] Gated Quokka")  # 2016 cites 2014
    assert rows[3].index("[4]") == 3 * col and rows[3][col] == "●" and rows[3][2 * col] == "●"  # cites 2016, 2018
    assert rows[3][:col].strip() == ""  # nothing drawn under 2014: the 2020 paper does not cite it


async def test_at_80x24_the_lineage_is_a_list_and_enter_opens_a_papers_sources(settings):
    app = _app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await _open_lineage(pilot)
        screen = app.screen
        assert app.session.agent.hub.calls == [(QUESTION, "quokkas")]
        view = str(screen.query_one("#lineage-view").render())
        assert view.splitlines()[0].startswith("2014  [1] Quokka Attention")
        await pilot.press("down", "down")
        detail = str(screen.query_one("#lineage-paper").render())
        assert detail.startswith("[3] Deep Quokka Attention at Scale · 2018") and "cites [1], [2]" in detail
        await pilot.press("enter")
        sources = str(screen.query_one("#lineage-paper").render())
        assert "Deep Quokka Attention at Scale > " in sources and "deep2018.pdf" in sources
        assert "It cites Gated Quokka Attention Networks · confidence 0.95: “Gated networks (Okafor, 2016)" in sources
        assert "It is cited by Quokka Attention without Gates" in sources
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main_screen)


async def test_at_140x45_the_lineage_is_a_graph(settings):
    app = _app(settings)
    async with app.run_test(size=(140, 45)) as pilot:
        await _open_lineage(pilot)
        lines = str(app.screen.query_one("#lineage-view").render()).splitlines()
        assert lines[0].split() == ["2014", "2016", "2018", "2020"] and "▶[2] Gated Quokka" in lines[3]


async def test_the_palette_opens_the_lineage_of_a_typed_topic_before_any_question(settings):
    app = _app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"Lineage")
        await wait_until(pilot, lambda: app.screen.query_one(CommandList).option_count > 0)
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"quokka attention", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, LineageScreen) and bool(app.screen.lineage))
        assert app.session.agent.hub.calls == [("quokka attention", "quokkas")]


async def test_an_exploratory_answer_leads_to_the_lineage_of_its_question(settings):
    from core.events import TurnFinished
    from paperpilot_tui.messages import AgentEvent

    app = _app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        result = TurnResult(question=QUESTION, session_id="s", trace_id="t", intent=None, strategy="exploratory",
                            final_answer="…", sources=[], critic=None, retry_count=0, llm_calls=0, tokens={},
                            timings_ms={})
        main.post_message(AgentEvent(TurnFinished(result=result), run=app.session.run))
        await wait_until(pilot, lambda: main.last_question == QUESTION)
        notes = [str(n.render()) for n in main.query("ChatNote")]
        assert LINEAGE_HINT in notes  # the exploratory answer says how to reach its lineage
        await pilot.press("alt+l")
        await wait_until(pilot, lambda: isinstance(app.screen, LineageScreen) and bool(app.screen.lineage))
        assert app.session.agent.hub.calls == [(QUESTION, "quokkas")]


async def test_the_librarys_list_of_papers_offers_no_lineage(settings):
    """ "What papers do I have?" is answered by the collection's list of papers (an exploratory turn);
    the list is no line of work, so the lineage hint that follows other exploratory answers is left out."""
    from core.events import TurnFinished
    from paperpilot_tui.messages import AgentEvent

    app = _app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        main = app.main_screen
        listing = ("### The 2 papers of the collection\n\n- **Quokka Attention** (2019): Quokkas attend [1].\n"
                   "- **Wombat Memory** (2020): Wombats remember [2].")
        result = TurnResult(question="What papers do I have?", session_id="s", trace_id="t", intent=None,
                            strategy="exploratory", final_answer=listing, sources=[], critic=None, retry_count=0,
                            llm_calls=0, tokens={}, timings_ms={})
        main.post_message(AgentEvent(TurnFinished(result=result), run=app.session.run))
        await wait_until(pilot, lambda: main.last_question == "What papers do I have?")
        notes = [str(n.render()) for n in main.query("ChatNote")]
        assert LINEAGE_HINT not in notes


def test_lineage_snapshot_80x24(snap_compare, settings):
    assert snap_compare(_app(settings), terminal_size=(80, 24), run_before=_open_lineage)


def test_lineage_snapshot_140x45(snap_compare, settings):
    assert snap_compare(_app(settings), terminal_size=(140, 45), run_before=_open_lineage)
