"""The conversation as the chat pane shows it, one record per turn.

Each record keeps the question, the final answer as the agent wrote it (``[n]`` citations, not the
links the chat turns them into) and the turn's numbered sources, whose ``index`` is the ``n`` of the
answer's ``[n]``. Turns loaded from a session's history have no sources unless their trace was
replayed into the pane.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class TurnRecord:
    question: str
    answer: str = ""
    sources: list[Any] = field(default_factory=list)  # core.types.Source
    failed: str = ""  # why the turn ended without an answer
