"""Tolerant structured output: turn whatever an LLM replied into a validated Pydantic object.

Models break JSON in predictable ways: code fences, prose around the object, trailing commas,
single quotes, Python literals, ``"85%"`` for a confidence, ``"multi-hop"`` for ``multi_hop``,
``{"intent": ...}`` instead of ``{"type": ...}``. :func:`parse_tolerant` repairs all of these and
coerces each field to what the schema declares (driven by the schema's annotations, so every
schema in :mod:`core.prompts.schemas` gets the same treatment). It returns ``None`` rather than
raising, so the caller can decide to ask again or fall back.
"""

from __future__ import annotations

import ast
import json
import re
import types
import typing
from collections.abc import Iterator
from typing import Any, Literal

from annotated_types import Ge, Le
from pydantic import BaseModel, ValidationError

_FENCE = re.compile(r"```[a-zA-Z0-9_-]*\s*\n?(.*?)```", re.S)
_THINK = re.compile(r"<think>.*?(</think>|$)", re.S | re.I)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")

# Value synonyms for Literal fields: normalized reply -> candidates, first allowed one wins.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "fact": ("factual",), "facts": ("factual",), "simple": ("factual",), "lookup": ("factual", "search"),
    "definition": ("factual",), "compare": ("comparative",), "comparison": ("comparative",),
    "multihop": ("multi_hop",), "multi_step": ("multi_hop",), "chain": ("multi_hop",),
    "reasoning": ("multi_hop",), "explore": ("exploratory",), "exploration": ("exploratory",),
    "open_ended": ("exploratory",), "survey": ("exploratory",), "overview": ("exploratory",),
    "followup": ("follow_up",), "follow": ("follow_up",), "clarification": ("follow_up",),
    "next": ("next_step",), "continue": ("next_step", "search"), "proceed": ("next_step",),
    "execute": ("next_step",), "revise": ("replan",), "re_plan": ("replan",), "plan": ("replan",),
    "done": ("synthesize", "finish"), "answer": ("synthesize", "finish"), "stop": ("synthesize", "finish"),
    "synthesise": ("synthesize",), "synthesis": ("synthesize",), "final_answer": ("finish", "synthesize"),
    "finish": ("finish", "synthesize"), "synthesize": ("synthesize", "finish"),
    "retrieve": ("search",), "query": ("search",), "search_knowledge_base": ("search",),
    "sufficient": ("fully_sufficient",), "full": ("fully_sufficient",), "fully": ("fully_sufficient",),
    "complete": ("fully_sufficient",), "yes": ("fully_sufficient",), "partial": ("partially_sufficient",),
    "partially": ("partially_sufficient",), "partly_sufficient": ("partially_sufficient",),
    "contradiction": ("contradictory",), "conflicting": ("contradictory",), "conflict": ("contradictory",),
    "inconsistent": ("contradictory",), "none": ("insufficient",), "no": ("insufficient",),
    "not_sufficient": ("insufficient",), "missing": ("insufficient",),
}
_WORD_NUMBERS = {"very high": 0.95, "high": 0.85, "medium": 0.6, "moderate": 0.6, "low": 0.3, "very low": 0.1}


def message_text(content: Any) -> str:
    """The text of a message's ``content`` (a string or a list of content blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type", "text") == "text":
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return "" if content is None else str(content)


def strip_think(text: str) -> str:
    """Remove ``<think>…</think>`` reasoning blocks some local models emit before the reply."""
    return _THINK.sub("", text).strip()


def iter_json(text: str, limit: int = 12) -> Iterator[Any]:
    """JSON values (objects or arrays) found in ``text``, fenced blocks first, then by position."""
    text = strip_think(text)
    tried = 0
    for cand in [m.group(1) for m in _FENCE.finditer(text)] + [text]:
        starts = [i for i, ch in enumerate(cand) if ch in "{["]
        for pos in starts:
            block = _balanced(cand[pos:], cand[pos])
            if block is None:
                continue
            tried += 1
            value = _loads(block)
            if value is not None:
                yield value
            if tried >= limit:
                return


def extract_json(text: str) -> Any | None:
    """The first JSON object (or array) in ``text``, repaired where that is cheap; else ``None``."""
    return next(iter_json(text), None)


def _balanced(text: str, opener: str) -> str | None:
    """The first balanced ``{…}`` / ``[…]`` block, aware of quoted strings."""
    closer = "}" if opener == "{" else "]"
    start = text.find(opener)
    while start != -1:
        depth, quote, escaped = 0, "", False
        for i in range(start, len(text)):
            ch = text[i]
            if quote:
                if escaped:
                    escaped = False
                elif ch == "\\":
                    escaped = True
                elif ch == quote:
                    quote = ""
            elif ch in "\"'" and not (ch == "'" and i > 0 and text[i - 1].isalnum()):
                quote = ch
            elif ch in "{[":
                depth += 1
            elif ch in "}]":
                depth -= 1
                if depth == 0:
                    return text[start:i + 1] if ch == closer else None
        # Unbalanced (truncated reply): close what is open and hope.
        tail = text[start:]
        if tail.count(opener) > tail.count(closer):
            return tail.rstrip().rstrip(",") + closer * (tail.count(opener) - tail.count(closer))
        start = text.find(opener, start + 1)
    return None


def _loads(block: str) -> Any | None:
    for attempt in (block, _TRAILING_COMMA.sub(r"\1", block)):
        try:
            return json.loads(attempt)
        except json.JSONDecodeError:
            pass
    pythonish = _TRAILING_COMMA.sub(r"\1", block)
    pythonish = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", re.sub(r"\bnull\b", "None", pythonish)))
    try:
        return ast.literal_eval(pythonish)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


def _norm_key(key: Any) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(key).strip().lower()).strip("_")


def _norm_value(value: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", value.strip().lower()).strip("_")


def coerce_literal(value: Any, allowed: tuple[str, ...]) -> Any:
    """Map a free-form label onto one of ``allowed`` (synonyms, prefixes); unchanged if hopeless."""
    if not isinstance(value, str):
        return value
    norm = _norm_value(value)
    if norm in allowed:
        return norm
    for cand in _SYNONYMS.get(norm, ()):
        if cand in allowed:
            return cand
    for a in allowed:
        if len(norm) >= 4 and (a.startswith(norm) or norm.startswith(a)):
            return a
    for a in allowed:  # "The intent is comparative." -> comparative
        if re.search(rf"\b{a}\b", norm.replace("_", " ")) or a in norm:
            return a
    return value


def coerce_number(value: Any, lo: float | None, hi: float | None) -> Any:
    """Numbers from strings (``"85%"``, ``"7/10"``, ``"high"``), rescaled and clamped to [lo, hi]."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        s = value.strip().lower()
        if s in _WORD_NUMBERS and hi is not None and hi <= 1:
            return _WORD_NUMBERS[s]
        nums = _NUMBER.findall(s)
        if not nums:
            return value
        num = float(nums[0])
        if "%" in s:
            num /= 100.0
        elif "/" in s and len(nums) > 1 and float(nums[1]) > 0 and hi is not None:
            num = num / float(nums[1]) * hi
        value = num
    if not isinstance(value, (int, float)):
        return value
    num = float(value)
    if hi is not None and hi <= 1 and num > 1:  # 85 -> 0.85, 8 -> 0.8 on a 0..1 field
        num = num / 100.0 if num > 10 else num / 10.0
    elif hi is not None and hi == 10 and 0 < num < 1:  # 0.8 on a 0..10 field
        num *= 10.0
    if lo is not None:
        num = max(lo, num)
    if hi is not None:
        num = min(hi, num)
    return num


