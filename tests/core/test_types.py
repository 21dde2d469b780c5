"""Value types below everything: events import no LangGraph; the turn's bounds and shape come from core."""

from __future__ import annotations

import subprocess
import sys

from core.config import AgentSettings
from core.events import TurnStarted, event_from_dict
from core.types import INTENT_STRATEGY, INTENT_TYPES, MAIN_NODES, STRATEGIES, STRATEGY_STEPS, Intent
from tests.integration.helpers import ask_all, settings

PROBE = ("import sys, core.events, core.types, core.errors, core.tracing.fold, core.tracing.describe; "
         "print(sorted(m for m in sys.modules if m.split('.')[0] in {'langgraph', 'langchain_core'} "
         "or m in {'core.state', 'core.brains', 'core.config'}))")


def test_events_fold_and_describe_import_no_langgraph_nor_state():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_layers_below_brains_import_types_not_brains():
    probe = ("import sys, core.memory.history, core.tools.parse, core.prompts.local_critic, core.prompts.local_router, core.prompts.common; "
             "print(sorted(m for m in sys.modules if m.startswith('core.brains')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"


def test_turn_started_defaults_are_the_settings_defaults():
    started = TurnStarted(question="q", session_id="s")
    defaults = AgentSettings()
    assert (started.max_retries, started.max_react_steps, started.max_plan_steps) == (
        defaults.max_retries, defaults.max_react_steps, defaults.max_plan_steps)


def test_a_recorded_turn_started_without_bounds_still_parses():
    ev = event_from_dict({"kind": "turn_started", "question": "q", "session_id": "s", "ts": 1.0})
    assert isinstance(ev, TurnStarted) and ev.max_retries == AgentSettings().max_retries


async def test_turn_started_carries_the_configured_bounds():
    s = settings(max_retries=4, max_react_steps=7, max_plan_steps=3)
    turn = (await ask_all(["What rank does LoRA use by default?"], s))[0]
    started = turn.events[0]
    assert isinstance(started, TurnStarted)
    assert (started.max_retries, started.max_react_steps, started.max_plan_steps) == (4, 7, 3)


def test_every_intent_has_a_strategy():
    assert set(INTENT_STRATEGY) == set(INTENT_TYPES) and set(INTENT_STRATEGY.values()) == set(STRATEGIES)
    assert Intent(type="follow_up", confidence=1).to_strategy() == "simple"


def test_the_declared_shape_is_the_compiled_graph():
    from core.graph import build_graph
    from core.strategies import exploratory, multi_hop

    main = set(build_graph().get_graph().nodes) - {"__start__", "__end__"}
    assert main == set(MAIN_NODES)
    for name, module in (("multi_hop", multi_hop), ("exploratory", exploratory)):
        inner = [n for n in module.build_subgraph().get_graph().nodes if not n.startswith("__")]
        assert tuple(inner) == STRATEGY_STEPS[name]
