"""Defect 10 of the app issue: an offline answer builds up on screen sentence by sentence."""

from __future__ import annotations

import re

import pytest
from textual.widgets._markdown import MarkdownBlock, MarkdownTableContent

from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.chat import Answer
from tests.tui.conftest import real_agent_factory, settle, wait_until
from tests.tui.stub_hub import StubHub

_CITES = re.compile(r"\[(\d+)\]")


async def test_the_offline_answer_is_shown_in_parts_before_the_turn_ends(settings, monkeypatch):
    """Every write to the answer's Markdown stream is recorded (no sampling of the screen on a clock,
    which missed partial states on a loaded machine): the answer must reach the screen in at least two
    writes before the turn ends, each a prefix of what follows."""
    from paperpilot_tui.widgets.chat import ChatPane

    settings.memory.enabled = False
    settings.tui.answer_pace = 0.6  # a sentence at a time, well apart from each other
    writes: list[str] = []
    ended: list[int] = []
    flush = ChatPane._flush

    async def recording_flush(self: ChatPane) -> None:
        if self._buffer and self._stream is not None and not ended:
            writes.append("".join(self._buffer))
        await flush(self)

    monkeypatch.setattr(ChatPane, "_flush", recording_flush)
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.agent is not None)
        box = app.main_screen.query_one("#chat-input")
        box.load_text("How does QLoRA compare with LoRA in memory and speed?")
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.main_screen.turns_ended == 1 and not ended.append(1), timeout=120)
        await settle(pilot)
        assert app.main_screen.query(Answer).last().source.strip()
    assert len([w for w in writes if w.strip()]) >= 2, writes  # it grew on screen while the turn ran


def _final_answer(name: str) -> str:
    from core.events import TurnFinished
    from tests.support.recorded import recorded_events

    return next(e for e in recorded_events(name) if isinstance(e, TurnFinished)).result.final_answer


def _table_rows(markdown: str) -> list[list[str]]:
    """The body rows of the Markdown table in ``markdown``, cells stripped (header and rule left out)."""
    lines = [line for line in markdown.splitlines() if line.startswith("|")]
    return [[c.strip() for c in line.strip("|").split("|")] for line in lines[2:]]


@pytest.mark.parametrize("name", ["compare", "follow_up"])
@pytest.mark.parametrize("pace", ["default", 0])
async def test_a_streamed_demo_answer_ends_as_the_whole_final_answer(settings, name, pace):
    """App issue, defect 1: the streamed comparison table lost its QLoRA row and its 'Comparison.'
    paragraph (the column sizer raised NoMatches on a replaced table, killing the stream task, and
    the final update never ran). Whatever the stream does, what is shown at the end is the final
    answer, its citation markers renumbered as the answer has them."""
    from paperpilot_tui.widgets.chat import block_text, link_citations
    from tests.support.recorded import COMPARE_Q, FOLLOW_Q, RecordedAgent
    from tests.tui.conftest import ask
    from tests.tui.test_flows import recorded_app

    default_pace = type(settings.tui)().answer_pace
    rate = 1 / default_pace if pace == "default" else 0.0
    app, _ = recorded_app(settings, agent_type=lambda traces: RecordedAgent(traces, token_rate=rate))
    failures: list[BaseException] = []
    async with app.run_test(size=(120, 40)) as pilot:
        if name == "follow_up":
            await ask(pilot, COMPARE_Q)
        await ask(pilot, COMPARE_Q if name == "compare" else FOLLOW_Q)
        failures += [w.error for w in app.workers if w.error is not None]
        answer = app.main_screen.query(Answer).last()
        final = _final_answer(name)
        assert answer.source == link_citations(final)
        shown = "\n".join(block_text(b) for b in answer.children if isinstance(b, MarkdownBlock))
        assert _CITES.findall(shown) == _CITES.findall(final)  # every marker, in the answer's numbering
        rows = _table_rows(final)
        tables = answer.query(MarkdownTableContent)
        assert len(tables) == (1 if rows else 0)
        if rows:
            assert [[c.plain for c in row] for row in tables.first().rows] == [
                [_strip_md(c) for c in row] for row in rows]
    assert not failures, failures


def _strip_md(cell: str) -> str:
    """A cell as Markdown renders it: bold markers gone, citation links shown as ``[n]``."""
    return cell.replace("**", "")
