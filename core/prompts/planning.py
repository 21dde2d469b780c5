"""Plan-and-Execute prompts: decompose into sub-questions, revise a plan, decide the next move."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from core.prompts.schemas import Plan, Replan
from core.prompts.common import bullets, chat, format_contexts, json_spec, numbered
from core.types import Intent, RetrievedContext

PLAN_SYSTEM = """
You plan multi-step research over a knowledge base of AI/ML papers. Break the question into at most
{max_steps} sub-questions. Each sub-question is a standalone search query (no pronouns), asks for one
fact, and is ordered so later steps build on earlier ones. The last step should let the original
question be answered. Do not add steps the question does not need.
"""

REPLAN_SYSTEM = """
You supervise a plan being executed step by step against a knowledge base. After each step decide:
- next_step: the latest results are on track and planned steps remain;
- replan: the results show the plan is wrong or misses something (e.g. an unexpected entity, an empty result);
- synthesize: the evidence collected so far already answers the original question, or no steps remain.
"""


def plan_messages(question: str, intent: Intent, *, executed: list[str], contexts: list[RetrievedContext],
                  previous_plan: list[str], reflections: list[str], max_steps: int) -> list[BaseMessage]:
    parts = [f"Question: {question}"]
    if intent.entities:
        parts.append(f"Entities: {', '.join(intent.entities)}")
    if intent.constraints:
        parts.append(f"Constraints: {intent.constraints}")
    if previous_plan:
        parts.append("This is a revision. Previous plan:\n" + numbered(previous_plan))
        parts.append("Steps already executed:\n" + bullets(executed))
        parts.append("Evidence found so far:\n" + format_contexts(contexts, 500))
        parts.append("Keep useful executed steps out of the new plan; plan only what is still needed.")
    if reflections:
        parts.append("A reviewer criticised an earlier answer; the plan must address this:\n" + bullets(reflections))
    parts.append(json_spec(Plan))
    return chat(PLAN_SYSTEM.format(max_steps=max_steps), "\n\n".join(parts))


def replan_messages(question: str, plan: list[str], executed: list[str],
                    latest: list[RetrievedContext]) -> list[BaseMessage]:
    remaining = plan[len(executed):] if len(executed) <= len(plan) else []
    user = "\n\n".join([
        f"Original question: {question}",
        "Plan:\n" + numbered(plan),
        "Executed:\n" + bullets(executed),
        "Remaining:\n" + bullets(remaining),
        "Results of the latest step:\n" + format_contexts(latest, 600),
        json_spec(Replan),
    ])
    return chat(REPLAN_SYSTEM, user)
