"""Plain-text rendering of a turn's events, one event at a time.

``traces show`` feeds it the stored events and ``traces replay`` the replay iterator, so both print
the same steps in the same order by construction. The words are :func:`~core.tracing.describe.describe`'s;
this module only indents them. Streaming-only events (:data:`~core.tracing.describe.QUIET`) render to
nothing: the step line comes when the node finishes, with its duration.
"""

from __future__ import annotations

from typing import Any

from core.events import Event, NodeFinished, RetryStarted, TurnFailed, TurnFinished, TurnStarted
from core.tracing.describe import QUIET, describe, details, fmt_ms


def _indent(e: Event) -> str:
    match e:
        case TurnStarted() | TurnFinished() | TurnFailed():
            return ""
        case NodeFinished() | RetryStarted():
            return "  "
    return "    "


def render_event(e: Event) -> list[str]:
    """The lines one event contributes to a trace view (often none)."""
    if isinstance(e, QUIET):
        return []
    pad = _indent(e)
    return [pad + describe(e)] + [pad + "  " + line for line in details(e)]


def render_header(summary: Any) -> list[str]:
    """Who/when/what of a trace (a :class:`~core.tracing.summary.TraceSummary`), above its steps."""
    import time

    when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(summary.started))
    status = "ok" if summary.error is None else "failed"
    return [
        f"trace {summary.trace_id}  session {summary.session_id or '-'}  {when}  {status}",
        f"intent {summary.intent or '-'} · strategy {summary.strategy or '-'} · {summary.retries} retr{'y' if summary.retries == 1 else 'ies'} · "
        f"{summary.llm_calls} LLM calls ({summary.prompt_tokens}+{summary.completion_tokens} tokens) · "
        f"{fmt_ms(summary.duration_ms)}",
    ]


def render_events(events: list[Any]) -> list[str]:
    return [line for e in events for line in render_event(e)]
