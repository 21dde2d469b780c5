"""SmolLM2 (bundled GGUF): a real 1–2 step SFT router run and DPO critic run on CPU, reloaded and used."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.state import CriticVerdict, Intent, RetrievedContext
from tests.support.extras import needs

pytestmark = [needs("train"), needs("smollm2")]  # TRL SFT/DPO on the SmolLM2 GGUF


@pytest.mark.slow
def test_sft_router_trains_and_classifies(tmp_path):
    from training.router_sft import SFTRouterConfig, load_causal_router, train_router_sft

    summary = train_router_sft(SFTRouterConfig(out=tmp_path / "sft", max_steps=1, limit=4, batch_size=2),
                               log=lambda _: None)
    assert summary["steps"] == 1 and (tmp_path / "sft" / "adapter_model.safetensors").exists()
    router = load_causal_router(tmp_path / "sft")
    decision = router.classify_sync("Compare LoRA and QLoRA in memory use", [])
    assert decision.type in decision.scores and abs(sum(decision.scores.values()) - 1) < 0.01
    assert decision.router == "lora:sft-smollm2"


@pytest.mark.slow
async def test_dpo_critic_trains_reloads_and_critiques(tmp_path):
    from core.models.critic import load_critic
    from training.critic_dpo import CriticTrainConfig, train_critic_dpo

    out = tmp_path / "critic"
    summary = train_critic_dpo(CriticTrainConfig(out=out, max_steps=1, limit=2, batch_size=2, max_length=384),
                               log=lambda _: None)
    assert summary["steps"] == 1 and summary["beta"] == 0.1
    settings = Settings()
    settings.agent.critic_model = str(out)
    critic = load_critic(settings)
    critic.max_new_tokens = 24
    verdict = await critic.critique(
        "What rank does LoRA use?", Intent(type="factual", confidence=1.0),
        [RetrievedContext(content="LoRA uses rank 8 by default.", chunk_id="c1")], "LoRA uses rank 8 [1].", [])
    assert isinstance(verdict, CriticVerdict)
    # the verdict line is chosen by likelihood, so even a barely trained critic writes a readable review
    assert "unreadable" not in verdict.feedback and "rule critic used" not in verdict.feedback
    review = critic.generate("Question: What rank does LoRA use?\nAnswer:\nLoRA uses rank 8 [1].")
    assert review.split("\n")[0] in ("VERDICT: pass", "VERDICT: fail")


def test_missing_critic_is_one_clean_line(tmp_path):
    from core.models.critic import load_critic
    from core.models.manager import ModelNotAvailable

    settings = Settings()
    settings.agent.critic_model = str(tmp_path / "none")
    with pytest.raises(ModelNotAvailable) as err:
        load_critic(settings)
    assert "\n" not in str(err.value) and "paperpilot train critic" in str(err.value)


async def test_unreadable_review_falls_back_to_the_rule_critic():
    from core.models.critic import LocalCritic

    class Rules:
        async def critique(self, question, intent, contexts, answer, sub_questions):
            return CriticVerdict(passed=False, score=4, completeness=0.5, faithfulness=0.5, feedback="missing [n]")

    class Babbler(LocalCritic):
        def generate(self, prompt: str) -> str:  # what an undertrained model may say
            return "The answer is nice and I like it."

    intent = Intent(type="factual", confidence=1.0)
    verdict = await Babbler(None, None, fallback=Rules()).critique("q?", intent, [], "a", [])
    assert not verdict.passed and "rule critic used" in verdict.feedback
    alone = await Babbler(None, None).critique("q?", intent, [], "a", [])
    assert alone.passed and alone.issues == ["local critic output was unreadable"]


@pytest.mark.slow
def test_react_step_policy_trains_with_its_own_prompt_and_is_evaluated(tmp_path):
    from training.critic_dpo import CriticTrainConfig, dpo_rows, train_critic_dpo
    from training.data.generate_react_steps import HELDOUT_FILE, TRAIN_FILE
    from training.data.generate_router import read_jsonl, write_jsonl
    from training.eval_react import evaluate_react

    rows = read_jsonl(TRAIN_FILE)[:2]
    system = dpo_rows(rows)[0]["prompt"][0]
    assert system["role"] == "system" and "retrieval loop" in system["content"]  # not the critic's line
    out = tmp_path / "react"
    summary = train_critic_dpo(CriticTrainConfig(out=out, data=TRAIN_FILE, max_steps=1, limit=2, batch_size=2,
                                                 max_length=384), log=lambda _: None)
    assert summary["name"] == "react-dpo" and summary["steps"] == 1
    held = tmp_path / "held.jsonl"
    points = {}
    for row in read_jsonl(HELDOUT_FILE):
        points.setdefault(row["decision_point"], row)
    write_jsonl(held, list(points.values()))
    report = evaluate_react(held, model_dir=out, limit=3)
    local = report["local"]
    assert report["subset"] == 3 and set(local["choice_by_decision_point"]) == set(points)
    assert 0 <= local["choice_accuracy"] <= 1 and local["base_choice_accuracy"] is not None
    assert local["preference_accuracy"]["reward"] is not None


@pytest.mark.slow
def test_causal_router_scores_with_a_tokenizer_that_has_no_pad_token():
    """A base loaded straight from its folder (bench/gpu_nf4.py's bf16 baseline) has no pad token; the
    router padded its label continuations with None ("Could not infer dtype of NoneType" on an H200)."""
    from core.models.manager import load_causal_lm
    from training.router_sft import LABELS, CausalRouter

    model, tok = load_causal_lm("smollm2", quantize=False)
    tok.pad_token = None
    assert tok.pad_token_id is None
    decision = CausalRouter(model, tok, LABELS, name="bare").classify_sync("Compare LoRA and QLoRA", [])
    assert decision.type in LABELS and abs(sum(decision.scores.values()) - 1) < 0.01
