"""SVG snapshots of every screen at a fixed size, driven by recorded real turns replayed through
the real trace store (fixed timestamps and durations, cursor blink off).
Update with ``pytest tests/tui --snapshot-update``."""

from __future__ import annotations

import pytest

from tests.support.screenshots import SCENES, scene_app


# scenes with a snapshot test of their own, on their own app: test_sidebar.py, test_collections_screen.py
# and test_slash_app.py (their scenes here are for screenshots/ only)
OWN_TESTS = {"sidebar", "collections", "slash_completion"}


@pytest.mark.parametrize("name", [n for n in SCENES if n not in OWN_TESTS])
def test_screen_snapshot(snap_compare, name):
    size, setup = SCENES[name]
    assert snap_compare(scene_app(), terminal_size=size, run_before=setup)


async def _answer_then_pane(pilot, pane: str) -> None:
    from tests.support.screenshots import _freeze, main_answer

    await main_answer(pilot)
    pilot.app.main_screen.action_pane(pane)
    await _freeze(pilot)


LAYOUTS = {
    # all four panes side by side, sized in proportion (120×40 is ``main_answer`` above)
    "100x30": ((100, 30), "chat"),
    "160x50": ((160, 50), "chat"),
    # 80×24 shows one pane at a time (chat is ``main_narrow_80x24`` above)
    "80x24_graph": ((80, 24), "graph"),
    "80x24_trace": ((80, 24), "trace"),
    "80x24_memory": ((80, 24), "memory"),
}


@pytest.mark.parametrize("name", list(LAYOUTS))
def test_layout_snapshot(snap_compare, name):
    """Every pane with rows to show at each size from 80×24 up."""
    size, pane = LAYOUTS[name]
    assert snap_compare(scene_app(), terminal_size=size, run_before=lambda pilot: _answer_then_pane(pilot, pane))
