"""The call plan holds: LLM calls per strategy meet the issue's goals when the first draft passes."""

from __future__ import annotations

import asyncio

from tests.support.call_plan import calls_per_strategy, goal


def test_calls_per_strategy_meet_the_goals_with_the_default_call_plan():
    measured = {m.strategy: m for m in asyncio.run(calls_per_strategy())}
    assert set(measured) == {"simple", "comparative", "multi_hop", "exploratory"}
    for m in measured.values():
        assert m.first_draft_passed, m
        assert "route" not in m.purposes and "facts" not in m.purposes  # the local router; facts by rules
        assert m.purposes.count("synthesis") == 1, m
        limit = goal(m.strategy, m.plan_steps)
        assert limit is None or m.calls <= limit, m
    assert measured["multi_hop"].plan_steps >= 2
