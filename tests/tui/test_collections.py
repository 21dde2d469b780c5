"""Collections in the app: ``paperpilot --collection C``, ``ask --collection`` with an unknown name, the
status bar keeping the hub and the collection after a turn, and the Collections screen (alt+c) over
the real bundled hub: counts, a collection's documents, switching the collection the next question
is answered from. Two invented papers make the second collection ``mine`` (written below)."""

from __future__ import annotations

import shutil

import pytest

from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.status import StatusBar
from tests.support.ask_proc import write_settings
from tests.support.cli import cli
from tests.tui.conftest import ask, real_agent_factory, wait_until
from tests.tui.stub_hub import StubHub

# invented for these tests (no real paper): two documents of the collection "mine"
MINE = {
    "glimmerbeam.md": "# Glimmerbeam: Sparse Attention over Star Catalogues\n\n## Abstract\n"
                      "Glimmerbeam is a sparse attention method for star catalogues. It attends only to the "
                      "sixteen nearest stars of each star and cuts the memory of a catalogue transformer by "
                      "seven times.\n\n## Results\nOn a catalogue of two million stars Glimmerbeam keeps the "
                      "accuracy of dense attention.\n",
    "thistlenet.md": "# Thistlenet: Spiky Convolutions for Pollen Images\n\n## Abstract\n"
                     "Thistlenet classifies pollen grains from microscope images with spiky convolutions, "
                     "kernels shaped like the grain's outline.\n",
}


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


def bar_line(app) -> str:
    return "".join(seg.text for seg in app.main_screen.query_one(StatusBar).render_line(0))


# ---- paperpilot --collection C, ask --collection C ---------------------------------------------------

def test_paperpilot_collection_opens_the_app_on_that_collection(monkeypatch, tmp_path):
    """The app's flag reaches the session (the status bar and the agent read it there) and asks it to
    check the name against the hub once the hub is up."""
    import paperpilot_tui.app as app_module
    from paperpilot_tui.cli.main import main

    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    started: list[PaperPilotApp] = []
    monkeypatch.setattr(app_module, "run_app", lambda app, **kw: started.append(app) or 0)  # no terminal here
    assert main(["--collection", "mine"]) == 0
    [app] = started
    assert app.session.collection == "mine" and app.session.check_collection
    assert main([]) == 0
    assert started[1].session.collection == "default" and not started[1].session.check_collection


async def test_an_unknown_collection_says_so_in_one_line_with_the_hubs_collections(settings):
    settings.mcp.collection = "nosuch"
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()), check_collection=True, blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        want = "unknown collection 'nosuch'; the hub has: default (3 documents)"
        await wait_until(pilot, lambda: any(want in n for n in notices(app)))
        [line] = [n for n in notices(app) if want in n]
        assert "\n" not in line and "alt+c" in line
        assert "collection nosuch" in bar_line(app)


@pytest.fixture
def mine_db(tmp_path, hub_db):
    """A copy of the indexed bundled hub with a second collection, ``mine``, of the two invented papers."""
    from core.hub.ingest import Ingestor
    from core.hub.service import Hub

    db = tmp_path / "hub" / "hub.sqlite3"
    db.parent.mkdir()
    shutil.copy(hub_db, db)
    docs = tmp_path / "mine"
    docs.mkdir()
    for name, text in MINE.items():
        (docs / name).write_text(text)
    hub = Hub(db, sync=False)
    hub.start(background=False)
    report = Ingestor(hub.store).ingest(sorted(docs.iterdir()), "mine")
    assert report.ok
    hub.store.close()
    return db


def test_ask_with_an_unknown_collection_exits_2_with_one_line(capsys, tmp_path, monkeypatch, mine_db):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    config = write_settings(tmp_path / "settings.yaml", mine_db)
    code, out, err = cli(capsys, "ask", "--config", str(config), "--collection", "nosuch", "What is Glimmerbeam?")
    assert code == 2 and out == "", (code, out, err)
    [line] = err.strip().splitlines()
    assert "unknown collection 'nosuch'; the hub has: default (" in line
    assert "mine (2 documents, " in line and "Traceback" not in err


# ---- the status bar ----------------------------------------------------------------------------------

