"""What the panes say about one recorded real turn: memory, sources, trace and chat text."""

from __future__ import annotations

from core.events import MemoryWritten
from paperpilot_tui.widgets.memory_pane import MemoryPane
from tests.support.recorded import COMPARE_Q, recorded_events
from tests.tui.conftest import ask
from tests.tui.test_flows import recorded_app

COMPARE = recorded_events("compare")


def plain(widget, selector: str) -> str:
    return str(widget.query_one(selector).render())


async def test_memory_pane_lists_saved_facts_one_per_line(settings):
    """Each saved fact is its own line (they used to be joined with "; " after their full stops)."""
    written = next(e for e in COMPARE if isinstance(e, MemoryWritten))
    app, _ = recorded_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, COMPARE_Q)
        text = plain(app.main_screen.query_one(MemoryPane), "#memory-facts")
        assert ".;" not in text, text
        lines = text.splitlines()
        assert f"saved {written.added} new, {written.updated} updated:" in lines
        for fact in written.facts:
            assert f"+ {fact}" in lines, text


async def test_two_chunks_of_one_paper_look_different_in_sources(settings):
    """[1] and [2] are both from the LoRA paper: their entries show the chunk and its section."""
    from textual.widgets import OptionList

    app, _ = recorded_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, COMPARE_Q)
        options = app.main_screen.query_one("#source-list", OptionList)
        lines = [options.render_line(y).text.strip() for y in range(4)]
        assert lines[0].startswith("[1] LoRA") and lines[2].startswith("[2] LoRA"), lines
        assert lines[1].startswith("#11 Limitations") and lines[3].startswith("#9 Memory"), lines
