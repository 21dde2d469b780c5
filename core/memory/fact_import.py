"""Read a ``paperpilot memory import`` file whole, and check every line, before anything is written.

The file is JSON lines as ``memory export`` writes them: an object with a ``content`` string and,
optionally, ``pinned`` (bool), ``created`` (a Unix time), ``source_question`` and ``session_id``
(strings); other keys of an export (``keywords``, ``updated``, ...) are ignored, and a bare JSON
string is a fact too. Any problem — a file that is missing, a directory, too large, not UTF-8; a
line that is not JSON, not an object, lacks ``content`` or has a field of the wrong type; a fact
over ``limits.fact_chars`` — raises :class:`FactImportError` naming the file and the line, and
nothing is imported: all or nothing, so a fixed file can simply be imported again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from core.limits import LimitExceeded, check_bytes, check_chars
from core.memory.text import clean_fact


class FactImportError(ValueError):
    """A bad import file; ``str()`` is one line: ``FILE[:LINE]: what is wrong; nothing imported``."""

    def __init__(self, where: str, problem: str) -> None:
        super().__init__(f"{where}: {problem}; nothing imported")


@dataclass
class ImportedFact:
    content: str
    pinned: bool = False
    created: float | None = None
    source_question: str = ""
    session_id: str = ""


_TYPES = {"pinned": (bool,), "created": (int, float), "source_question": (str,), "session_id": (str,)}
_TYPE_NAMES = {"pinned": "true or false", "created": "a number (Unix time)", "source_question": "a string",
               "session_id": "a string"}


def read_import(path: str | Path, max_bytes: int, max_fact_chars: int) -> list[ImportedFact]:
    """Every fact of the file at ``path``, or :class:`FactImportError` for the first problem."""
    path = Path(path)
    try:
        if path.is_dir():
            raise FactImportError(str(path), "is a directory, not a JSON lines file")
        size = path.stat().st_size
        check_bytes(size, max_bytes, "the file", "import_file_bytes")
        raw = path.read_bytes()
    except LimitExceeded as exc:
        raise FactImportError(str(path), str(exc)) from None
    except OSError as exc:
        raise FactImportError(str(path), f"cannot read it ({exc.strerror or type(exc).__name__})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise FactImportError(f"{path}:{line}", f"not UTF-8 text (byte 0x{raw[exc.start]:02x})") from None
    return [fact for n, line in enumerate(text.splitlines(), 1) if (fact := _fact(line, f"{path}:{n}", max_fact_chars))]


def _fact(line: str, where: str, max_fact_chars: int) -> ImportedFact | None:
    if not line.strip():
        return None
    try:
        item = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise FactImportError(where, f"not a JSON line ({getattr(exc, 'msg', 'nested too deeply')})") from None
    if isinstance(item, str):
        item = {"content": item}
    if not isinstance(item, dict):
        raise FactImportError(where, f"expected a JSON object with a 'content' string, got {_json_type(item)}")
    content = item.get("content")
    if not isinstance(content, str):
        problem = "has no 'content'" if content is None else f"'content' must be a string, got {_json_type(content)}"
        raise FactImportError(where, problem)
    cleaned = clean_fact(content)  # as the store measures it
    if not cleaned:
        raise FactImportError(where, "'content' has no text")
    try:
        check_chars(cleaned, max_fact_chars, "the fact", "fact_chars")
    except LimitExceeded as exc:
        raise FactImportError(where, str(exc)) from None
    for key, types in _TYPES.items():
        value = item.get(key)
        if value is not None and (not isinstance(value, types) or (key == "created" and isinstance(value, bool))):
            raise FactImportError(where, f"'{key}' must be {_TYPE_NAMES[key]}, got {json.dumps(value)[:40]}")
    return ImportedFact(content, bool(item.get("pinned")), item.get("created"),
                        item.get("source_question") or "", item.get("session_id") or "")


def _json_type(value: object) -> str:
    """What JSON calls the type of a parsed value."""
    if isinstance(value, bool):
        return "true/false"
    return {list: "an array", dict: "an object", int: "a number", float: "a number",
            str: "a string"}.get(type(value), "null")
