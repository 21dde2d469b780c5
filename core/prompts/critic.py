"""Critic prompt (Reflexion): completeness, faithfulness and citations of a draft, with fixes."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from core.prompts.schemas import Critique
from core.config import CriticSettings
from core.prompts.common import bullets, chat, format_contexts, json_spec
from core.types import Intent, RetrievedContext

SYSTEM = """
You are a strict reviewer of answers about AI/ML papers. Judge the answer only against the numbered
contexts it was written from:
1. completeness (0..1): does it answer every part of the question (every entity, dimension and sub-question)?
2. faithfulness (0..1): is every claim supported by the context it cites? Anything not in the contexts is a hallucination.
3. citations: does every claim carry a [n] citation that points to a listed context that supports it?
An answer that correctly says the knowledge base holds no evidence, when the contexts indeed do not
address the question, is complete and faithful.
The answer passes only if score >= {pass_score}, faithfulness >= {min_faithfulness} and completeness >= {min_completeness}.
When it fails, the feedback must say concretely what the next attempt should change, and
suggested_queries should name searches that would find the missing evidence.
"""


def critic_messages(question: str, intent: Intent, contexts: list[RetrievedContext], answer: str,
                    sub_questions: list[str], thresholds: CriticSettings) -> list[BaseMessage]:
    parts = [f"Question: {question}"]
    if intent.entities:
        parts.append(f"Entities to cover: {', '.join(intent.entities)}")
    if intent.dimensions:
        parts.append(f"Dimensions to cover: {', '.join(intent.dimensions)}")
    if sub_questions:
        parts.append("Sub-questions to cover:\n" + bullets(sub_questions))
    parts.append(f"Contexts ({len(contexts)}):\n" + format_contexts(contexts, 900))
    parts.append(f"Answer to review:\n{answer}")
    parts.append(json_spec(Critique))
    system = SYSTEM.format(pass_score=thresholds.pass_score, min_faithfulness=thresholds.min_faithfulness,
                           min_completeness=thresholds.min_completeness)
    return chat(system, "\n\n".join(parts))
