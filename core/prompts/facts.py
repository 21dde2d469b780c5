"""Fact-extraction prompt (long-term memory): durable facts from a passed answer."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from core.prompts.schemas import Facts
from core.prompts.common import chat, format_contexts, json_spec
from core.types import RetrievedContext

SYSTEM = """
You pick what is worth remembering from a research answer about AI/ML papers. Extract at most
{max_facts} facts that are durable (true beyond this conversation), self-contained (name the method
or paper instead of "it"), one sentence each, and supported by the contexts. No citation markers,
no opinions, nothing about the user or the conversation. Return an empty list if nothing qualifies.
"""


def facts_messages(question: str, answer: str, contexts: list[RetrievedContext],
                   max_facts: int = 3) -> list[BaseMessage]:
    user = "\n\n".join([
        f"Question: {question}",
        f"Answer:\n{answer}",
        f"Contexts:\n{format_contexts(contexts, 500)}",
        json_spec(Facts),
    ])
    return chat(SYSTEM.format(max_facts=max_facts), user)
