"""Each stage with the LLM brain driven by the scripted chat model (the only mock: the LLM), against the
real hub; replies that fail a check are answered by the offline brain for that step."""

from __future__ import annotations

import asyncio
import json
import re

from core.brains.llm.brain import LLMBrain
from tests.research.conftest import TOPIC
from tests.research.helpers import assert_citations_valid, research
from tests.support.scripted_model import ScriptedChatModel, by_purpose

QUESTIONS = json.dumps({"questions": [
    {"question": "Should the review cover both fine-tuning and alignment?", "purpose": "scope"},
    {"question": "Which methods matter most to you?", "purpose": "focus"},
    {"question": "How detailed should it be?", "purpose": "depth"}]})
OUTLINE = json.dumps({"title": "PEFT and alignment", "search_strategy": "one search per point", "knowledge_points": [
    {"category": "Fine-tuning", "topic": "LoRA: low-rank adapters", "search_keywords": ["LoRA rank"], "importance": "high"},
    {"category": "Fine-tuning", "topic": "QLoRA: quantized fine-tuning", "search_keywords": ["QLoRA quantization"],
     "importance": "medium"},
    {"category": "Alignment", "topic": "DPO: preference optimization", "search_keywords": ["DPO preference"],
     "importance": "high"}]})


def first_passage(call) -> str:
    """A section that quotes the first sentence of the first passage in the prompt, cited with its number."""
    m = re.search(r"Passages:\n\[(\d+)\][^\n]*\n([^\n]+)", call.text)
    sentence = re.split(r"(?<=[.!?])\s", m.group(2).strip())[0].rstrip(".")
    return f"{sentence} [{m.group(1)}]."


def test_llm_questions_outline_and_streamed_sections(settings):
    model = ScriptedChatModel(respond=by_purpose({"research.questions": QUESTIONS, "research.outline": OUTLINE,
                                                  "research.section": first_passage}))
    brain = LLMBrain(model, settings)
    first = asyncio.run(research(settings, TOPIC, brain=brain))
    (asked,) = first.of("clarification_asked")
    assert [q.purpose for q in asked.questions] == ["scope", "focus", "depth"]
    assert first.last.needs == "answers"
    session = first.events[0].session_id

    second = asyncio.run(research(settings, None, session, brain=brain, answers={}))
    (proposed,) = second.of("outline_proposed")
    assert [p.topic for p in proposed.outline.knowledge_points] == [
        "LoRA: low-rank adapters", "QLoRA: quantized fine-tuning", "DPO: preference optimization"]
    assert "Which methods matter most" in model.calls_for("research.outline")[0].text

    third = asyncio.run(research(settings, None, session, brain=brain, confirm=True))
    assert len(third.of("point_searched")) == 3
    streamed = "".join(e.text for e in third.of("token"))
    assert "### LoRA: low-rank adapters" in streamed
    assert len(model.calls_for("research.section")) == 3
    review = third.last.review
    assert third.last.kind == "review_finished" and all(p.covered for p in review.points)
    assert_citations_valid(review, third.searched)
    assert not [e for e in third.of("notice") if e.level == "warning"]


def test_replies_that_fail_their_check_fall_back_to_the_offline_brain(settings):
    invented = json.dumps({"title": "x", "knowledge_points": [
        {"category": "A", "topic": "GPT-7 Turbo scaling", "search_keywords": ["GPT-7 Turbo 900B"]},
        {"category": "A", "topic": "LoRA", "search_keywords": ["LoRA"]}]})
    model = ScriptedChatModel(respond=by_purpose({"research.outline": invented,
                                                  "research.section": "LoRA rewrites every weight [999]."}))
    run = asyncio.run(research(settings, TOPIC, brain=LLMBrain(model, settings), clarify=False, confirm=True))
    warnings = [e.message for e in run.of("notice") if e.level == "warning"]
    assert any("outline failed the check" in w and "GPT-7" in w for w in warnings)
    assert any("kept no valid citation" in w for w in warnings)
    (proposed,) = run.of("outline_proposed")
    assert all("GPT-7" not in p.topic for p in proposed.outline.knowledge_points)  # the offline outline
    review = run.last.review
    assert "[999]" not in review.markdown and "rewrites every weight" not in review.markdown
    assert_citations_valid(review, run.searched)
