"""The local DPO critic as a ``Brain.critique`` implementation.

It builds the same prompt the DPO pairs were made from, picks the verdict line by likelihood
(pass vs fail), lets the local causal LM write the rest of the review after it (greedy, in a worker
thread), and parses it tolerantly into a ``CriticVerdict``. When the
output cannot be parsed it defers to a fallback critic (normally the rule critic) and says so in
the verdict's feedback; without a fallback it passes the draft with an explicit issue rather than
blocking the turn on an unreadable review.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any, Protocol

from core.prompts.local_critic import build_critic_prompt, critic_messages, parse_critique
from core.models.manager import LocalModelManager, ModelNotAvailable
from core.types import CriticVerdict, Intent, RetrievedContext

CRITIC_META_FILE = "critic_meta.json"
DEFAULT_CRITIC_DIR = "models/critic-smollm2"  # under the data directory


class _Critique(Protocol):
    async def critique(self, question: str, intent: Intent, contexts: list[RetrievedContext], answer: str,
                       sub_questions: list[str]) -> CriticVerdict: ...


class LocalCritic:
    """Review drafts with a local (DPO-tuned) causal LM."""

    def __init__(self, model: Any, tokenizer: Any, *, name: str = "local:critic-dpo",
                 fallback: _Critique | None = None, max_new_tokens: int = 120, max_contexts: int = 6,
                 guided: bool = True) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.fallback = fallback
        self.max_new_tokens = max_new_tokens
        self.max_contexts = max_contexts
        self.guided = guided
        self._lock = threading.Lock()

    def use_vocabulary(self, vocabulary: Any) -> None:
        """The collection's vocabulary, for the rule critic this one defers to."""
        if callable(use := getattr(self.fallback, "use_vocabulary", None)):
            use(vocabulary)

    def generate(self, prompt: str) -> str:
        """Review text for a built prompt (synchronous): the verdict line is chosen by likelihood
        (``VERDICT: pass`` vs ``VERDICT: fail``, the decision DPO sharpened), then the model writes
        the rest of the review after it, greedily."""
        with self._lock:
            if not self.guided:
                return generate_reply(self.model, self.tokenizer, critic_messages(prompt), self.max_new_tokens)
            start = self.tokenizer.apply_chat_template(critic_messages(prompt), tokenize=False,
                                                       add_generation_prompt=True)
            verdict = max(VERDICT_LINES, key=lambda line: completion_logp(self.model, self.tokenizer, start, line))
            rest = generate_text(self.model, self.tokenizer, start + verdict + "\n", self.max_new_tokens)
            return verdict + "\n" + rest

    async def critique(self, question: str, intent: Intent, contexts: list[RetrievedContext], answer: str,
                       sub_questions: list[str]) -> CriticVerdict:
        prompt = build_critic_prompt(question, intent.type, contexts[: self.max_contexts], answer, sub_questions)
        try:
            raw = await asyncio.to_thread(self.generate, prompt)
        except Exception as exc:  # noqa: BLE001 - a broken local model must not break the turn
            raw, error = "", f"{type(exc).__name__}: {exc}"[:160]
        else:
            error = ""
        verdict = parse_critique(raw)
        if verdict is not None:
            return verdict
        why = f"local critic failed ({error})" if error else "local critic output was unreadable"
        if self.fallback is not None:
            fb = await self.fallback.critique(question, intent, contexts, answer, sub_questions)
            return fb.model_copy(update={"feedback": (fb.feedback + f" [{why}; rule critic used]").strip()})
        return CriticVerdict(passed=True, score=7.0, completeness=0.7, faithfulness=0.8,
                             feedback=f"{why}; draft accepted unreviewed", issues=[why])


VERDICT_LINES = ("VERDICT: pass", "VERDICT: fail")


def completion_logp(model: Any, tokenizer: Any, prompt_text: str, completion: str) -> float:
    """log p(completion | prompt) under ``model`` (sum over the completion's tokens)."""
    import torch

    p_ids = tokenizer(prompt_text, add_special_tokens=False)["input_ids"]
    c_ids = tokenizer(completion, add_special_tokens=False)["input_ids"]
    ids = torch.tensor([p_ids + c_ids])
    device = getattr(model, "device", None)
    if device is not None:
        ids = ids.to(device)
    with torch.inference_mode():
        lp = torch.log_softmax(model(input_ids=ids).logits.float(), dim=-1)[0]
    return sum(float(lp[len(p_ids) + i - 1, t]) for i, t in enumerate(c_ids))


def generate_reply(model: Any, tokenizer: Any, messages: list[dict], max_new_tokens: int) -> str:
    """Greedy reply of a local chat model to ``messages`` (synchronous)."""
    text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    return generate_text(model, tokenizer, text, max_new_tokens)


def generate_text(model: Any, tokenizer: Any, text: str, max_new_tokens: int) -> str:
    """Greedy continuation of already-templated ``text``."""
    import torch

    enc = tokenizer(text, return_tensors="pt", add_special_tokens=False)
    device = getattr(model, "device", None)
    if device is not None:
        enc = {k: v.to(device) for k, v in enc.items()}
    with torch.inference_mode():
        out = model.generate(**enc, max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=tokenizer.pad_token_id)
    return tokenizer.decode(out[0][enc["input_ids"].shape[1]:], skip_special_tokens=True)


def load_dpo_adapter(path: str | Path, command: str = "paperpilot train critic") -> tuple[Any, Any, dict]:
    """(model, tokenizer, meta) of a DPO adapter folder (``adapter_config.json`` + ``critic_meta.json``)
    on its base model; ModelNotAvailable naming ``command`` when the folder holds none."""
    path = Path(path).expanduser()
    meta_file = path / CRITIC_META_FILE
    if not (path / "adapter_config.json").exists() or not meta_file.exists():
        raise ModelNotAvailable(f"no trained adapter at {path}; train one with `{command}`")
    meta = json.loads(meta_file.read_text(encoding="utf-8"))
    model, tokenizer = LocalModelManager.shared().causal_lm(meta.get("base", "smollm2"), adapter=str(path))
    return model, tokenizer, meta


def critic_dir(settings: Any) -> Path:
    configured = getattr(getattr(settings, "agent", None), "critic_model", None)
    if configured:
        return Path(configured).expanduser()
    return settings.paths.home_dir() / DEFAULT_CRITIC_DIR


def load_critic_dir(path: str | Path, fallback: _Critique | None = None) -> LocalCritic:
    """A critic adapter folder (``adapter_config.json`` + ``critic_meta.json``) on its base model."""
    model, tokenizer, meta = load_dpo_adapter(path)
    return LocalCritic(model, tokenizer, name=f"local:{meta.get('name', 'critic-dpo')}", fallback=fallback)


def load_critic(settings: Any, fallback: _Critique | None = None) -> LocalCritic:
    """The DPO critic adapter from ``agent.critic_model`` (or the default trained location).

    Unreadable reviews defer to ``fallback``, by default the offline brain's rule critic.
    """
    path = critic_dir(settings)
    if fallback is None and (path / "adapter_config.json").exists():
        from core.brains.offline.brain import OfflineBrain

        fallback = OfflineBrain(settings)
    return load_critic_dir(path, fallback)
