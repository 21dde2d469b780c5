"""Conversation history from checkpointed messages (design stage J).

Each turn adds ``HumanMessage(question)`` and ``AIMessage(final_answer)``; format_output stores the
turn's entities in the AI message's ``additional_kwargs["paperpilot"]`` so a follow-up can resolve
"it" / "that one" against the previous turn.
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from core.types import Turn


def turns_from_messages(messages: list[BaseMessage], max_turns: int = 3) -> list[Turn]:
    """The last ``max_turns`` completed question/answer pairs, oldest first."""
    turns: list[Turn] = []
    pending: str | None = None
    for msg in messages:
        if isinstance(msg, HumanMessage):
            pending = _text(msg)
        elif isinstance(msg, AIMessage) and pending is not None:
            meta = (msg.additional_kwargs or {}).get("paperpilot", {})
            turns.append(Turn(question=pending, answer=_text(msg), entities=list(meta.get("entities", []))))
            pending = None
    return turns[-max_turns:] if max_turns > 0 else []


def _text(msg: BaseMessage) -> str:
    content = msg.content
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if isinstance(b, dict))

