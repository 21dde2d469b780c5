"""The conversation as the chat pane shows it, one record per turn, and its Markdown export.

Each record keeps the question, the final answer as the agent wrote it (``[n]`` citations, not the
links the chat turns them into) and the turn's numbered sources, whose ``index`` is the ``n`` of the
answer's ``[n]``. Turns loaded from a session's history have no sources unless their trace was
replayed into the pane.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

EXPORTS_DIR = "exports"


@dataclass
class TurnRecord:
    question: str
    answer: str = ""
    sources: list[Any] = field(default_factory=list)  # core.types.Source
    failed: str = ""  # why the turn ended without an answer
    doc_id: str | None = None  # the one document an @paper mention scoped the turn to (regenerate keeps it)


def default_export_path(settings: Any, session_id: str) -> Path:
    """``<data dir>/exports/<session>.md`` (the dialog offers it; the user may change it)."""
    safe = re.sub(r"[^\w.-]+", "_", session_id) or "session"
    return settings.paths.resolve(EXPORTS_DIR) / f"{safe}.md"


def _source_line(s: Any) -> str:
    title = s.title or s.doc_id or s.source or s.chunk_id
    where = " · ".join(x for x in (s.breadcrumb, f"p. {s.page}" if s.page is not None else "") if x)
    tail = f" — {where}" if where else ""
    return f"- **[{s.index}]** {title}{tail} (chunk `{s.chunk_id}`)"


def _quote(text: str) -> str:
    """The chunk's text as a quote under its list item."""
    return "\n".join(f"  > {line}" if line else "  >" for line in text.strip().splitlines())


def to_markdown(session_id: str, turns: list[TurnRecord], *, title: str = "", now: float | None = None,
                secrets: list[str] | None = None) -> str:
    """The session as Markdown: each question and answer, and under each answer its numbered sources
    (title, where in the paper, chunk id, and the chunk's text quoted) so the ``[n]`` can be checked.
    The configured ``secrets`` and key-shaped strings are scrubbed (:class:`core.redact.Redactor`)."""
    from core.redact import Redactor

    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(now if now is not None else time.time()))
    out = [f"# {title or 'PaperPilot session'}", "", f"Session `{session_id}` · exported {stamp} · "
           f"{len(turns)} turn(s)", ""]
    for n, turn in enumerate(turns, 1):
        out += [f"## {n}. {turn.question.strip()}", ""]
        if turn.answer:
            out += [turn.answer.strip(), ""]
        else:
            out += [f"_(no answer: {turn.failed or 'the turn did not finish'})_", ""]
        if turn.sources:
            out += ["### Sources", ""]
            for s in turn.sources:
                out.append(_source_line(s))
                if s.text:
                    out += ["", _quote(s.text), ""]
            if out[-1]:
                out.append("")
    return Redactor(secrets).text("\n".join(out).rstrip() + "\n")


def write_export(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` as a new file only its owner can read (mode 0600: an export holds
    the conversation). A temp file is created exclusively beside it and renamed over it, so an
    existing file is replaced, never written through or chmod-ed, and a symlink there is replaced,
    not followed. A missing folder is created 0700."""
    path = path.expanduser()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return path
