"""Edits of a research outline, as pure functions over :class:`~core.research.types.Outline`.

The outline editor screen calls these; each returns a new outline (the proposed one is never
changed in place), so the screen can always tell the user's outline from the agent's.
"""

from __future__ import annotations

import re

from pydantic import ValidationError

from core.research.types import KnowledgePoint, Outline

IMPORTANCE = ("high", "medium", "low")


def _points(outline: Outline) -> list[KnowledgePoint]:
    return [p.model_copy(deep=True) for p in outline.knowledge_points]


def next_id(outline: Outline) -> str:
    """``KPn`` one above the highest ``KPn`` in use (ids of removed points are not reused)."""
    numbers = [int(m.group(1)) for p in outline.knowledge_points if (m := re.fullmatch(r"KP(\d+)", p.id))]
    return f"KP{max(numbers, default=0) + 1}"


def add_point(outline: Outline, after: int | None = None) -> tuple[Outline, int]:
    """A new, empty point after row ``after`` (at the end when None); returns it and its row."""
    points = _points(outline)
    row = len(points) if after is None else min(after + 1, len(points))
    points.insert(row, KnowledgePoint(id=next_id(outline), category="New", topic="new knowledge point"))
    return outline.model_copy(update={"knowledge_points": points}), row


def remove_point(outline: Outline, row: int) -> Outline:
    points = _points(outline)
    if 0 <= row < len(points):
        del points[row]
    return outline.model_copy(update={"knowledge_points": points})


def move_point(outline: Outline, row: int, step: int) -> tuple[Outline, int]:
    """Swap row ``row`` with its neighbour ``step`` away; returns the outline and the point's new row."""
    points = _points(outline)
    to = row + step
    if not (0 <= row < len(points) and 0 <= to < len(points)):
        return outline, row
    points[row], points[to] = points[to], points[row]
    return outline.model_copy(update={"knowledge_points": points}), to


def cycle_importance(outline: Outline, row: int) -> Outline:
    """high → medium → low → high."""
    points = _points(outline)
    if 0 <= row < len(points):
        p = points[row]
        p.importance = IMPORTANCE[(IMPORTANCE.index(p.importance) + 1) % len(IMPORTANCE)]
    return outline.model_copy(update={"knowledge_points": points})


def set_field(outline: Outline, row: int, field: str, value: str) -> Outline:
    """One field of one point from the form: ``topic``, ``category``, ``importance``, or
    ``search_keywords`` (comma-separated)."""
    points = _points(outline)
    if not 0 <= row < len(points):
        return outline
    p = points[row]
    if field == "search_keywords":
        p.search_keywords = parse_keywords(value)
    else:
        setattr(p, field, value)
    return outline.model_copy(update={"knowledge_points": points})


def parse_keywords(value: str) -> list[str]:
    return [k.strip() for k in value.split(",") if k.strip()]


def from_json(text: str) -> tuple[Outline | None, str]:
    """The outline in ``text``, or None and one line naming the first bad field."""
    try:
        return Outline.model_validate_json(text), ""
    except ValidationError as exc:
        return None, validation_line(exc)


def validation_line(exc: ValidationError) -> str:
    """``knowledge_points[1].importance: Input should be 'high', 'medium' or 'low' (and 1 more error)``."""
    errors = exc.errors(include_url=False)
    first = errors[0]
    where = ""
    for part in first.get("loc", ()):
        where += f"[{part}]" if isinstance(part, int) else f".{part}" if where else str(part)
    more = len(errors) - 1
    tail = f" (and {more} more error{'s' if more > 1 else ''})" if more else ""
    return f"{where or 'JSON'}: {first['msg']}{tail}"


def problems(outline: Outline) -> str:
    """Why this outline cannot start a search ('' when it can)."""
    if not outline.knowledge_points:
        return "the outline has no knowledge point: add one (a) or edit the JSON"
    ids = [p.id for p in outline.knowledge_points]
    if dup := sorted({i for i in ids if ids.count(i) > 1}):
        return f"knowledge point ids must differ: {', '.join(dup)} appears more than once"
    if empty := [p.id for p in outline.knowledge_points if not p.topic.strip()]:
        return f"{', '.join(empty)}: the topic is empty"
    return ""
