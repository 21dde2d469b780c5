"""Router prompt: classify a research question into one of five intents (type + confidence)."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from core.types import Turn
from core.prompts.schemas import IntentClassification
from core.prompts.common import chat, history_section, json_spec

SYSTEM = """
You route questions a researcher asks about AI/ML papers. Choose exactly one intent:
- factual: one specific fact, definition or number ("Which optimizer did InstructGPT use for its PPO stage?").
- comparative: two or more methods/papers contrasted along some aspects ("How do BERT and GPT differ in pretraining objective and size?").
- multi_hop: the answer needs a chain of facts, each found separately and combined ("Which data type does QLoRA quantize to, and why does it suit normally distributed weights?").
- exploratory: an open survey of a line of work, its stages or themes ("Give an overview of retrieval-augmented generation approaches").
- follow_up: the question only makes sense with the conversation so far (pronouns like "it"/"that", ellipsis like "and the memory cost?"). Never choose follow_up when there is no conversation history.
Give a calibrated confidence between 0 and 1.
"""


def router_messages(question: str, history: list[Turn]) -> list[BaseMessage]:
    user = f"{history_section(history)}Question: {question}\n\n{json_spec(IntentClassification)}"
    return chat(SYSTEM, user)
