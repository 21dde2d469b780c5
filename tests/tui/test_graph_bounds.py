"""The graph pane shows the turn's own bounds: a settings file with ``agent.max_retries: 4`` reads
"retries n/4" (the bound travels on ``TurnStarted`` from the real agent; the app declares none)."""

from __future__ import annotations

import re

from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.graph import GraphPane
from tests.tui.conftest import ask, real_agent_factory
from tests.tui.stub_hub import StubHub


async def test_settings_file_max_retries_shows_in_graph_pane(tmp_path):
    from core.config import load_settings

    config = tmp_path / "settings.yaml"
    config.write_text(f"""\
agent:
  max_retries: 4
  router: rules
  critic: rules
memory:
  enabled: false
paths:
  home: {tmp_path / "home"}
tui:
  theme: textual-dark
""", encoding="utf-8")
    settings = load_settings(config, use_user_file=False)
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()))
    async with app.run_test(size=(120, 40)) as pilot:
        graph = app.main_screen.query_one(GraphPane)
        assert "retries 0/—" in _text(graph)  # no turn yet: no bound to show
        await ask(pilot, "What does LoRA freeze?")
        assert graph.outcome == "finished"
        assert re.search(r"retries \d/4\b", _text(graph)), _text(graph)


def _text(graph: GraphPane) -> str:
    import io

    from rich.console import Console

    console = Console(width=120, file=io.StringIO())
    console.print(graph.content)
    return console.file.getvalue()
