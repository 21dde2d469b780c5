"""Layout at the sizes people really use: from 80×24 up every pane gets rows to show, and the
status bar always shows what the agent is doing."""

from __future__ import annotations

import pytest

from paperpilot_tui.widgets.status import StatusBar
from tests.support.recorded import COMPARE_Q
from tests.tui.conftest import ask
from tests.tui.test_flows import recorded_app

PANES = ("chat", "graph", "trace", "memory")
SIZES = [(80, 24), (100, 30), (120, 40), (160, 50)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_every_pane_has_rows(settings, size):
    """Side by side where all four fit, one at a time (tabs) below that: each pane, once on
    screen, has content rows inside its border."""
    app, _ = recorded_app(settings)
    async with app.run_test(size=size) as pilot:
        await ask(pilot, COMPARE_Q)
        screen = app.main_screen
        narrow = screen.has_class("narrow")
        assert narrow == (size[0] < 100), size
        for pane in PANES:
            if narrow:
                screen.action_pane(pane)
                await pilot.pause()
            widget = screen.query_one(f"#{pane}")
            assert widget.content_region.height > 0, (size, pane, widget.region)
            assert widget.content_region.width >= 30, (size, pane, widget.region)


async def test_status_bar_keeps_activity_at_80x24(settings):
    """At 80 columns the lower-priority segments go, not the activity indicator."""
    app, _ = recorded_app(settings)
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(pilot, COMPARE_Q)
        bar = app.main_screen.query_one(StatusBar)
        line = "".join(seg.text for seg in bar.render_line(0))
        assert "● ready" in line, line
        assert "brain" in line, line
