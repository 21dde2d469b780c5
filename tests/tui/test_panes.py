"""What the panes say about one recorded real turn: memory, sources, trace and chat text."""

from __future__ import annotations

from core.events import MemoryWritten
from paperpilot_tui.widgets.memory_pane import MemoryPane
from tests.support.recorded import COMPARE_Q, recorded_events
from tests.tui.conftest import ask, wait_until
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


async def test_memory_browser_uses_the_width_and_shows_the_fact_in_full(settings):
    """A 76-character fact is not cut at 70 columns on a wide screen, and the highlighted fact is
    shown in full with where it came from and when."""
    from textual.widgets import DataTable

    from tests.support.recorded import FACTS

    long_fact = FACTS[1][0]
    assert len(long_fact) > 70
    app, _ = recorded_app(settings)
    async with app.run_test(size=(160, 30)) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        await pilot.press("f3")
        await wait_until(pilot, lambda: bool(getattr(app.screen, "facts", None)))
        table = app.screen.query_one("#facts", DataTable)
        row = next(n for n, f in enumerate(app.screen.facts) if f.content == long_fact)
        table.move_cursor(row=row)
        await pilot.pause()
        rendered = "".join(table.render_line(row + 1).text.split())  # +1: the header row
        assert "".join(long_fact.split()) in rendered, rendered
        detail = str(app.screen.query_one("#fact-detail").render())
        assert long_fact in detail and "created " in detail and "recalled " in detail, detail
