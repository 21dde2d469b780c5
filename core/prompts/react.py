"""ReAct prompt for exploratory questions: think about the evidence, then search or finish."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from core.prompts.schemas import ReactChoice
from core.prompts.common import bullets, chat, format_contexts, json_spec
from core.types import Intent, RetrievedContext, SufficiencyJudgement

SYSTEM = """
You explore a research topic over a knowledge base of AI/ML papers, one search at a time.
Each step: think briefly about what the evidence already covers and what is missing, then either
search (give a new, specific query that differs from earlier ones) or finish (the evidence covers
the topic well enough, or further searches would repeat themselves). You have {max_steps} steps in all.
"""


def react_messages(question: str, intent: Intent, *, step: int, max_steps: int, queries: list[str],
                   contexts: list[RetrievedContext], observations: list[SufficiencyJudgement],
                   reflections: list[str]) -> list[BaseMessage]:
    obs = [f"{o.level}: {o.reason}" + (f" (missing: {', '.join(o.missing)})" if o.missing else "")
           for o in observations]
    parts = [f"Topic: {question}"]
    if intent.entities:
        parts.append(f"Entities: {', '.join(intent.entities)}")
    parts += [
        f"Step {step} of {max_steps}.",
        "Searches so far:\n" + bullets(queries),
        "Observations so far:\n" + bullets(obs),
        "Evidence so far:\n" + format_contexts(contexts, 400),
    ]
    if reflections:
        parts.append("A reviewer criticised an earlier answer; cover this:\n" + bullets(reflections))
    parts.append(json_spec(ReactChoice))
    return chat(SYSTEM.format(max_steps=max_steps), "\n\n".join(parts))