async def test_status_bar_keeps_hub_and_collection_after_a_turn_and_names_the_hub_once(settings):
    """A turn's cost appearing used to push the collection (and the hub) out of the bar, and the
    bundled hub read "hub hub (stdio)"."""
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()), blink=False)
    async with app.run_test(size=(140, 40)) as pilot:
        await wait_until(pilot, lambda: "hub (stub)" in bar_line(app))
        before = bar_line(app)
        assert "collection default" in before and "hub hub" not in before, before
        await ask(pilot, "What does LoRA freeze?")
        after = bar_line(app)
        assert app.main_screen.status.cost and "total" in after, after  # the turn's cost is shown
        assert "collection default" in after and "hub (stub)" in after and "hub hub" not in after, after
    async with PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()), blink=False).run_test(
            size=(100, 30)) as pilot:
        await ask(pilot, "What does LoRA freeze?")
        assert "collection default" in bar_line(pilot.app) and "● ready" in bar_line(pilot.app)


# ---- the Collections screen over the real hub --------------------------------------------------------

def _real_hub_settings(settings, mine_db):
    settings.memory.enabled = False
    settings.mcp.connections["hub"].args = ["-m", "core.hub", "serve", "--db", str(mine_db)]
    return settings


async def _open_collections(pilot):
    from paperpilot_tui.screens.collections import CollectionsScreen

    app = pilot.app
    await pilot.press("alt+c")
    await wait_until(pilot, lambda: isinstance(app.screen, CollectionsScreen) and bool(app.screen.collections),
                     timeout=120)
    return app.screen


async def test_collections_screen_lists_documents_and_switches_the_next_questions(settings, mine_db):
    app = PaperPilotApp(_real_hub_settings(settings, mine_db), blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.warm.is_set(), timeout=180)
        assert app.session.agent is not None, app.session.agent_error
        screen = await _open_collections(pilot)
        names = {c.name: c for c in screen.collections}
        assert set(names) == {"default", "mine"}
        assert names["mine"].documents == 2 and names["mine"].chunks >= 2
        assert names["default"].documents >= 10
        table = screen.query_one("#collections")
        assert table.get_row("default")[0] == "●" and table.get_row("mine")[0] == ""  # the active one
        await pilot.press("down")  # default → mine (sorted by name)
        await pilot.press("enter")
        docs = screen.query_one("#documents")
        await wait_until(pilot, lambda: docs.row_count == 2 and "…" not in str(docs.get_row_at(1)), timeout=60)
        rows = {str(docs.get_row_at(n)[0]): docs.get_row_at(n) for n in range(2)}
        assert set(rows) == {"Glimmerbeam: Sparse Attention over Star Catalogues",
                             "Thistlenet: Spiky Convolutions for Pollen Images"}
        assert all(int(r[3]) >= 1 for r in rows.values())  # chunks from the document's summary
        assert docs.has_focus
        await pilot.press("u")  # use "mine" for the next questions
        await wait_until(pilot, lambda: app.screen is app.main_screen)
        await wait_until(pilot, lambda: getattr(app.session.agent, "collection", "") == "mine"
                         and app.session.warm.is_set(), timeout=180)
        assert app.main_screen.query_one("#chat-input").has_focus
        assert "collection mine" in bar_line(app)
        await ask(pilot, "How much memory does Glimmerbeam save?")
        assert "collection mine" in bar_line(app)  # kept after the turn
        sources = app.main_screen.query_one("SourcesPanel").sources
        assert sources and {s.doc_id for s in sources} <= {"glimmerbeam", "thistlenet"}, sources


async def test_collections_screen_before_the_hub_is_up_and_with_no_collections(settings):
    from paperpilot_tui.screens.collections import CollectionsScreen

    class EmptyHub(StubHub):
        async def list_collections(self, timeout=None):
            from types import SimpleNamespace

            return SimpleNamespace(structured={"collections": []}, texts=[])

    app = PaperPilotApp(settings, agent_factory=real_agent_factory(EmptyHub()), start_backend=False, blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("alt+c")
        await wait_until(pilot, lambda: isinstance(app.screen, CollectionsScreen))
        status = app.screen.query_one("#browser-status")
        await wait_until(pilot, lambda: "not open yet" in str(status.render()))
        app.session.start()  # the agent opens while the screen is up: it lists then
        await wait_until(pilot, lambda: "No collections yet" in str(status.render()), timeout=120)
        assert "paperpilot ingest PATH --collection NAME" in str(app.screen.query_one("#documents-title").render())
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main_screen)
