"""The LLM brain: PaperPilot's Brain protocol driven by a LangChain chat model.

``LLMBrain(model, settings)`` works with any ``BaseChatModel``; :func:`build_chat_model` makes a
``ChatOpenAI`` for any OpenAI-compatible endpoint. Imports are lazy so that importing this
package costs nothing on the start-up path.
"""

from __future__ import annotations

from typing import Any

# The ``purpose`` of every model call (LLMCall events, run metadata ``paperpilot_purpose``).
# A repair request after an unparsable reply uses ``<purpose>.repair``.
PURPOSES = ("route", "slots", "plan", "plan.revise", "replan", "react", "sufficiency", "synthesis",
            "critic", "refine", "facts")

__all__ = ["LLMBrain", "build_chat_model", "PURPOSES"]


def __getattr__(name: str) -> Any:
    if name == "LLMBrain":
        from core.brains.llm.brain import LLMBrain

        return LLMBrain
    if name == "build_chat_model":
        from core.brains.llm.chat import build_chat_model

        return build_chat_model
    raise AttributeError(name)
