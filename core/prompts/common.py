"""Shared prompt pieces: numbered contexts, history, the JSON reply spec."""

from __future__ import annotations

import json
import re
import typing

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from core.types import Turn
from core.types import RetrievedContext

CONTEXT_CHARS = 1200
HISTORY_CHARS = 400


def clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def context_header(n: int, ctx: RetrievedContext) -> str:
    label = ctx.title or ctx.doc_id or ctx.source or ctx.chunk_id
    if ctx.breadcrumb and ctx.breadcrumb != label:
        label += f" › {ctx.breadcrumb}"
    if ctx.page is not None:
        label += f" (p. {ctx.page})"
    return f"[{n}] {label}"


def format_contexts(contexts: list[RetrievedContext], limit: int = CONTEXT_CHARS, start: int = 1) -> str:
    """Contexts numbered ``[start]..`` (1-based positions in the list the caller passes)."""
    if not contexts:
        return "(none)"
    return "\n\n".join(f"{context_header(i, c)}\n{clip(c.content, limit)}"
                       for i, c in enumerate(contexts, start))


def format_history(turns: list[Turn], limit: int = HISTORY_CHARS) -> str:
    lines = []
    for t in turns:
        lines.append(f"User: {clip(t.question, limit)}")
        answer = f"Assistant: {clip(t.answer, limit)}"
        if t.entities:
            answer += f"  (entities: {', '.join(t.entities)})"
        lines.append(answer)
    return "\n".join(lines)


def history_section(turns: list[Turn]) -> str:
    return f"Conversation history (oldest first):\n{format_history(turns)}\n\n" if turns else ""


def bullets(items: list[str], empty: str = "(none)") -> str:
    return "\n".join(f"- {i}" for i in items) if items else empty


def quoted_block(tag: str, items: list[str]) -> str:
    """Items as JSON-quoted lines inside ``<tag> … </tag>``: data for the model, never instructions.

    Any ``<tag>``/``</tag>`` inside an item is removed so an item cannot close the block early.
    """
    strip = re.compile(rf"<\s*/?\s*{re.escape(tag)}\s*>", re.I)
    lines = [f"- {json.dumps(strip.sub('', i), ensure_ascii=False)}" for i in items]
    return "\n".join([f"<{tag}>", *lines, f"</{tag}>"])


def numbered(items: list[str], empty: str = "(none)") -> str:
    return "\n".join(f"{i}. {q}" for i, q in enumerate(items, 1)) if items else empty


def json_spec(schema: type[BaseModel]) -> str:
    """A compact description of the JSON object ``schema`` expects, for models without tools."""
    lines = []
    for name, field in schema.model_fields.items():
        ann = field.annotation
        kind = "list of strings" if typing.get_origin(ann) is list else (
            "number" if ann in (float, int) else "true/false" if ann is bool else
            "object" if ann is dict else "string")
        desc = f" — {field.description}" if field.description else ""
        lines.append(f'  "{name}": {kind}{desc}')
    return ("Reply with one JSON object only (no prose, no code fence) with these keys:\n{\n"
            + ",\n".join(lines) + "\n}")


REPAIR = ("Your previous reply could not be parsed. Reply again with the JSON object only: "
          "double-quoted keys and strings, no comments, no trailing commas, no text around it.\n")


_LIST_ITEM = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s")


def unwrap(text: str) -> str:
    """Join hard-wrapped lines of a prompt written in source (list items stay on their own lines)."""
    out: list[str] = []
    for line in text.strip().splitlines():
        continues_item = bool(out) and bool(_LIST_ITEM.match(out[-1])) and line[:1].isspace()
        in_paragraph = bool(out) and not _LIST_ITEM.match(out[-1]) and not line[:1].isspace()
        if out and out[-1] and line.strip() and not _LIST_ITEM.match(line) and (continues_item or in_paragraph):
            out[-1] += " " + line.strip()
        else:
            out.append(line.rstrip())
    return "\n".join(out)


def chat(system: str, user: str) -> list[BaseMessage]:
    return [SystemMessage(content=unwrap(system)), HumanMessage(content=user.strip())]
