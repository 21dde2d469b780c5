"""Values a sentence states for a few known measures (a default rank, a year, memory in GB, a
percentage): the sufficiency judge reads them, and a recalled fact that states another value of a
measure than the evidence does conflicts with it."""

from __future__ import annotations

import re

MEASURES: tuple[tuple[str, re.Pattern, re.Pattern | None], ...] = (
    ("default rank", re.compile(r"\brank(?:\s+r)?\s*(?:=|of|is|:)?\s*(\d+)\b|\br\s*=\s*(\d+)\b", re.I),
     re.compile(r"\b(default|typically|standard|set to|uses?)\b", re.I)),
    ("year", re.compile(r"\b(?:in|published in|introduced in|proposed in)\s+((?:19|20)\d{2})\b", re.I),
     re.compile(r"\b(introduc|publish|propos|releas)", re.I)),
    ("memory (GB)", re.compile(r"(\d+(?:\.\d+)?)\s?GB\b"), None),
    ("percentage", re.compile(r"(\d+(?:\.\d+)?)\s?%"), None),
)


def measures(sentence: str, *, need_cue: bool = True) -> dict[str, set[str]]:
    """Values stated for each known measure, e.g. {"default rank": {"8"}}."""
    out: dict[str, set[str]] = {}
    for name, pat, cue in MEASURES:
        if need_cue and cue is not None and not cue.search(sentence):
            continue
        vals = {g for m in pat.findall(sentence) for g in (m if isinstance(m, tuple) else (m,)) if g}
        if vals:
            out[name] = vals
    return out
