"""The local LoRA router's input text, shared by training and inference alike."""

from __future__ import annotations

from core.types import Turn

MAX_PREV_QUESTION = 120
MAX_PREV_ANSWER = 120


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def format_router_input(question: str, history: list[Turn]) -> str:
    """The router's input text: the question, then at most the last turn, clipped.

    The question comes first so truncation only ever cuts history.
    """
    text = " ".join(question.split())
    if history:
        last = history[-1]
        text += (f" [SEP] previous question: {_clip(last.question, MAX_PREV_QUESTION)}"
                 f" previous answer: {_clip(last.answer, MAX_PREV_ANSWER)}")
    return text


def turns_from_chat(history: list[dict]) -> list[Turn]:
    """``[{"role": "user"|"assistant", "content": ...}, ...]`` (the data files' format) → turns."""
    turns: list[Turn] = []
    pending: str | None = None
    for msg in history:
        if msg.get("role") == "user":
            pending = str(msg.get("content", ""))
        elif msg.get("role") == "assistant" and pending is not None:
            turns.append(Turn(question=pending, answer=str(msg.get("content", ""))))
            pending = None
    if pending is not None:  # a trailing question without an answer still counts as context
        turns.append(Turn(question=pending, answer=""))
    return turns
