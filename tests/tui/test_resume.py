"""``paperpilot --continue`` / ``tui.resume: last``: the app reopens the session used last; with
none, it starts a new one and says so in one line (issue 25, item 5)."""

from __future__ import annotations

from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.cli.main import build_parser
from paperpilot_tui.resume import NO_LAST
from paperpilot_tui.widgets.chat import ChatNote, Question
from tests.support.recorded import RecordedAgent, recorded_factory
from tests.tui.conftest import ask, real_agent_factory, wait_until
from tests.tui.stub_hub import StubHub


def notes(app) -> list[str]:
    return [str(n.render()) for n in app.main_screen.query(ChatNote)]


async def test_continue_reopens_the_last_used_session(settings):
    """A question asked with the real agent; a relaunch with ``tui.resume: last`` (``--continue``)
    is on that session, showing the question, and the next question continues it."""
    settings.memory.enabled = False
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()))
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "What does LoRA freeze?")
        asked_in = app.session.session_id
    settings.tui.resume = "last"
    again = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()))
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: again.session.session_id == asked_in)
        await wait_until(pilot, lambda: [q.text for q in again.main_screen.query(Question)] == ["What does LoRA freeze?"])
        assert again.main_screen.status.session == asked_in
        assert NO_LAST not in notes(again)


async def test_continue_without_any_session_starts_fresh_and_says_so(settings):
    from core.stores import open_stores

    settings.tui.resume = "last"
    stores = open_stores(settings).open_all()  # an empty data dir
    agent = RecordedAgent(stores.traces)
    app = PaperPilotApp(settings, agent_factory=recorded_factory(agent), stores_factory=lambda s: stores)
    async with app.run_test(size=(120, 40)) as pilot:
        first = app.session.session_id
        await wait_until(pilot, lambda: NO_LAST in notes(app))
        assert app.session.session_id == first


async def test_continue_is_documented_and_sets_the_setting(settings, monkeypatch):
    parser = build_parser()
    text = parser.format_help()
    assert "--continue" in text and "tui.resume: last" in text
    assert parser.parse_args(["--continue"]).resume_last is True
    seen = {}
    import paperpilot_tui.app as app_module

    monkeypatch.setattr(app_module, "run_app", lambda app: seen.setdefault("resume", app.settings.tui.resume) and 0)
    monkeypatch.setenv("PAPERPILOT_HOME", settings.paths.home)
    app_module.main(resume_last=True)
    assert seen["resume"] == "last"
