"""Reflexion that changes something (issue 16, points 2-3): the refined query reaches the next
attempt, and junk that a weak LLM puts in a refine plan never reaches the hub."""

from __future__ import annotations

from core.brains.base import RefinePlan, ReplanDecision
from core.brains.offline import OfflineBrain
from core.nodes.retry_refine import usable_queries
from core.state import CriticVerdict
from tests.integration.helpers import ask_all, settings

JUNK = ["[1]", "null", "(none)", "reformulated_query", "  ", "N/A", "extra_queries", "[2][3]", "..."]


class FirstDraftFails(OfflineBrain):
    """The offline brain, except that its critic fails the first draft."""

    def __init__(self, s) -> None:
        super().__init__(s)
        self.critiques = 0

    async def critique(self, question, intent, contexts, answer, sub_questions) -> CriticVerdict:
        self.critiques += 1
        if self.critiques == 1:
            return CriticVerdict(passed=False, score=4, completeness=0.4, faithfulness=1.0, feedback="too thin")
        return await super().critique(question, intent, contexts, answer, sub_questions)


class JunkRefiningBrain(FirstDraftFails):
    """The first draft fails and its refine plan is what a weak LLM wrote: a better query, plus junk."""

    async def refine(self, question, intent, verdict) -> RefinePlan:
        return RefinePlan(reflection="search the default rank", reformulated_query="LoRA default rank r hyperparameter",
                          extra_queries=[*JUNK, "PEFT LoRA default rank"])


def test_usable_queries_drops_junk_repeats_and_the_question() -> None:
    q = "What rank does LoRA use by default?"
    assert usable_queries([*JUNK, "PEFT rank", "peft  rank", q, "LoRA rank"], q, ["lora rank"]) == ["PEFT rank"]


async def test_a_retry_searches_the_refined_query_and_no_junk() -> None:
    s = settings(max_retries=1)
    turn = (await ask_all(["What rank does LoRA use by default?"], s, brain=JunkRefiningBrain(s)))[0]
    slots = turn.of("slots_filled")
    assert len(slots) == 2
    assert slots[1].intent.reformulated_query == "LoRA default rank r hyperparameter"
    searched = [e.query for e in turn.of("retrieval_started")]
    assert "PEFT LoRA default rank" in searched and "LoRA default rank r hyperparameter" in searched
    assert not set(searched) & set(JUNK), searched
    assert turn.result.final_answer


class KeywordRefiningBrain(FirstDraftFails):
    """The first draft fails and the retry asks for a keyword search, as the offline critic's own
    suggestions read ("QLoRA memory 65B single GPU")."""

    async def refine(self, question, intent, verdict) -> RefinePlan:
        return RefinePlan(reflection="search the memory numbers", reformulated_query="",
                          extra_queries=["QLoRA memory 65B single GPU"])

    async def replan(self, question, plan, executed, latest) -> ReplanDecision:
        """Every planned search runs (the offline planner may judge the keywords covered and skip them)."""
        if len(executed) < len(plan):
            return ReplanDecision(action="next_step", reason="run every planned search")
        return await super().replan(question, plan, executed, latest)


async def test_a_retrys_keyword_search_feeds_a_chain_but_is_no_step_of_it() -> None:
    """The retry searches the critic's keywords, and the chain's evidence may use what they found; but the
    answer numbers the question's own steps and its conclusion answers the question's last one, not
    "QLoRA memory 65B single GPU" (before, the keywords became step 3 and the conclusion's question)."""
    s = settings(max_retries=1)
    turn = (await ask_all(["How does QLoRA build on LoRA to fine-tune a 65B model on a single GPU?"], s,
                          brain=KeywordRefiningBrain(s)))[0]
    assert "QLoRA memory 65B single GPU" in [e.query for e in turn.of("retrieval_started")]
    answer = turn.result.final_answer
    assert turn.result.strategy == "multi_hop" and "**Conclusion:**" in answer, answer
    assert "QLoRA memory 65B single GPU" not in answer, answer
