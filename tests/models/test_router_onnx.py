"""The router on ONNX Runtime (LoRA merged into the exported graph) agrees with the torch router."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from core.brains.base import Turn
from core.models.manager import SHIPPED_ROUTER
from core.models.router import LoRARouter, OnnxLoRARouter, load_router_dir
from core.prompts.local_router import format_router_input
from tests.support.extras import needs

pytestmark = [pytest.mark.slow, needs("train")]  # every test compares with the torch router

DATA = Path(__file__).resolve().parents[1] / "data"
PREVIOUS = Turn(question="What rank does LoRA use by default?",
                answer="LoRA uses a rank of 8 by default and trains only the low-rank matrices [1].")
# Han characters the base vocabulary lacks (显, 存, 占, 多, 少 ...) take the adapter's learnt rows.
EXTRA = ["比较 LoRA 和 QLoRA 的显存占用", "LoRA 默认用多少秩？", "谁提出了 DPO？它和 RLHF 有什么区别",
         "请介绍一下注意力机制的发展历史"]


@pytest.fixture(scope="module")
def routers() -> tuple[OnnxLoRARouter, LoRARouter]:
    return load_router_dir(SHIPPED_ROUTER, runtime="onnx"), load_router_dir(SHIPPED_ROUTER, runtime="torch")


def inputs() -> list[str]:
    rows = [json.loads(line) for line in (DATA / "bundled_qa.jsonl").read_text(encoding="utf-8").splitlines() if line]
    texts = [r["question"] for r in rows] + EXTRA
    return texts + [format_router_input(t, [PREVIOUS]) for t in ("Who proposed that?", "And its memory use?")]


def test_default_runtime_is_onnx(monkeypatch):
    monkeypatch.delenv("PAPERPILOT_ENCODER", raising=False)
    assert isinstance(load_router_dir(SHIPPED_ROUTER), OnnxLoRARouter)
    monkeypatch.setenv("PAPERPILOT_ENCODER", "torch")
    assert type(load_router_dir(SHIPPED_ROUTER)) is LoRARouter


def test_extra_characters_are_remapped_like_the_torch_tokenizer(routers):
    onnx, torch_router = routers
    ref = torch_router.chars.encode(torch_router.tokenizer, EXTRA, torch_router.max_length)
    got = onnx.model.encode(EXTRA)
    assert (got["input_ids"] == ref["input_ids"].numpy()).all()
    assert (got["attention_mask"] == ref["attention_mask"].numpy()).all()
    ids = got["input_ids"]
    assert ((ids > 0) & (ids < 999) & (ids != 100)).any()  # some characters took an [unusedN] row


def test_logits_and_decisions_agree_with_torch(routers):
    onnx, torch_router = routers
    texts = inputs()
    a, b = np.asarray(onnx.logits(texts)), np.asarray(torch_router.logits(texts))
    assert (a.argmax(axis=1) == b.argmax(axis=1)).all()
    assert np.abs(a - b).max() < 1e-3
    for q, history in (("Compare LoRA and QLoRA in memory use and accuracy", []), ("Who proposed that?", [PREVIOUS])):
        d1, d2 = onnx.classify_sync(q, history), torch_router.classify_sync(q, history)
        assert (d1.type, d1.router) == (d2.type, d2.router) and abs(d1.confidence - d2.confidence) < 1e-4
