"""A forced pass looks like one (issue 16, point 3): the graph pane shows it in the warning colour
as "forced pass", the chat says why under the answer, and nothing is memorized from it."""

from __future__ import annotations

import io
from contextlib import asynccontextmanager
from types import SimpleNamespace

from rich.console import Console

from core.brains.offline import OfflineBrain
from core.state import CriticVerdict
from core.tracing.describe import forced_pass
from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.chat import ChatNote
from tests.tui.conftest import ask
from tests.tui.stub_hub import StubHub


class NeverSatisfied(OfflineBrain):
    async def critique(self, question, intent, contexts, answer, sub_questions) -> CriticVerdict:
        return CriticVerdict(passed=False, score=6.2, completeness=0.5, faithfulness=1.0,
                             feedback="The answer does not say what LoRA freezes.")


def factory(hub):
    @asynccontextmanager
    async def open_it(settings):
        from core.agent import open_agent

        async with open_agent(settings, hub=hub, brain=NeverSatisfied(settings)) as agent:
            yield agent

    return open_it


async def test_a_forced_pass_is_shown_as_one_and_not_memorized(settings):
    settings.memory.enabled = True
    settings.agent.max_retries = 1
    app = PaperPilotApp(settings, agent_factory=factory(StubHub()))
    async with app.run_test(size=(140, 45)) as pilot:
        await ask(pilot, "What does LoRA freeze?")
        notes = [n for n in app.main_screen.query(ChatNote) if n.has_class("-warning")]
        assert len(notes) == 1
        text = str(notes[0].render())
        assert "forced pass" in text and "1 retry" in text and "6.2/10" in text and "what LoRA freezes" in text
        graph = app.main_screen.query_one("#graph-view")
        console = Console(width=200, record=True, file=io.StringIO())
        console.print(graph.content)
        assert "critic 6.2/10 forced pass" in console.export_text()
        memory = app.main_screen.query_one("#memory")
        assert memory.written == [] and "forced" in memory.skipped


def test_a_forced_pass_without_a_retry_says_so_rather_than_in_0_retries():
    verdict = CriticVerdict(passed=False, forced=True, score=0.1, completeness=0.5, faithfulness=1, feedback="Missing: X.")
    line = forced_pass(SimpleNamespace(critic=verdict, retry_count=0))
    assert line.startswith("forced pass: the critic did not pass the only draft (best 0.1/10: Missing: X.)")
    assert "0 retries" not in line
    assert "in 2 retries" in forced_pass(SimpleNamespace(critic=verdict, retry_count=2))


def test_forced_pass_line_is_empty_for_a_real_pass():
    ok = SimpleNamespace(critic=CriticVerdict(passed=True, score=9, completeness=1, faithfulness=1), retry_count=0)
    assert forced_pass(ok) == ""
    assert forced_pass(SimpleNamespace(critic=None)) == ""
