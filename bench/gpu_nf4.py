"""The 4-bit NF4 path on a CUDA GPU against bf16 on the same GPU, in one run: load time, GPU memory,
and the latency of the three local-model roles on the same base.

    python bench/gpu_nf4.py [--base smollm2|FOLDER|FILE.gguf] [--repeats N] [--json FILE]

- router: :class:`training.router_sft.CausalRouter` scoring the five intents for a question (one forward
  pass over five label continuations), milliseconds per question;
- critic: :class:`core.models.critic.LocalCritic` reviewing a short draft (verdict by likelihood, then up
  to ``--critic-tokens`` generated), milliseconds per review;
- chat: the ``transformers`` provider (:class:`core.models.chat.LocalChatModel`) streaming a reply,
  time to first token and tokens per second.

The 4-bit model is what the product loads on CUDA (``LocalModelManager``: NF4, double quantization,
bf16 compute); the bf16 baseline is the same weights unquantized. Ratios are within this run. Without
CUDA it prints one line and exits 0 (CI has no GPU). The adapters are not needed for latency: a trained
LoRA adds a few percent of FLOPs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

QUESTIONS = ["What rank does LoRA use by default?", "Compare LoRA and QLoRA in memory use and accuracy",
             "How did attention lead to instruction tuning?", "What do the papers say about data quality?",
             "And what about its memory cost?"]
CONTEXT = "LoRA freezes the pretrained weights and trains rank-8 update matrices in each attention layer."


def timed(fn, repeats: int) -> float:
    """Median wall milliseconds of ``fn()`` after one warm-up, with CUDA synchronised."""
    import torch

    fn()
    times = []
    for _ in range(repeats):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1000)
    return round(statistics.median(times), 1)


def measure(label: str, load, repeats: int, critic_tokens: int, chat_tokens: int) -> dict:
    import torch
    from langchain_core.messages import HumanMessage

    from core.models.chat import LocalChatModel
    from core.models.critic import LocalCritic
    from core.state import Intent, RetrievedContext
    from training.router_sft import LABELS, CausalRouter

    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    t0 = time.perf_counter()
    model, tok = load()
    load_s = round(time.perf_counter() - t0, 2)
    weights_mb = round(torch.cuda.memory_allocated() / 2**20, 1)
    router = CausalRouter(model, tok, LABELS, name=label)
    router_ms = timed(lambda: [router.classify_sync(q, []) for q in QUESTIONS], repeats) / len(QUESTIONS)
    critic = LocalCritic(model, tok, max_new_tokens=critic_tokens)
    intent = Intent(type="factual", confidence=1.0)
    ctx = [RetrievedContext(content=CONTEXT, chunk_id="c1")]
    critic_ms = timed(lambda: asyncio.run(critic.critique(QUESTIONS[0], intent, ctx, "LoRA uses rank 8 [1].", [])),
                      repeats)
    chat = LocalChatModel(model=model, tokenizer=tok, model_name=label, max_new_tokens=chat_tokens)

    def stream() -> tuple[float, int, float]:
        t = time.perf_counter()
        first, n = None, 0
        for chunk in chat.stream([HumanMessage(content="Explain low-rank adaptation in three sentences.")]):
            if chunk.content:
                first = first or time.perf_counter() - t
                n += 1
        return (first or 0) * 1000, n, time.perf_counter() - t

    stream()
    runs = [stream() for _ in range(repeats)]
    ttft = statistics.median(r[0] for r in runs)
    tps = statistics.median(r[1] / r[2] for r in runs if r[2] > 0)
    linear4 = sum(type(m).__name__ == "Linear4bit" for m in model.modules())
    out = {"load_s": load_s, "weights_mb": weights_mb, "peak_mb": round(torch.cuda.max_memory_allocated() / 2**20, 1),
           "linear_4bit_layers": linear4, "router_ms_per_question": round(router_ms, 1),
           "critic_ms_per_review": critic_ms, "chat_first_token_ms": round(ttft, 1),
           "chat_pieces_per_s": round(tps, 1)}
    torch.cuda.empty_cache()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="smollm2")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--critic-tokens", type=int, default=48)
    ap.add_argument("--chat-tokens", type=int, default=64)
    ap.add_argument("--json", help="also write the report here")
    a = ap.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("gpu_nf4: no CUDA device here; nothing measured")
        return 0
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from core.models.manager import LocalModelManager, loadable

    def nf4():
        return LocalModelManager().causal_lm(a.base, quantize=True)

    def bf16():
        folder, extra, _ = loadable(a.base, True)  # the same (dequantized) weights, unquantized
        model = AutoModelForCausalLM.from_pretrained(folder, **extra, dtype=torch.bfloat16).to("cuda").eval()
        return model, AutoTokenizer.from_pretrained(folder, **extra)

    torch.zeros(1, device="cuda")  # the CUDA context is paid here, so neither load time carries it
    torch.cuda.synchronize()
    report = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__, "base": a.base,
              "repeats": a.repeats}
    report["bf16"] = measure("bf16", bf16, a.repeats, a.critic_tokens, a.chat_tokens)
    report["nf4"] = measure("nf4", nf4, a.repeats, a.critic_tokens, a.chat_tokens)
    report["nf4_over_bf16"] = {k: round(report["nf4"][k] / report["bf16"][k], 2)
                               for k in ("weights_mb", "router_ms_per_question", "critic_ms_per_review",
                                         "chat_first_token_ms", "chat_pieces_per_s") if report["bf16"][k]}
    text = json.dumps(report, indent=2)
    print(text)
    if a.json:
        Path(a.json).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
