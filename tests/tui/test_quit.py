"""Defect 19 of the app issue: quitting ends the process at once. After the app has run, the
objects torch and transformers made are frozen, so the interpreter's final garbage collection
does not walk them (2-4 s after the screen was gone); ``bench/tui.py`` measures the quit itself."""

from __future__ import annotations

import gc

from paperpilot_tui.app import run_app


class RanApp:
    def __init__(self) -> None:
        self.ran_with: dict | None = None

    def run(self, **kwargs) -> None:
        self.ran_with = kwargs


def test_run_app_runs_the_app_then_freezes_the_heap():
    app = RanApp()
    gc.unfreeze()
    try:
        assert run_app(app, headless=True) == 0
        assert app.ran_with == {"headless": True}
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
