"""Rules first, the LLM only when the rules cannot decide: slot filling and the critic of the call plan.

With an LLM brain, ``agent.slots: auto`` and ``agent.critic: auto`` put :class:`RulesFirst` in front
of the LLM (README, "LLM calls per turn"). It asks the offline brain first, which costs no call, and
passes the same request to the LLM only when the rule answer is not good enough to act on:

- slot filling is *ambiguous* (:func:`ambiguous`) when a comparison names fewer than two entities
  the rules know, when a follow-up's referent could not be resolved from the conversation, or when
  the rules found neither an entity nor an aspect in the question;
- the rule critic *cannot decide* (:func:`undecided`) when its score lies within ``agent.critic_band``
  of ``pass_score`` on the wrong side of its own verdict: a pass scoring at least ``pass_score + band``
  and a fail scoring at most ``pass_score - band`` stand as the rules judged them;
- after a multi-hop step (``agent.replan: auto``) the rules go on or synthesize when the step found
  relevant evidence; only a step they would revise the plan for goes to the LLM.
"""

from __future__ import annotations

from core.brains.base import Brain, ReplanDecision, SlotFillingOutput, share_vocabulary
from core.config import Settings
from core.types import CriticVerdict, Intent, IntentType, RetrievedContext, Turn
from core.vocabulary import Vocabulary


def ambiguous(slots: SlotFillingOutput, intent_type: IntentType, history: list[Turn]) -> str | None:
    """Why the rule slots are not enough to search with, or None when they are."""
    if intent_type == "comparative" and len(slots.entities) < 2:
        return "a comparison naming fewer than two known entities"
    if intent_type == "follow_up" and history and not slots.entities:
        return "a follow-up whose referent the rules could not resolve"
    if not slots.entities and not slots.dimensions:
        return "no known entity or aspect in the question"
    return None


def undecided(verdict: CriticVerdict, pass_score: float, band: float) -> bool:
    """Whether a rule verdict is too close to call: a pass scoring under ``pass_score + band``, or a
    fail scoring over ``pass_score - band`` (the rules found a gap that a paraphrase may fill)."""
    if verdict.passed:
        return verdict.score < pass_score + band
    return verdict.score > pass_score - band


class RulesFirst:
    """``fill_slots``, ``critique`` and ``replan`` answered by ``rules`` unless they cannot decide, then by ``llm``."""

    name = "rules-first"

    def __init__(self, rules: Brain, llm: Brain, settings: Settings) -> None:
        self.rules, self.llm = rules, llm
        self.pass_score = settings.agent.critic_thresholds.pass_score
        self.band = settings.agent.critic_band

    def use_vocabulary(self, vocabulary: Vocabulary) -> None:
        share_vocabulary(self.rules, vocabulary)
        share_vocabulary(self.llm, vocabulary)

    async def fill_slots(self, question: str, intent_type: IntentType, history: list[Turn],
                         vocabulary: list[str]) -> SlotFillingOutput:
        slots = await self.rules.fill_slots(question, intent_type, history, vocabulary)
        if ambiguous(slots, intent_type, history) is None:
            return slots
        return await self.llm.fill_slots(question, intent_type, history, vocabulary)

    async def critique(self, question: str, intent: Intent, contexts: list[RetrievedContext], answer: str,
                       sub_questions: list[str]) -> CriticVerdict:
        verdict = await self.rules.critique(question, intent, contexts, answer, sub_questions)
        if not undecided(verdict, self.pass_score, self.band):
            return verdict
        return await self.llm.critique(question, intent, contexts, answer, sub_questions)

    async def replan(self, question: str, plan: list[str], executed: list[str],
                     latest: list[RetrievedContext]) -> ReplanDecision:
        decision = await self.rules.replan(question, plan, executed, latest)
        if decision.action != "replan":
            return decision
        return await self.llm.replan(question, plan, executed, latest)
