"""The 4-bit NF4 path on CUDA, end to end on the bundled SmolLM2: the causal-LM router (SFT) and the
critic (DPO) train as QLoRA in 4 bits, reload in 4 bits and answer; the ``transformers`` chat provider
streams from a 4-bit model. Skipped, with the reason, without CUDA or bitsandbytes (CI has neither)."""

from __future__ import annotations

import asyncio
import importlib.util

import pytest

from core.config import Settings
from tests.support.extras import missing, needs


def _cuda() -> bool:
    if missing("train"):
        return False
    import torch

    return bool(torch.cuda.is_available())


pytestmark = [pytest.mark.gpu, needs("train"), needs("smollm2"),
              pytest.mark.skipif(not _cuda(), reason="needs CUDA"),
              pytest.mark.skipif(importlib.util.find_spec("bitsandbytes") is None,
                                 reason="needs bitsandbytes: pip install -e '.[gpu]'")]


def linear_4bit(model) -> int:
    """How many bitsandbytes 4-bit linear layers the (possibly PEFT-wrapped) model holds."""
    return sum(type(m).__name__ == "Linear4bit" for m in model.modules())


def test_router_sft_trains_in_4bit_and_classifies_on_cuda(tmp_path):
    from training.router_sft import SFTRouterConfig, load_causal_router, train_router_sft

    summary = train_router_sft(SFTRouterConfig(out=tmp_path / "sft", max_steps=4, limit=32, batch_size=8),
                               log=lambda _: None)
    assert summary["quantized_4bit"] is True and summary["steps"] == 4
    router = load_causal_router(tmp_path / "sft")
    assert linear_4bit(router.model) > 0 and router.model.device.type == "cuda"
    decision = router.classify_sync("Compare LoRA and QLoRA in memory use", [])
    assert decision.type in decision.scores and abs(sum(decision.scores.values()) - 1) < 0.01


def test_critic_dpo_trains_in_4bit_and_critiques_on_cuda(tmp_path):
    from core.models.critic import load_critic_dir
    from core.state import CriticVerdict, Intent, RetrievedContext
    from training.critic_dpo import CriticTrainConfig, train_critic_dpo

    out = tmp_path / "critic"
    summary = train_critic_dpo(CriticTrainConfig(out=out, max_steps=2, limit=4, batch_size=2, max_length=384),
                               log=lambda _: None)
    assert summary["quantized_4bit"] is True and summary["steps"] == 2
    critic = load_critic_dir(out)
    critic.max_new_tokens = 24
    assert linear_4bit(critic.model) > 0
    verdict = asyncio.run(critic.critique(
        "What rank does LoRA use?", Intent(type="factual", confidence=1.0),
        [RetrievedContext(content="LoRA uses rank 8 by default.", chunk_id="c1")], "LoRA uses rank 8 [1].", []))
    assert isinstance(verdict, CriticVerdict) and "unreadable" not in verdict.feedback


def test_transformers_chat_provider_streams_from_a_4bit_model():
    from langchain_core.messages import HumanMessage

    from core.models.chat import load_local_chat_model

    settings = Settings()
    settings.llm.provider = "transformers"
    settings.llm.model = "smollm2"
    settings.llm.max_tokens = 12
    chat = load_local_chat_model(settings)
    assert linear_4bit(chat.model) > 0

    async def stream() -> list[str]:
        return [c.content async for c in chat.astream([HumanMessage(content="Say hello.")])]

    chunks = asyncio.run(stream())
    assert len(chunks) >= 2 and "".join(chunks).strip()
