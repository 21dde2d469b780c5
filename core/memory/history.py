"""Conversation history from checkpointed messages (design stage J).

Each turn adds ``HumanMessage(question)`` and an ``AIMessage``: the final answer, or, for a turn that
failed (hub down or hung, backend error, cancelled), a failure record whose
``additional_kwargs["paperpilot"]["failed"]`` holds the one-line error and its category. An answer
keeps the turn's entities in ``additional_kwargs["paperpilot"]`` so a follow-up can resolve "it" /
"that one" against the previous turn.

Two views: what the brains get (:func:`turns_from_messages`: answered turns only, so a follow-up is
never resolved against a question that got no answer), and the session's record as people read it
(``failed=True``, :func:`conversation`: every turn, failures included).
"""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from core.types import Turn

FAILED_MARK = "✗ failed"


class RecordedTurn(Turn):
    """A turn as the session recorded it; ``error`` (one line) and ``category`` are set when it failed."""

    error: str = ""
    category: str = ""

    @property
    def failed(self) -> bool:
        return bool(self.error)

    @property
    def shown(self) -> str:
        """The answer as a person reads it: the answer, or ``✗ failed: <line>``."""
        return f"{FAILED_MARK}: {self.error}" if self.failed else self.answer


def failure_message(turn_id: str, error: str, category: str) -> AIMessage:
    """The record of a failed turn, in the answer's place (the same id a delivered answer would have,
    so recording it twice keeps one)."""
    line = " ".join(error.split()) or "the turn failed"
    meta = {"turn_id": turn_id, "failed": {"error": line, "category": category}}
    return AIMessage(content=line, id=f"{turn_id}-a", additional_kwargs={"paperpilot": meta})


def failure_of(msg: BaseMessage) -> dict | None:
    """``{"error", "category"}`` when ``msg`` records a failed turn; else None."""
    if not isinstance(msg, AIMessage):
        return None
    failed = ((msg.additional_kwargs or {}).get("paperpilot") or {}).get("failed")
    return failed if isinstance(failed, dict) else None


def turns_from_messages(messages: list[BaseMessage], max_turns: int = 3, *,
                        failed: bool = False) -> list[RecordedTurn]:
    """The last ``max_turns`` question/answer pairs, oldest first: answered turns only (the brains'
    view), or with ``failed`` also the failed ones (the session's record). A question with neither an
    answer nor a failure record (a process killed mid-turn) is left out of both."""
    turns: list[RecordedTurn] = []
    pending: str | None = None
    for msg in messages:
        if isinstance(msg, HumanMessage):
            pending = _text(msg)
        elif isinstance(msg, AIMessage) and pending is not None:
            failure = failure_of(msg)
            if failure is None:
                meta = (msg.additional_kwargs or {}).get("paperpilot", {})
                turns.append(RecordedTurn(question=pending, answer=_text(msg),
                                          entities=list(meta.get("entities", []))))
            elif failed:
                turns.append(RecordedTurn(question=pending, answer="", error=str(failure.get("error", "")),
                                          category=str(failure.get("category", ""))))
            pending = None
    return turns[-max_turns:] if max_turns > 0 else []


def conversation(messages: list[BaseMessage]) -> list[dict]:
    """The session's messages as ``{"role", "content"}`` dicts, oldest first; a failed turn's record
    also has ``failed: true``, ``error`` and ``category``."""
    out: list[dict] = []
    for msg in messages:
        if msg.type not in ("human", "ai"):
            continue
        entry: dict = {"role": "user" if msg.type == "human" else "assistant", "content": _text(msg)}
        if (failure := failure_of(msg)) is not None:
            entry |= {"failed": True, "error": str(failure.get("error", "")),
                      "category": str(failure.get("category", ""))}
        out.append(entry)
    return out


def _text(msg: BaseMessage) -> str:
    content = msg.content
    if isinstance(content, str):
        return content
    return " ".join(b.get("text", "") for b in content if isinstance(b, dict))
