"""Each stage with the offline brain, one agent (one opened set of stores) per call, as a new process."""

from __future__ import annotations

import asyncio

from core.research.types import KnowledgePoint
from tests.research.conftest import TOPIC
from tests.research.helpers import assert_citations_valid, research


def test_clarify_answers_edit_review_resume_across_agents(settings):
    first = asyncio.run(research(settings, TOPIC))
    assert [e.kind for e in first.events][0] == "research_started"
    assert first.events[0].stage == "initial"
    (asked,) = first.of("clarification_asked")
    assert 2 <= len(asked.questions) <= 4
    assert {q.purpose for q in asked.questions} == {"scope", "focus", "time range", "depth"}
    assert first.last.kind == "research_waiting" and first.last.needs == "answers"
    assert first.last.stage == "clarification"
    session = first.events[0].session_id

    again = asyncio.run(research(settings, None, session))  # nothing new: shows the questions again
    assert again.events[0].stage == "clarification" and again.of("clarification_asked")
    assert again.last.kind == "research_waiting" and not again.queries

    second = asyncio.run(research(settings, None, session, answers={4: "an overview, please"}))
    assert second.events[0].stage == "clarification"
    (proposed,) = second.of("outline_proposed")
    assert len(proposed.outline.knowledge_points) == 4  # the depth answer: an overview has four points
    assert second.last.kind == "research_waiting" and second.last.needs == "outline"
    assert second.last.stage == "confirmation"
    assert not second.of("point_searched")  # nothing is searched before the user confirms

    edited = proposed.outline.model_copy(deep=True)
    removed = edited.knowledge_points.pop(1)
    edited.knowledge_points.append(KnowledgePoint(id="KP9", category="Reasoning", topic="Chain-of-thought prompting",
                                                  search_keywords=["chain of thought", "reasoning steps"],
                                                  importance="high"))
    third = asyncio.run(research(settings, None, session, outline=edited))
    assert third.events[0].stage == "confirmation"
    (change,) = third.of("outline_edited")
    assert change.added == ["KP9"] and change.removed == [removed.id]
    searched = third.of("point_searched")
    assert sorted(e.point_id for e in searched) == sorted(p.id for p in edited.knowledge_points)
    assert [e.index for e in searched] == list(range(1, len(searched) + 1))
    assert "Chain-of-thought prompting" in third.queries and removed.topic not in third.queries
    stages = [e.stage for e in third.of("research_stage")]
    assert stages == ["searching", "review"]
    assert third.of("token") and all(e.node == "review" for e in third.of("token"))
    assert third.last.kind == "review_finished"
    review = third.last.review
    assert [p.point_id for p in review.points] == [p.id for p in edited.knowledge_points]
    assert "### Chain-of-thought prompting" in review.markdown
    assert f"### {removed.topic}\n" not in review.markdown
    assert_citations_valid(review, third.searched)

    done = asyncio.run(research(settings, None, session))  # a finished session shows its review again
    assert done.events[0].stage == "review" and done.last.kind == "review_finished" and not done.queries


def test_no_clarify_goes_to_a_cited_review_with_gaps(settings):
    run = asyncio.run(research(settings, TOPIC, clarify=False, confirm=True))
    assert not run.of("clarification_asked") and not run.of("research_waiting")
    assert [e.stage for e in run.of("research_stage")] == ["confirmation", "searching", "review"]
    review = run.last.review
    assert review.markdown.count("\n### ") >= 4
    for heading in ("## Introduction", "## Research gaps and future directions", "## Conclusion"):
        assert heading in review.markdown
    assert review.gaps
    assert_citations_valid(review, run.searched)
    # each chunk is kept under one point only; another point that found it is recorded
    kept = [i for p in review.points for i in p.source_indices]
    assert len(kept) == len(set(kept))
    assert any(p.also_under for p in review.points)
    for p in review.points:
        assert all(p.point_id not in others for others in p.also_under.values())


def test_a_session_without_a_topic_fails_in_one_line(settings):
    run = asyncio.run(research(settings, None, "nope"))
    assert run.last.kind == "turn_failed" and "does not exist" in run.last.error
