"""Slot-filling prompt: entities, dimensions, constraints and a self-contained retrieval query."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from core.types import Turn
from core.prompts.schemas import Slots
from core.prompts.common import chat, history_section, json_spec

SYSTEM = """
You extract the slots of a research question about AI/ML papers so that a search engine can answer it.
- entities: the papers, methods, models and concepts the question is about, in their canonical names
  (prefer the spelling used in the knowledge base vocabulary when one matches).
- dimensions: the aspects to compare, as short nouns ("memory use", "accuracy"); empty unless comparing.
- constraints: implicit conditions such as model_scale, year or dataset; {} when there are none.
- reformulated_query: one self-contained, unambiguous query for retrieval, in the question's language.
Do not invent entities the question does not name or clearly imply.
"""

FOCUS = {
    "factual": "Keep the reformulated query close to the question; name the entity explicitly.",
    "comparative": "List every entity being compared and always fill dimensions; infer sensible ones if the question only says 'compare'.",
    "multi_hop": "Keep the whole chain of reasoning in the reformulated query (what builds on what).",
    "exploratory": "Name the line of work and its main stages or members as entities.",
    "follow_up": "The question continues the conversation: replace pronouns and ellipsis with the entities of the last turn, so the reformulated query stands on its own.",
}


def slot_messages(question: str, intent_type: str, history: list[Turn], vocabulary: list[str],
                  max_vocabulary: int = 150) -> list[BaseMessage]:
    vocab = ", ".join(vocabulary[:max_vocabulary])
    user = (
        f"{history_section(history)}"
        f"Intent: {intent_type}\nFocus: {FOCUS.get(intent_type, FOCUS['factual'])}\n"
        + (f"Knowledge base vocabulary: {vocab}\n" if vocab else "")
        + f"\nQuestion: {question}\n\n{json_spec(Slots)}"
    )
    return chat(SYSTEM, user)
