"""Questions about versions of one document: "what changed between version 1 and 2 of X",
"v1 vs v2 of X". Such a question is about two entities, each scoped to a version of X, written
``"X (version N)"`` so that traces and the app show them as they are. Pure text: no imports from
the agent, the hub or the brains, so slot filling, strategies and brains all share it.
"""

from __future__ import annotations

import re

_V = r"(?:version\s*|v\.?\s*)"
_PAIR = re.compile(
    rf"(?:between\s+)?{_V}(\d+)\s*(?:and|vs\.?|versus|to|&|->|→)\s*(?:{_V})?(\d+)\s+(?:of|in|for)\s+(?:the\s+)?(.+?)\s*[?.!]*$"
    rf"|(?:between\s+)?{_V}(\d+)\s+of\s+(?:the\s+)?(.+?)\s+(?:and|vs\.?|versus|to)\s+{_V}(\d+)\s*[?.!]*$"
    rf"|(?:in|of)\s+(?:the\s+)?(.+?)\s+(?:between|from)\s+{_V}(\d+)\s*(?:and|to|vs\.?)\s*(?:{_V})?(\d+)\s*[?.!]*$",
    re.I)
_SCOPED = re.compile(r"^(.*\S)\s+\(version (\d+)\)$")


def scoped(name: str, version: int) -> str:
    return f"{name} (version {version})"


def split(entity: str) -> tuple[str, int | None]:
    """``"X (version 2)"`` → ``("X", 2)``; any other entity → ``(entity, None)``."""
    m = _SCOPED.match(entity.strip())
    return (m.group(1), int(m.group(2))) if m else (entity, None)


def version_pair(question: str) -> tuple[str, int, int] | None:
    """(document name, older version, newer version) when ``question`` compares two versions of one
    document; None otherwise."""
    m = _PAIR.search(" ".join(question.split()))
    if m is None:
        return None
    g = m.groups()
    a, b, name = (g[0], g[1], g[2]) if g[0] else (g[3], g[5], g[4]) if g[3] else (g[7], g[8], g[6])
    name = re.sub(r"^(?:document|doc|file|paper|note)s?\s+", "", name.strip(" \"'“”`"), flags=re.I)
    if not name or a == b:
        return None
    lo, hi = sorted((int(a), int(b)))
    return name, lo, hi


def versioned_entities(question: str) -> list[str]:
    """The two version-scoped entities of a version-comparison question, else []."""
    pair = version_pair(question)
    return [scoped(pair[0], pair[1]), scoped(pair[0], pair[2])] if pair else []
