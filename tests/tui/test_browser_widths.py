"""The browsers' tables fit the terminal: at 80×24 the sessions list (F2) cut its "updated" and "turns"
columns off the right edge (12 + 60 + 16 + 5 columns and their padding), and the replay, collections
and topics lists did the same. The wide text column (title, question, keyphrases) takes what the other
columns leave, at most its old width, and follows a resize."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable

from tests.tui.conftest import wait_until
from tests.tui.test_flows import recorded_app

SCREENS = ["open_sessions", "open_replay", "open_collections", "open_topics", "open_memory"]


def _overflow(app) -> dict[str, int]:
    """Columns' width past each table's visible width, by table id (only tables that overflow)."""
    out = {}
    for table in app.screen.query(DataTable):
        over = table.virtual_size.width - table.scrollable_content_region.width
        if over > 0:
            out[table.id] = over
    return out


@pytest.mark.parametrize("action", SCREENS)
async def test_every_browser_table_fits_80_columns_and_follows_a_resize(settings, action):
    app, _ = recorded_app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        await app.run_action(action)
        await wait_until(pilot, lambda: app.screen is not app.main_screen and app.screen.query(DataTable))
        await pilot.pause()
        assert _overflow(app) == {}, _overflow(app)
        assert all(t.virtual_size.width > 30 for t in app.screen.query(DataTable))  # the wide column kept some room
        await pilot.resize_terminal(160, 40)
        await pilot.pause()
        wide = {t.id: t.virtual_size.width for t in app.screen.query(DataTable)}
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert _overflow(app) == {}, _overflow(app)
        narrow = {t.id: t.virtual_size.width for t in app.screen.query(DataTable)}
        assert any(wide[k] > narrow[k] for k in wide), (wide, narrow)  # at 160 the text column grew back
