"""Size limits on inputs (``limits:`` in the settings, :class:`core.config.LimitsSettings`).

A question, a fact, an import file, a file to ingest or a hub request past its limit is refused
before any work is done on it: unbounded inputs cost minutes of CPU and gigabytes of memory (a
5 MB question took 131 s and 2.2 GB) or make the hub slow for everyone after them. The refusal
is :class:`LimitExceeded`, whose ``str()`` is one line naming the limit and the setting to change.
Structured input (a JSON answers or outline file) is also bounded in depth, :data:`MAX_JSON_DEPTH`:
a parser recursing into 50,000 nested brackets overflows the stack instead of saying no.
Standard library only: the app and the CLI import this before first paint.
"""

from __future__ import annotations

import json
import re
from typing import Any

TEXT_TYPES = {".md", ".markdown", ".txt", ".csv", ".tsv"}  # files that are text all the way through
MAX_JSON_DEPTH = 32  # a user's JSON input nests 2-4 levels (answers, an outline); Python's parser fails near 1,000
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')  # a string (skipped whole) or a bracket


class LimitExceeded(ValueError):
    """An input over a configured size limit; ``str()`` is one line naming the setting."""

    def __init__(self, what: str, size: int, limit: int, setting: str, unit: str = "characters") -> None:
        self.what, self.size, self.limit, self.setting, self.unit = what, size, limit, setting, unit
        super().__init__(f"{what} is {_amount(size, unit)}, over the limit of {_amount(limit, unit)} "
                         f"(raise limits.{setting} in the settings to allow it)")


def _amount(n: int, unit: str) -> str:
    if unit == "bytes":
        for step, name in ((1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "kB")):
            if n >= step:
                return f"{n / step:.1f} {name}"
    return f"{n:,} {unit}"


def check_chars(text: str, limit: int, what: str, setting: str) -> str:
    """``text`` unchanged, or :class:`LimitExceeded` when it has more than ``limit`` characters."""
    if len(text) > limit:
        raise LimitExceeded(what, len(text), limit, setting)
    return text


def check_bytes(size: int, limit: int, what: str, setting: str) -> None:
    """:class:`LimitExceeded` when ``size`` bytes are more than ``limit``."""
    if size > limit:
        raise LimitExceeded(what, size, limit, setting, "bytes")


def ingest_limit(suffix: str, limits: Any) -> tuple[int, str]:
    """(byte limit, setting name) for a file to ingest: text files have the smaller limit, since
    every byte of them is text to chunk and embed; a PDF's bytes are mostly fonts and images."""
    if suffix.lower() in TEXT_TYPES:
        return limits.ingest_text_bytes, "ingest_text_bytes"
    return limits.ingest_file_bytes, "ingest_file_bytes"


def arguments_size(value: Any) -> int:
    """UTF-8 bytes of the strings in a tool call's arguments (nested lists and dicts included)."""
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    if isinstance(value, dict):
        return sum(arguments_size(k) + arguments_size(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return sum(arguments_size(v) for v in value)
    return 8


def json_depth(text: str, stop: int = MAX_JSON_DEPTH) -> int:
    """How deep ``text``'s brackets nest (brackets inside strings not counted), counting no
    further than ``stop + 1``: linear, and iterative, so any nesting is measured safely."""
    depth = deepest = 0
    for m in _JSON_TOKEN.finditer(text):
        c = m.group()
        if c in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > stop:
                break
        elif c in "]}":
            depth -= 1
    return deepest


def parse_json(text: str, what: str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``json.loads(text)`` for user input; ``ValueError`` with one line when it nests deeper than
    ``max_depth`` (checked before parsing) or is not JSON."""
    if json_depth(text, max_depth) > max_depth:
        raise ValueError(f"{what}: nested more than {max_depth} levels deep")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{what}: not JSON (line {exc.lineno}: {exc.msg})") from None


def decode_utf8(data: bytes, what: str) -> str:
    """``data`` as UTF-8 text; ``ValueError`` with one line naming the line and byte otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ValueError(f"{what}: not UTF-8 text (line {line}, byte 0x{data[exc.start]:02x}); save it as UTF-8") from None
