"""Export a deep-research review to a Markdown file the user names.

The same dialog, path and writer as the session export (:mod:`paperpilot_tui.screens.export`):
the review as written (``[n]`` citations), its sources grouped by knowledge point, then every
numbered source with its chunk quoted (:func:`paperpilot_tui.transcript.to_markdown`), secrets scrubbed.
"""

from __future__ import annotations

from typing import Any

from core.research.types import ResearchReview
from paperpilot_tui.screens.export import prompt_and_write
from paperpilot_tui.transcript import TurnRecord, to_markdown


def review_markdown(review: ResearchReview, topic: str, session_id: str, *, secrets: list[str] | None = None,
                    now: float | None = None) -> str:
    """The review, then "Sources by knowledge point", then the numbered sources with their text."""
    by_index = {s.index: s for s in review.sources}
    lines = ["## Sources by knowledge point", ""]
    for p in review.points:
        cited = ", ".join(f"[{n}]" for n in p.source_indices if n in by_index) or "none kept"
        lines.append(f"- **{p.point_id}** {p.topic} ({p.importance}){'' if p.covered else ' — not covered'}: {cited}")
    lines += [""] + [f"- gap: {g}" for g in review.gaps] + [f"- still uncovered: {u}" for u in review.uncovered]
    body = f"{review.markdown.strip()}\n\n" + "\n".join(lines).rstrip()
    record = TurnRecord(topic or review.title, body, list(review.sources))
    return to_markdown(session_id, [record], title=review.title, secrets=secrets, now=now)


def export_review(screen: Any, review: ResearchReview | None, topic: str) -> None:
    """Ask for a path (``<data dir>/exports/<session>-review.md`` offered) and write the review there."""
    app = screen.app
    if review is None:
        app.notify("No review to export yet: switch to Deep research (ctrl+r) and send a topic.",
                   severity="warning", timeout=4)
        return
    screen.run_worker(_export(app, review, topic), group="export", exclusive=True, exit_on_error=False)


async def _export(app: Any, review: ResearchReview, topic: str) -> None:
    session_id = app.session.session_id
    path = await prompt_and_write(
        app, f"Export the review “{review.title}” ({len(review.sources)} source(s)) to Markdown",
        f"{session_id}-review", lambda: review_markdown(review, topic, session_id, secrets=app.settings.secrets()))
    if path is not None:
        app.notify(f"Exported the review to {path}", title="Export", timeout=6)
