"""A local Hugging Face chat model as a LangChain ``BaseChatModel`` (the ``transformers`` LLM provider).

``settings.llm.model`` names a local model folder, a ``.gguf`` file, or ``smollm2`` (the bundled
SmolLM2-135M-Instruct GGUF). Weights come from :class:`LocalModelManager` (4-bit NF4 on CUDA, fp32 on
CPU). Tokens stream through ``TextIteratorStreamer`` while ``generate`` runs in a background thread;
LangChain's default async path runs the sync stream in an executor, so the event loop never blocks.
"""

from __future__ import annotations

import threading
from typing import Any
from collections.abc import Iterator

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from pydantic import ConfigDict

from core.models.manager import LocalModelManager, ModelNotAvailable, resolve_base

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "user"}


def to_chat_messages(messages: list[BaseMessage]) -> list[dict]:
    """LangChain messages → ``[{"role", "content"}]`` for the tokenizer's chat template."""
    out = []
    for m in messages:
        content = m.content if isinstance(m.content, str) else " ".join(
            b.get("text", "") for b in m.content if isinstance(b, dict))
        out.append({"role": _ROLES.get(m.type, "user"), "content": content})
    return out


class LocalChatModel(BaseChatModel):
    """Greedy (temperature 0) or sampled generation from a local causal LM."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    model: Any
    tokenizer: Any
    model_name: str = "local"
    max_new_tokens: int = 512
    temperature: float = 0.0

    @property
    def _llm_type(self) -> str:
        return "paperpilot-transformers"

    def _inputs(self, messages: list[BaseMessage]) -> dict:
        text = self.tokenizer.apply_chat_template(to_chat_messages(messages), tokenize=False,
                                                  add_generation_prompt=True)
        enc = self.tokenizer(text, return_tensors="pt", add_special_tokens=False)
        device = getattr(self.model, "device", None)
        return {k: v.to(device) for k, v in enc.items()} if device is not None else dict(enc)

    def _gen_kwargs(self, stop: list[str] | None) -> dict:
        kw: dict[str, Any] = {"max_new_tokens": self.max_new_tokens, "pad_token_id": self.tokenizer.pad_token_id}
        if self.temperature > 0:
            kw.update(do_sample=True, temperature=self.temperature)
        else:
            kw["do_sample"] = False
        if stop:
            kw["stop_strings"] = stop
            kw["tokenizer"] = self.tokenizer
        return kw

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        from transformers import TextIteratorStreamer

        streamer = TextIteratorStreamer(self.tokenizer, skip_prompt=True, skip_special_tokens=True)
        errors: list[BaseException] = []

        def work() -> None:
            import torch

            try:
                with torch.inference_mode():
                    self.model.generate(**self._inputs(messages), streamer=streamer, **self._gen_kwargs(stop))
            except BaseException as exc:  # noqa: BLE001 - re-raised in the consumer thread
                errors.append(exc)
                streamer.end()

        thread = threading.Thread(target=work, name="local-chat-generate", daemon=True)
        thread.start()
        for piece in streamer:
            if not piece:
                continue
            chunk = ChatGenerationChunk(message=AIMessageChunk(content=piece))
            if run_manager:
                run_manager.on_llm_new_token(piece, chunk=chunk)
            yield chunk
        thread.join()
        if errors:
            raise errors[0]

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        text = "".join(c.text for c in self._stream(messages, stop, run_manager, **kwargs))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])


def load_local_chat_model(settings: Any) -> LocalChatModel:
    """The configured local chat model; :class:`ModelNotAvailable` (one line) when it cannot load."""
    name = settings.llm.model
    resolve_base(name)  # fail fast with one line for a missing path
    model, tokenizer = LocalModelManager.shared().causal_lm(name)
    if not getattr(tokenizer, "chat_template", None):
        raise ModelNotAvailable(f"local model {name} has no chat template; use an instruct/chat model")
    return LocalChatModel(model=model, tokenizer=tokenizer, model_name=str(name),
                          max_new_tokens=settings.llm.max_tokens, temperature=settings.llm.temperature)
