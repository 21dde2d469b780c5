"""What the chat says when the critic asks for a retry: the critic's verdict (score, what is missing),
never another step's raw model text (a weak model's refine reflection was shown as is)."""

from __future__ import annotations

from types import SimpleNamespace

from core.brains.base import RefinePlan
from core.events import RetryStarted
from core.nodes.retry_refine import retry_refine_node
from core.state import AgentState
from core.telemetry import capture
from core.types import CriticVerdict, Intent
from paperpilot_tui.widgets.chat import retry_note

JUNK = "[1] [2] [3] reformulated_query: (none) I think the answer is maybe"


async def test_the_retry_event_carries_the_verdict_and_the_note_shows_it():
    class Brain:
        async def refine(self, question, intent, verdict):
            return RefinePlan(reflection=JUNK, extra_queries=["QLoRA paged optimizer memory"])

    verdict = CriticVerdict(passed=False, score=4.5, completeness=0.5, faithfulness=1, feedback=JUNK,
                            issues=["no sentence on QLoRA's accuracy", "claim 2 is uncited"])
    state = AgentState(question="Compare LoRA and QLoRA", turn_id="t", critic_verdict=verdict,
                       intent=Intent(type="comparative", confidence=0.9, entities=["LoRA", "QLoRA"]))
    events: list = []
    with capture(events.append):
        await retry_refine_node(state, SimpleNamespace(context=SimpleNamespace(brain=Brain())))
    retry = next(e for e in events if isinstance(e, RetryStarted))
    note = retry_note(retry)
    assert note == ("↻ the critic asked for a retry (1): score 4.5/10 · no sentence on QLoRA's accuracy; "
                    "claim 2 is uncited")
    assert "reformulated_query" not in note and "[1]" not in note


def test_a_trace_recorded_before_verdicts_were_carried_still_reads():
    assert retry_note(RetryStarted(attempt=2, feedback="look for the table")) == \
        "↻ the critic asked for a retry (2): look for the table"
