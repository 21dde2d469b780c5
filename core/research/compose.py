"""Write the review: a section per point (LLM streamed, or offline extractive), the critic's one
retry for uncovered high-importance points, gaps, then the validated Markdown streamed and finished.

With the LLM brain each section streams as the model writes it (``TokenDelta(node="review")``); a
section that keeps no valid citation after the check is written by the offline brain instead, with
a Notice. With the offline brain the validated review streams sentence by sentence. Either way
:class:`~core.events.ReviewFinished` carries the final, validated review, which is what the app
and the CLI show.
"""

from __future__ import annotations

from typing import Any

from core.brains.offline.synthesis import stream
from core.brains.offline.text import strip_markers
from core.events import Notice, ReviewFinished, TokenDelta
from core.research import llm as llm_steps
from core.research.review import Section, assemble, cited, evidence, gaps, point_section, reviewed, validate
from core.research.search import PointHits, point_name, search_point
from core.research.types import KnowledgePoint, Outline, ResearchReview
from core.telemetry import emit


def _sink(text: str) -> None:
    if text:
        emit(TokenDelta(text=text, node="review"))


async def write_section(ctx: Any, point: KnowledgePoint, contexts: list, indexes: list[int]) -> str:
    """The point's validated section: the LLM's when it keeps a valid citation, else the offline one."""
    llm = llm_steps.llm_of(ctx.brain)
    if llm is not None and indexes:
        _sink(f"\n\n### {point.topic}\n\n")
        text = await llm_steps.section(llm, point, contexts, indexes, _sink)
        if text is not None:
            checked, changes = validate(text, contexts)
            for change in changes:
                emit(Notice(level="info", message=f"Citation {change}", source="review"))
            if cited(checked):
                return checked
            emit(Notice(level="warning", source=llm.name,
                        message=f"{llm.name}: research section {point.id} kept no valid citation; "
                                f"used the offline brain for this step"))
    checked, changes = validate(point_section(point, contexts, indexes, vocab=ctx.vocabulary), contexts)
    for change in changes:
        emit(Notice(level="info", message=f"Citation {change}", source="review"))
    return checked


async def write_review(ctx: Any, outline: Outline, found: list[PointHits]) -> ResearchReview:
    contexts, own = evidence(outline, found)
    sections = [Section(p, await write_section(ctx, p, contexts, own[p.id])) for p in outline.knowledge_points]
    retried: list[str] = []
    by_id = {h.point_id: h for h in found}
    for s in sections:  # the critic: every high-importance point must be covered; one retry each
        if s.point.importance != "high" or cited(s.text):
            continue
        retried.append(s.point.id)
        extra = [point_name(s.point), f"{s.point.category} {point_name(s.point)}"]
        more, _ = await search_point(ctx.hub, s.point, ctx.collection, extra=extra, vocab=ctx.vocabulary)
        have = {c.chunk_id for c in contexts}
        new = [c for c in more.contexts if c.chunk_id not in have]
        hits = by_id.setdefault(s.point.id, PointHits(s.point.id))
        for c in new:
            contexts.append(c)
            own[s.point.id].append(len(contexts))
            hits.contexts.append(c)
        s.text = await write_section(ctx, s.point, contexts, own[s.point.id])
        emit(Notice(level="info", source="review",
                    message=f"critic: {s.point.id} “{s.point.topic}” was uncovered; searched again "
                            f"({len(new)} new chunk(s)), {'now covered' if cited(s.text) else 'still uncovered'}"))
    uncovered = [s.point.id for s in sections if s.point.importance == "high" and not cited(s.text)]
    only = reviewed([s.text for s in sections], contexts)
    gap_lines = [validate(g, contexts)[0] for g in gaps(contexts, only=only)]
    gap_lines = [g for g in gap_lines if cited(g)]
    done = assemble(outline, sections, gap_lines, contexts, list(by_id.values()), own, ctx.vocabulary,
                    retried=retried, uncovered=uncovered)
    done.gaps = [strip_markers(g) for g in gap_lines]
    if llm_steps.llm_of(ctx.brain) is None:
        await stream(done.markdown, _sink)
    emit(ReviewFinished(review=done))
    return done