def _as_str_list(value: Any) -> Any:
    if value is None:
        return []
    if isinstance(value, str):
        items = re.split(r"\n+|;\s*", value)
        return [re.sub(r"^\s*(?:[-*•]|\d+[.)])\s*", "", i).strip() for i in items if i.strip()]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        out = []
        for item in value:
            if isinstance(item, dict):
                texts = [v for v in item.values() if isinstance(v, str) and v.strip()]
                item = texts[0] if texts else ""
            text = str(item).strip()
            if text:
                out.append(text)
        return out
    return [str(value)]


def _unwrap(annotation: Any) -> tuple[Any, bool]:
    """(inner annotation, optional) for ``X | None`` / ``Optional[X]``."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0], True
    return annotation, False


def coerce(data: Any, schema: type[BaseModel]) -> Any:
    """Rename synonym keys and coerce values field by field, guided by the schema."""
    if isinstance(data, list):
        list_fields = [n for n, f in schema.model_fields.items() if typing.get_origin(_unwrap(f.annotation)[0]) is list]
        if len(list_fields) == 1:
            data = {list_fields[0]: data}
        elif data and isinstance(data[0], dict):
            data = data[0]
    if not isinstance(data, dict):
        return data
    aliases: dict[str, str] = getattr(schema, "key_aliases", {})
    fields = schema.model_fields
    if len(data) == 1 and isinstance(next(iter(data.values())), dict):
        key = _norm_key(next(iter(data)))
        target = fields.get(key if key in fields else aliases.get(key, ""))
        if target is None or _unwrap(target.annotation)[0] is not dict:
            data = next(iter(data.values()))  # {"SlotFillingOutput": {...}} or {"result": {...}}
    out: dict[str, Any] = {}
    for key, value in data.items():
        k = _norm_key(key)
        k = k if k in fields else aliases.get(k, k)
        if k in fields and k not in out:
            out[k] = value
    for name, field in fields.items():
        if name not in out:
            continue
        ann, optional = _unwrap(field.annotation)
        value = out[name]
        if value is None:
            if not optional and not field.is_required():
                del out[name]  # null for a field with a default: take the default
            continue
        origin = typing.get_origin(ann)
        if origin is Literal:
            out[name] = coerce_literal(value, tuple(str(a) for a in typing.get_args(ann)))
        elif ann in (float, int):
            lo = next((m.ge for m in field.metadata if isinstance(m, Ge)), None)
            hi = next((m.le for m in field.metadata if isinstance(m, Le)), None)
            out[name] = coerce_number(value, lo, hi)
        elif ann is bool and isinstance(value, str):
            out[name] = value.strip().lower() in ("true", "yes", "pass", "passed", "1")
        elif origin is list:
            out[name] = _as_str_list(value)
        elif ann is str and value is not None and not isinstance(value, str):
            out[name] = "; ".join(_as_str_list(value)) if isinstance(value, (list, dict)) else str(value)
        elif (ann is dict or origin is dict) and not isinstance(value, dict):
            out[name] = {}
    return out


def parse_tolerant(reply: Any, schema: type[BaseModel]) -> BaseModel | None:
    """Validate ``reply`` (text, dict or list) against ``schema`` after repairs; ``None`` if impossible."""
    if isinstance(reply, schema):
        return reply
    for data in (iter_json(reply) if isinstance(reply, str) else [reply]):
        fixed = coerce(data, schema)
        if isinstance(fixed, dict) and not fixed:
            continue  # nothing we recognise: not an answer, even if every field has a default
        try:
            return schema.model_validate(fixed)
        except (ValidationError, TypeError, ValueError):
            continue
    return None
