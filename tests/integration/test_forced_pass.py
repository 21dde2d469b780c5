"""A forced pass delivers the best-scored attempt, not merely the last one."""

from __future__ import annotations

from core.brains.offline import OfflineBrain
from core.state import CriticVerdict
from tests.integration.helpers import ask_all, settings


class WorseningBrain(OfflineBrain):
    """The real offline brain, except that every retry drafts worse and no draft passes."""

    def __init__(self, s) -> None:
        super().__init__(s)
        self.attempt = 0

    async def synthesize(self, request, on_token=None) -> str:
        self.attempt += 1
        text = await super().synthesize(request, on_token)
        return text if self.attempt == 1 else f"Attempt {self.attempt} lost the thread [1]."

    async def critique(self, question, intent, contexts, answer, sub_questions) -> CriticVerdict:
        score = 6.5 if answer.startswith("Attempt") else 6.9
        return CriticVerdict(passed=False, score=score, completeness=0.5, faithfulness=1.0, feedback="not enough")


async def test_a_forced_pass_delivers_the_best_attempt() -> None:
    s = settings(max_retries=2)
    brain = WorseningBrain(s)
    turn = (await ask_all(["What rank does LoRA use by default?"], s, brain=brain))[0]
    result = turn.result
    # at least one retry ran (a retry whose refinement has nothing new to search stops early)
    assert brain.attempt >= 2
    assert result.critic.forced and result.critic.score == 6.9
    assert "r = 8" in result.final_answer and "lost the thread" not in result.final_answer
    assert result.sources and all(src.chunk_id for src in result.sources)
