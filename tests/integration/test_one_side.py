"""A comparison needs two sides: a question the router reads as comparative but that names one thing
or none ("What are the two ways QLoRA saves memory?": the adapter reads "two" as two sides) is answered
as a direct question, not as a table of one row or of none. Real router, offline brain, the bundled hub process."""

from __future__ import annotations

import asyncio

from core.brains.factory import build_brain
from tests.integration.helpers import ask_all, settings

ONE_SIDE = "What are the two ways QLoRA saves memory?"
NO_SIDE = "Which two ideas does the paged optimizer approach combine?"
TWO_SIDES = "Which two techniques does QLoRA combine with LoRA?"


def test_a_comparative_reading_with_one_side_is_answered_directly():
    s = settings(router="lora")
    one, none, two = asyncio.run(ask_all([ONE_SIDE, NO_SIDE, TWO_SIDES], s, brain=build_brain(s)))
    r = one.result
    assert r.intent.entities == ["QLoRA"]
    assert r.strategy == "simple" and r.intent.type == "factual"
    assert r.intent.router.endswith("→one side")  # the graph pane and traces say why
    assert "|---" not in r.final_answer and r.sources and r.critic.passed
    # no named side: it was an empty table ("| | Overview |" and its rule, no row), forced through
    r = none.result
    assert r.intent.entities == [] and r.strategy == "simple" and r.intent.router.endswith("→one side")
    assert "|---" not in r.final_answer and r.final_answer.strip()
    # two named sides stay a comparison
    assert two.result.strategy == "comparative" and set(two.result.intent.entities) == {"QLoRA", "LoRA"}
