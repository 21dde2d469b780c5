"""At 100×30 the graph pane is ~46 columns wide, narrower than the box drawing (54): it stacks
the graph in rows, intent, strategy and critic first, so nothing is cut off at the right or pushed
below the fold (issue 25, items 5 and 9)."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from core.types import STRATEGIES
from paperpilot_tui.widgets.graph import GraphPane
from paperpilot_tui.widgets.graph_art import BOXES
from tests.support.recorded import COMPARE_Q
from tests.tui.conftest import ask
from tests.tui.test_flows import recorded_app


def shown_lines(graph: GraphPane) -> list[str]:
    """The pane's lines as drawn at its width, only as many as its visible rows."""
    box = graph.parent.content_region
    console = Console(width=box.width - 2, file=io.StringIO(), record=True)  # less the padding
    console.print(graph.content)
    return console.export_text().splitlines()[: box.height]


@pytest.mark.parametrize("size, stacked", [((100, 30), True), ((160, 50), False)], ids=["100x30", "160x50"])
async def test_graph_pane_shows_every_node_and_the_intent_strategy_and_critic(settings, size, stacked):
    app, _ = recorded_app(settings)
    async with app.run_test(size=size) as pilot:
        await ask(pilot, COMPARE_Q)
        graph = app.main_screen.query_one(GraphPane)
        assert graph.stacked is stacked
        text = "\n".join(shown_lines(graph))
        for node in (*BOXES, *STRATEGIES):
            assert node in text, (node, text)
        assert "intent comparative" in text and "strategy comparative" in text, text
        assert "critic " in text and "/10 pass" in text, text
