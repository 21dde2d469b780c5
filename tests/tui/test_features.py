"""Pilot tests for what users of the best chat TUIs expect: pane tabs named by their keys, copy,
export, search in the chat, the cost segment, the persisted theme, detail panes, empty states."""

from __future__ import annotations

from textual.widgets import Tabs

from paperpilot_tui.app import PaperPilotApp
from tests.tui.conftest import wait_until


async def test_narrow_tabs_are_labelled_with_the_keys_that_switch_them(settings):
    app = PaperPilotApp(settings, start_backend=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.main_screen.has_class("narrow"))
        labels = [str(t.label) for t in app.main_screen.query_one(Tabs).query("Tab")]
        assert labels == ["F5 Chat", "F6 Graph", "F7 Trace", "F8 Memory"]
        await pilot.press("f6")
        assert app.main_screen.query_one(Tabs).active == "tab-graph"


async def test_the_chosen_theme_comes_back_at_the_next_launch(settings):
    from paperpilot_tui.prefs import prefs_path

    app = PaperPilotApp(settings, start_backend=False)
    async with app.run_test(size=(120, 40)) as pilot:
        assert app.theme == "textual-dark"
        assert not prefs_path(settings).exists()  # launching alone stores nothing: settings stay the default
        await pilot.press("f9")
        chosen = app.theme
        assert chosen != "textual-dark"
    assert settings.tui.theme == "textual-dark"
    again = PaperPilotApp(settings, start_backend=False)
    async with again.run_test(size=(120, 40)) as pilot:
        assert again.theme == chosen
        await pilot.press("f10")
    third = PaperPilotApp(settings, start_backend=False)
    async with third.run_test(size=(120, 40)):
        assert third.theme == "paperpilot-high-contrast"
