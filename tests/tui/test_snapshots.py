"""SVG snapshots of every screen at a fixed size, driven by recorded real turns replayed through
the real trace store (fixed timestamps and durations, cursor blink off).
Update with ``pytest tests/tui --snapshot-update``."""

from __future__ import annotations

import pytest

from tests.support.screenshots import SCENES, scene_app


@pytest.mark.parametrize("name", list(SCENES))
def test_screen_snapshot(snap_compare, name):
    size, setup = SCENES[name]
    assert snap_compare(scene_app(), terminal_size=size, run_before=setup)
