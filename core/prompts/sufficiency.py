"""Sufficiency prompt (adaptive retrieval): does the evidence answer the question yet?"""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from core.prompts.schemas import Sufficiency
from core.prompts.common import chat, format_contexts, json_spec
from core.types import Intent, RetrievedContext

SYSTEM = """
You judge whether retrieved evidence is enough to answer a research question.
- fully_sufficient: every part of the question is answered by the evidence.
- partially_sufficient: some parts are answered, others are missing.
- contradictory: sources disagree on a point the answer depends on.
- insufficient: the evidence does not address the question.
List what is still missing as short search-ready phrases.
"""


def sufficiency_messages(question: str, intent: Intent, contexts: list[RetrievedContext],
                         new: list[RetrievedContext]) -> list[BaseMessage]:
    new_ids = {c.chunk_id for c in new}
    older = [c for c in contexts if c.chunk_id not in new_ids]
    parts = [f"Question: {question}"]
    if intent.entities:
        parts.append(f"Entities: {', '.join(intent.entities)}")
    parts.append("Evidence from the latest search:\n" + format_contexts(new, 700))
    if older:
        parts.append("Evidence from earlier searches:\n" + format_contexts(older, 300, start=len(new) + 1))
    parts.append(json_spec(Sufficiency))
    return chat(SYSTEM, "\n\n".join(parts))
