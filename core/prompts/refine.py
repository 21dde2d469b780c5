"""Refine prompt (Reflexion): turn the critic's verdict into a reflection and new searches."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from core.prompts.schemas import Refinement
from core.prompts.common import bullets, chat, json_spec
from core.types import CriticVerdict, Intent

SYSTEM = """
An answer about AI/ML papers was rejected by a reviewer. Write a short reflection (what went wrong
and what the next attempt will do differently) and up to three new search queries that would find
the missing or better evidence. Queries must be specific and differ from the original question.
Give a better main query only if the original one was ambiguous; otherwise null.
"""


def refine_messages(question: str, intent: Intent, verdict: CriticVerdict) -> list[BaseMessage]:
    parts = [
        f"Question: {question}",
        f"Intent: {intent.type}" + (f"; entities: {', '.join(intent.entities)}" if intent.entities else ""),
        f"Query used: {intent.reformulated_query or question}",
        f"Review: score {verdict.score:.1f}/10, completeness {verdict.completeness:.2f}, "
        f"faithfulness {verdict.faithfulness:.2f}",
        f"Feedback: {verdict.feedback or '(none)'}",
        "Issues:\n" + bullets(verdict.issues),
        "Reviewer's suggested searches:\n" + bullets(verdict.suggested_queries),
        json_spec(Refinement),
    ]
    return chat(SYSTEM, "\n\n".join(parts))
