"""Tolerant structured-output parsing: the repairs LLM replies need before they validate."""

from __future__ import annotations

import pytest

from core.prompts import schemas
from core.brains.llm.caller import ThinkFilter
from core.brains.llm.structured import coerce_literal, coerce_number, extract_json, parse_tolerant


def test_code_fence_single_quotes_trailing_comma_percent_and_synonym():
    out = parse_tolerant("```json\n{'type': 'multi-hop', 'confidence': '85%',}\n```", schemas.IntentClassification)
    assert out is not None and out.type == "multi_hop" and out.confidence == pytest.approx(0.85)


def test_prose_around_object_and_key_aliases():
    out = parse_tolerant('Sure! Here it is: {"intent": "Comparison", "score": 7} Hope this helps.',
                         schemas.IntentClassification)
    assert out is not None and out.type == "comparative" and out.confidence == pytest.approx(0.7)


def test_critique_fields_rescaled_and_clamped():
    out = parse_tolerant('{"score": "8/10", "faithful": 90, "coverage": "0.7", "problems": "a; b", "citations_ok": "no"}',
                         schemas.Critique)
    assert out is not None
    assert (out.score, out.faithfulness, out.completeness) == (8.0, pytest.approx(0.9), pytest.approx(0.7))
    assert out.issues == ["a", "b"] and out.citations_ok is False
    high = parse_tolerant('{"score": 42, "completeness": -3, "faithfulness": 1.5}', schemas.Critique)
    assert high is not None and high.score == 10 and high.completeness == 0 and high.faithfulness == pytest.approx(0.15)


def test_score_on_unit_scale_becomes_out_of_ten():
    out = parse_tolerant('{"score": 0.75, "completeness": 1, "faithfulness": 1}', schemas.Critique)
    assert out is not None and out.score == pytest.approx(7.5)


def test_truncated_reply_is_closed():
    out = parse_tolerant('{"sub_questions": ["What is LoRA?", "What does QLoRA add?"', schemas.Plan)
    assert out is not None and out.sub_questions == ["What is LoRA?", "What does QLoRA add?"]


def test_think_block_python_literals_and_wrapped_object():
    text = '<think>{"level": "insufficient"}</think>{"Sufficiency": {"level": "Partial", "reason": None, "missing": "rank"}}'
    out = parse_tolerant(text, schemas.Sufficiency)
    assert out is not None and out.level == "partially_sufficient" and out.missing == ["rank"]


def test_bare_list_fills_the_only_list_field_and_dict_items_flatten():
    out = parse_tolerant('["LoRA freezes the base weights.", {"fact": "QLoRA uses NF4."}]', schemas.Facts)
    assert out is not None and out.facts == ["LoRA freezes the base weights.", "QLoRA uses NF4."]


def test_numbered_string_becomes_list():
    out = parse_tolerant('{"questions": "1. What is LoRA?\\n2. How does QLoRA quantize?"}', schemas.Plan)
    assert out is not None and out.sub_questions == ["What is LoRA?", "How does QLoRA quantize?"]


@pytest.mark.parametrize("text", ["no json here", "", "{not: valid: at all", '{"type": "weather", "confidence": 1}'])
def test_hopeless_replies_give_none(text):
    assert parse_tolerant(text, schemas.IntentClassification) is None


def test_literal_and_number_coercion_edges():
    allowed = ("next_step", "replan", "synthesize")
    assert coerce_literal("Next step", allowed) == "next_step"
    assert coerce_literal("DONE", allowed) == "synthesize"
    assert coerce_literal("done", ("search", "finish")) == "finish"
    assert coerce_literal("banana", allowed) == "banana"
    assert coerce_number("high", 0, 1) == pytest.approx(0.85)
    assert coerce_number("7.5 out of 10", 0, 10) == 7.5


def test_extract_json_prefers_fenced_block_and_handles_braces_in_strings():
    assert extract_json('x {"a": "}"} y') == {"a": "}"}
    assert extract_json("text\n```\n{\"b\": 2}\n```") == {"b": 2}


def test_think_filter_hides_blocks_split_across_chunks():
    f = ThinkFilter()
    pieces = ["Hel", "lo <th", "ink>secret", " stuff</thi", "nk> world", " <"]
    visible = "".join(f.feed(p) for p in pieces) + f.flush()
    assert visible == "Hello  world <"


def test_citation_brackets_before_the_object_are_skipped():
    out = parse_tolerant('Given [1] and [2], my verdict: {"type": "factual", "confidence": 0.9}', schemas.IntentClassification)
    assert out is not None and out.type == "factual"


def test_unrelated_object_does_not_pass_as_all_default_schema():
    assert parse_tolerant('{"weather": "sunny"}', schemas.Slots) is None
    assert parse_tolerant('{"entities": ["LoRA"]}', schemas.Slots).entities == ["LoRA"]
