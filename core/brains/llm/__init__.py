"""The LLM brain: PaperPilot's Brain protocol driven by a LangChain chat model.

``LLMBrain(model, settings)`` works with any ``BaseChatModel``; :func:`build_chat_model` makes a
``ChatOpenAI`` for any OpenAI-compatible endpoint. Imports are lazy so that importing this
package costs nothing on the start-up path.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LLMBrain", "build_chat_model"]


def __getattr__(name: str) -> Any:
    if name == "LLMBrain":
        from core.brains.llm.brain import LLMBrain

        return LLMBrain
    if name == "build_chat_model":
        from core.brains.llm.chat import build_chat_model

        return build_chat_model
    raise AttributeError(name)
