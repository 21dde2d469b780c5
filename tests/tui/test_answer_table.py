"""Defect 15 of the app issue: a comparison table shares its width between the compared dimensions."""

from __future__ import annotations

import pytest
from textual.widgets._markdown import MarkdownTableContent

from tests.support.recorded import COMPARE_Q
from tests.tui.conftest import ask
from tests.tui.test_flows import recorded_app


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_comparison_columns_share_the_width_and_names_fit(settings, size):
    app, _ = recorded_app(settings)
    async with app.run_test(size=size) as pilot:
        await ask(pilot, COMPARE_Q)
        table = app.main_screen.query(MarkdownTableContent).last()
        columns = len(table.headers)
        assert columns >= 3
        cells = list(table.children)
        widths = [c.size.width for c in cells[:columns]]
        assert max(widths[1:]) - min(widths[1:]) <= 1, widths  # the dimensions get equal shares
        names = [str(c.content) for c in cells[columns::columns]]
        assert widths[0] >= max(len(n) for n in names), (widths, names)  # no compared name is cut
