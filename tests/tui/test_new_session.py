"""A new session starts clean: no pane keeps the previous conversation's state (issue 25, item 7)."""

from __future__ import annotations

from rich.text import Text

from tests.support.recorded import COMPARE_Q
from tests.tui.conftest import ask, wait_until
from tests.tui.test_flows import recorded_app


def memory_text(app) -> str:
    facts = app.main_screen.query_one("#memory-facts")
    content = facts.render()
    return content.plain if isinstance(content, Text) else str(content)


async def test_ctrl_n_clears_the_memory_pane(settings):
    """The recorded turn recalls facts into the memory pane; ctrl+n must not show them under the new
    session (they were recalled for a question the new session never asked)."""
    app, _ = recorded_app(settings)
    async with app.run_test(size=(160, 50)) as pilot:
        await ask(pilot, COMPARE_Q)
        recalled = app.main_screen.query_one("MemoryPane").recalled
        assert recalled, "the recorded turn recalls facts"
        assert recalled[0][:30] in memory_text(app)
        old = app.session.session_id
        await pilot.press("ctrl+n")
        await wait_until(pilot, lambda: app.session.session_id != old)
        shown = memory_text(app)
        assert all(fact[:30] not in shown for fact in recalled), shown
        assert "No facts recalled" in shown
