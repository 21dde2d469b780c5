"""Defect 16 of the app issue: trace lines read as words, never as Python reprs
(``entities=['LoRA']``), for live turns and for the recorded turns the demo replays."""

from __future__ import annotations

import re

from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.trace import TracePane
from tests.support.recorded import COMPARE_Q, FAIL_Q, FOLLOW_Q, recorded_app
from tests.tui.conftest import ask, real_agent_factory
from tests.tui.stub_hub import StubHub

REPR = re.compile(r"\[['\"]|\w=\[|\{['\"]|\bNone\b|<[\w.]+ object at")


def trace_text(app) -> list[str]:
    lines = []
    for step in app.main_screen.query_one(TracePane).steps:
        lines.append(str(step.title))
        lines.append(str(step._body.render()))
    return lines


async def test_recorded_demo_turns_have_no_reprs_in_the_trace(settings):
    app = recorded_app(settings)
    async with app.run_test(size=(140, 45)) as pilot:
        for question in (COMPARE_Q, FOLLOW_Q, f"please {FAIL_Q} (fail)"):
            await ask(pilot, question)
        lines = trace_text(app)
        assert len(lines) > 20
        assert [line for line in lines if REPR.search(line)] == []


async def test_a_live_turn_has_no_reprs_in_the_trace(settings):
    settings.memory.enabled = False
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()))
    async with app.run_test(size=(140, 45)) as pilot:
        await ask(pilot, COMPARE_Q)
        lines = trace_text(app)
        assert len(lines) > 10
        assert [line for line in lines if REPR.search(line)] == []

