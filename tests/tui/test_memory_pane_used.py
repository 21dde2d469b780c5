"""The memory pane tells the facts an answer drew on from those recall found but the answer left out
(recall ranks by similarity; the brain keeps a fact only when it answers this question), so a fact about
another paper is not shown as if it shaped the answer."""

from __future__ import annotations

from textual.app import App, ComposeResult

from core.events import AnswerReady, MemoryRecalled, TurnStarted
from paperpilot_tui.widgets.memory_pane import MemoryPane, drew_on

USED = "Kestrel: Reading Receipts says: Kestrel re-runs slow tasks near the end of a job on idle workers."
OTHER = "Osprey: Forms says: Osprey learns from bags of instances with one positive label."
ANSWER = ("Kestrel schedules backup copies of the last tasks [1].\n\nFrom earlier sessions: Kestrel: Reading "
          "Receipts says: Kestrel re-runs slow tasks near the end of a job on idle workers.")


class _Host(App):
    def compose(self) -> ComposeResult:
        yield MemoryPane(id="memory")


def _text(app: App) -> str:
    return str(app.query_one("#memory-facts").render())


async def test_the_pane_marks_recalled_facts_the_answer_did_not_use() -> None:
    app = _Host()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(MemoryPane)
        pane.apply(TurnStarted(question="How does Kestrel deal with slow workers?", session_id="s1"))
        pane.apply(MemoryRecalled(facts=[USED, OTHER], fact_ids=[1, 2]))
        await pilot.pause()
        lines = _text(app).splitlines()
        assert lines[:2] == [f"• {USED}", f"• {OTHER}"]  # before the answer: what recall found
        pane.apply(AnswerReady(answer=ANSWER))
        await pilot.pause()
        lines = _text(app).splitlines()
        assert lines[:3] == ["recalled 2; the answer used 1 of the 2 from papers:", f"• {USED}", f"◦ {OTHER} (not used)"]
        pane.apply(TurnStarted(question="next", session_id="s1"))
        await pilot.pause()
        assert _text(app).splitlines()[0] == "No facts recalled for this turn."


async def test_every_fact_used_needs_no_count_line() -> None:
    app = _Host()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(MemoryPane)
        pane.apply(MemoryRecalled(facts=[USED], fact_ids=[1]))
        pane.apply(AnswerReady(answer=ANSWER))
        await pilot.pause()
        assert _text(app).splitlines()[0] == f"• {USED}"


async def test_the_users_own_note_is_never_marked_unused() -> None:
    """A pinned or hand-added fact ("Answer in British English.") is followed, not quoted: not judged."""
    note = "Prefer papers after 2020 in every answer."
    app = _Host()
    async with app.run_test(size=(100, 20)) as pilot:
        pane = app.query_one(MemoryPane)
        pane.apply(MemoryRecalled(facts=[note, OTHER], fact_ids=[1, 2]))
        pane.apply(AnswerReady(answer=ANSWER))
        await pilot.pause()
        assert _text(app).splitlines()[:3] == ["recalled 2; the answer used 0 of the 1 from papers:", f"• {note}",
                                               f"◦ {OTHER} (not used)"]


def test_a_fact_restated_in_other_order_counts_and_its_title_alone_does_not() -> None:
    assert drew_on("On idle workers, Kestrel re-runs the slow tasks at a job's end [2].", USED)
    assert not drew_on("Kestrel: Reading Receipts is a paper about receipts [1].", USED)  # the title is no claim
    assert not drew_on(ANSWER, OTHER)
