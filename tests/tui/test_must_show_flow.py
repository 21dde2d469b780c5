"""Issue 25's must-show session, in the real app on the real bundled hub and the real agent:
``/ingest`` two PDFs, ``/collection`` to their collection, ask about one with ``@[Title]``,
regenerate that answer (r on the focused answer), quit, relaunch with ``--continue`` and find the
session in the sidebar. Regenerating an answer scoped by a mention stays scoped to that paper.

The PDFs are the two smallest of the full-text dev set, used only as files to ingest (no question
of it is read); the regenerate test uses the invented papers of :func:`tests.tui.test_collections.mine_db`."""

from __future__ import annotations



from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.chat import Question
from paperpilot_tui.widgets.sidebar import ConversationsSidebar
from tests.tui.conftest import own_hub_app, settle, wait_until
from tests.tui.test_collections import mine_db  # noqa: F401 - the fixture: a hub with the collection "mine"



def _notes(app) -> list[str]:
    return [str(n.render()) for n in app.main_screen.query("#chat-log ChatNote")]


async def _send(pilot, text: str, *, turn: bool = False) -> None:
    screen = pilot.app.main_screen
    before = screen.turns_ended
    screen.query_one("#chat-input").load_text(text)
    await pilot.press("enter")
    if turn:
        await wait_until(pilot, lambda: screen.turns_ended > before, timeout=300)
        await settle(pilot)


def _cited(app) -> set[str]:
    return {s.doc_id for s in app.main_screen.query_one("SourcesPanel").sources}


async def _regenerate(pilot) -> None:
    """alt+up focuses the latest answer; r asks its question again as a new turn."""
    screen = pilot.app.main_screen
    await pilot.press("alt+up")
    assert pilot.app.focused is screen.answers()[-1]
    before = screen.turns_ended
    await pilot.press("r")
    await wait_until(pilot, lambda: screen.turns_ended > before, timeout=300)
    await settle(pilot)


def _retrieved(app) -> list[str]:
    """The chunk ids the session's latest recorded turn retrieved."""
    traces = app.session.stores.traces
    last = traces.list(app.session.session_id, 1)[0]
    return [c for ev in traces.get(last.trace_id).events if type(ev).__name__ == "RetrievalFinished"
            for c in ev.chunk_ids]


def _mine_settings(settings, db):
    """Memory off, on the collection ``mine`` of the hub database ``db`` (its own stdio process)."""
    settings.memory.enabled = False
    settings.mcp.collection = "mine"
    settings.mcp.connections["hub"].args = ["-m", "core.hub", "serve", "--db", str(db)]
    return settings


async def _ask_scoped(pilot, app) -> None:
    """Once the app is warm, ask about Glimmerbeam scoped to Thistlenet by its mention; only Thistlenet is cited."""
    await wait_until(pilot, lambda: app.session.warm.is_set() and app.slash.loaded, timeout=180)
    await _send(pilot, "@thistlenet How much memory does Glimmerbeam save?", turn=True)
    assert _cited(app) <= {"thistlenet"}


async def test_regenerating_a_mentioned_papers_answer_stays_on_that_paper(settings, mine_db):  # noqa: F811
    """The question is asked about Glimmerbeam but scoped to Thistlenet by its mention; regenerated,
    the new turn is scoped to Thistlenet too (it was asked unscoped and answered from Glimmerbeam)."""
    _mine_settings(settings, mine_db)
    app = PaperPilotApp(settings, blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ask_scoped(pilot, app)
        await _regenerate(pilot)
        record = app.main_screen.query_one("#chat").record
        assert len(record) == 2 and record[1].question == record[0].question
        assert _cited(app) <= {"thistlenet"}, _cited(app)
        retrieved = _retrieved(app)
        assert retrieved and all(c.startswith("thistlenet_") for c in retrieved), retrieved
        assert record[1].doc_id == "thistlenet"


async def test_a_reopened_session_regenerates_a_mentioned_papers_answer_on_that_paper(settings, mine_db):  # noqa: F811
    """The @-scoped question is asked, the app quits; relaunched with ``--continue`` (``tui.resume:
    last``), r on that earlier answer asks again scoped to Thistlenet. The scope used to be lost with
    the app run, so the regenerated turn searched the whole collection and cited Glimmerbeam."""
    _mine_settings(settings, mine_db)
    app = PaperPilotApp(settings, blink=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await _ask_scoped(pilot, app)
        asked_in = app.session.session_id
    settings.tui.resume = "last"
    again = PaperPilotApp(settings, blink=False)
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: again.session.session_id == asked_in and again.main_screen.answers(),
                         timeout=180)
        await wait_until(pilot, lambda: again.session.warm.is_set(), timeout=180)
        record = again.main_screen.query_one("#chat").record
        assert [r.doc_id for r in record] == ["thistlenet"]
        await _regenerate(pilot)
        assert len(record) == 2 and record[1].question == record[0].question and record[1].doc_id == "thistlenet"
        assert _cited(again) <= {"thistlenet"}, _cited(again)
        retrieved = _retrieved(again)
        assert retrieved and all(c.startswith("thistlenet_") for c in retrieved), retrieved



async def test_ingest_collection_mention_regenerate_then_continue_finds_the_session(settings, hub_db, tmp_path,
                                                                                    pdfs):
    app = own_hub_app(settings, hub_db, tmp_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await wait_until(pilot, lambda: app.session.warm.is_set(), timeout=180)
        assert app.session.agent is not None, app.session.agent_error
        await _send(pilot, f"/ingest {pdfs[0]} {pdfs[1]} --collection mine")
        await wait_until(pilot, lambda: any("collection 'mine': 2 added" in n for n in _notes(app)), timeout=600)
        await wait_until(pilot, lambda: "mine" in [c.name for c in app.slash.collections], timeout=60)
        await _send(pilot, "/collection mine")
        await wait_until(pilot, lambda: getattr(app.session.agent, "collection", "") == "mine"
                         and app.session.warm.is_set(), timeout=180)
        await wait_until(pilot, lambda: len(app.slash.docs("mine")) == 2, timeout=60)
        doc_id, title = app.slash.docs("mine")[0]
        await _send(pilot, f"What does @[{title}] propose?", turn=True)
        assert _cited(app) == {doc_id}
        await _regenerate(pilot)
        assert _cited(app) == {doc_id}
        asked = [q.text for q in app.main_screen.query(Question)]
        assert len(asked) == 2 and asked[0] == asked[1], asked
        session_id = app.session.session_id
        await pilot.press("ctrl+q")

    settings.tui.resume = "last"  # what --continue sets
    again = PaperPilotApp(settings, blink=False)
    async with again.run_test(size=(140, 45)) as pilot:
        await wait_until(pilot, lambda: again.session.session_id == session_id, timeout=180)
        # reopened on the collection it was asked in, not on the default one
        await wait_until(pilot, lambda: getattr(again.session.agent, "collection", "") == "mine", timeout=180)
        assert again.session.collection == "mine" and again.main_screen.status.collection == "mine"
        await wait_until(pilot, lambda: [q.text for q in again.main_screen.query(Question)] == asked, timeout=60)
        sidebar = again.main_screen.query_one(ConversationsSidebar)
        assert sidebar.display and sidebar.region.width > 0
        await wait_until(pilot, lambda: bool(sidebar.rows) and sidebar.rows[0].id == session_id, timeout=60)
        title = sidebar.rows[0].title  # the session's title: its first question (the store shortens a long one)
        assert len(title) > 10 and asked[0].startswith(title.rstrip("…")), (title, asked[0])
