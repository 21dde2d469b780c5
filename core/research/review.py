"""The review: extractive cited sections (offline brain), citation validation, coverage, assembly.

Every ``[n]`` indexes the run's evidence: the kept chunks of all points, in outline order. Sections
are written from the sentences of their own point's chunks with the offline brain's evidence
machinery (sentence pool, relevance, MMR); the gaps section from sentences that state limitations
or future work. Each section is then checked claim by claim (:func:`core.citations.check_citations`,
exactly as answers are): an unsupported marker is re-pointed or dropped. A point is covered when
its section keeps at least one valid citation. Sources are numbered by first appearance
(:func:`core.nodes.format_output.renumber_citations`), so no source is listed that is not cited
and nothing is cited that was not retrieved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.brains.offline.evidence import profile, sentence_pool
from core.brains.offline.synthesis import cite, mmr, relevance
from core.brains.offline.text import passage_sentences
from core.citations import check_citations
from core.research.search import PointHits, point_name
from core.research.types import KnowledgePoint, Outline, PointCoverage, ResearchReview
from core.types import Intent, RetrievedContext
from core.vocabulary import Vocabulary

SENTENCES_PER_POINT = 3
MAX_GAPS = 5
GAP_CUE = re.compile(
    r"\b(limitations?|future (?:work|research|directions?)|remains? (?:an )?open|open (?:question|problem)s?|"
    r"left for future|we leave|is not (?:yet )?(?:clear|known|addressed)|does not (?:address|handle|scale)|"
    r"challeng(?:e|es|ing)|drawbacks?|shortcomings?|costly|expensive|fails? to|cannot)\b", re.I)
_MARK = re.compile(r"\[(\d+)\]")


@dataclass
class Section:
    point: KnowledgePoint
    text: str  # the section body, markers index the run's evidence (1-based)


def evidence(outline: Outline, found: list[PointHits]) -> tuple[list[RetrievedContext], dict[str, list[int]]]:
    """The run's evidence list and, per point, the 1-based indexes of its own chunks."""
    by_id = {h.point_id: h for h in found}
    contexts: list[RetrievedContext] = []
    own: dict[str, list[int]] = {}
    for p in outline.knowledge_points:
        hits = by_id.get(p.id)
        own[p.id] = []
        for c in hits.contexts if hits else []:
            contexts.append(c)
            own[p.id].append(len(contexts))
    return contexts, own


def point_section(point: KnowledgePoint, contexts: list[RetrievedContext], indexes: list[int],
                  k: int = SENTENCES_PER_POINT, *, vocab: Vocabulary) -> str:
    """Up to ``k`` cited sentences of the point's own chunks that speak to it (empty: no evidence)."""
    if not indexes:
        return ""
    mine = [contexts[i - 1] for i in indexes]
    name = point_name(point)
    intent = Intent(type="exploratory", confidence=1.0, entities=[name] if _named(name, mine, vocab) else [],
                    reformulated_query=" ".join([point.topic, *point.search_keywords]))
    prof = profile(point.topic, intent, vocab=vocab)
    pool = sentence_pool(mine, prof)
    chosen = mmr(pool, lambda s: relevance(s, prof), k)
    chosen.sort(key=lambda s: (s.ctx, s.pos))
    return " ".join(cite(s.text, [indexes[n - 1] for n in s.cited]) for s in chosen)


def _named(name: str, ctxs: list[RetrievedContext], vocab: Vocabulary) -> bool:
    from core.brains.offline.evidence import names

    return any(names(c, name, vocab) for c in ctxs)


def doc_of(c: RetrievedContext) -> str:
    return c.doc_id or c.source


def reviewed(texts: list[str], contexts: list[RetrievedContext]) -> set[str]:
    """The documents ``texts`` cite (their ``[n]`` markers into ``contexts``)."""
    return {doc_of(contexts[int(n) - 1]) for t in texts for n in _MARK.findall(t) if 1 <= int(n) <= len(contexts)}


def gaps(contexts: list[RetrievedContext], limit: int = MAX_GAPS, only: set[str] | None = None) -> list[str]:
    """Cited sentences stating a limitation, an open problem or future work (one per document);
    ``only``: from these documents alone (the ones the review's sections cite: a paper a point's
    search merely brushed is not one whose open problems the review is about)."""
    out: list[str] = []
    docs: set[str] = set()
    for n, c in enumerate(contexts, 1):
        if doc_of(c) in docs or (only is not None and doc_of(c) not in only):
            continue
        for sent in passage_sentences(c.content):
            if GAP_CUE.search(sent) and len(sent.split()) >= 6 and not sent.rstrip().endswith("?"):
                out.append(cite(sent, [n]))
                docs.add(doc_of(c))
                break
        if len(out) >= limit:
            break
    return out


def validate(text: str, contexts: list[RetrievedContext]) -> tuple[str, list[str]]:
    """``text`` with unsupported markers re-pointed or dropped, and markers past the evidence removed."""
    checked, changes = check_citations(text, contexts)
    checked = _MARK.sub(lambda m: m.group(0) if 1 <= int(m.group(1)) <= len(contexts) else "", checked)
    return checked, changes


def cited(text: str) -> bool:
    return bool(_MARK.search(text))


def assemble(outline: Outline, sections: list[Section], gap_lines: list[str], contexts: list[RetrievedContext],
             found: list[PointHits], own: dict[str, list[int]], vocabulary: Vocabulary, *,
             retried: list[str], uncovered: list[str]) -> ResearchReview:
    """The review Markdown with sources renumbered by first appearance, and its coverage."""
    from core.nodes.format_output import renumber_citations
    from core.research.outline import paper_of

    cats = list(dict.fromkeys(p.category for p in outline.knowledge_points))
    lines = [f"# {outline.title}", "", "## Introduction", "",
             f"This review covers {len(outline.knowledge_points)} knowledge points in {len(cats)} theme(s): "
             f"{'; '.join(cats)}. Each point was searched in the knowledge hub on its own, and every claim "
             f"below cites the retrieved passage it comes from.", ""]
    for cat in cats:
        lines += [f"## {cat}", ""]
        for s in sections:
            if s.point.category == cat:
                body = s.text or "_The knowledge base holds no evidence for this point._"
                lines += [f"### {s.point.topic}", "", body, ""]
    lines += ["## Research gaps and future directions", ""]
    lines += [f"- {g}" for g in gap_lines] or ["_The retrieved passages state no limitations or future work._"]
    covered_n = len(outline.knowledge_points) - len(uncovered)
    lines += ["", "## Conclusion", "",
              f"The knowledge base holds cited evidence for {covered_n} of the {len(outline.knowledge_points)} "
              f"points of this outline" + (f"; no evidence was found for: {', '.join(uncovered)}." if uncovered else ".")]
    body, sources, _removed = renumber_citations("\n".join(lines), contexts)
    refs = ["", "## References", ""]
    for src in sources:
        name, year = paper_of(contexts[_index_of(contexts, src.chunk_id)], vocabulary)
        where = f" — {src.breadcrumb}" if src.breadcrumb else ""
        refs.append(f"- [{src.index}] {src.title or name}{f' ({year})' if year else ''}{where}")
    markdown = body.rstrip() + "\n" + ("\n".join(refs) + "\n" if sources else "")
    number = {s.chunk_id: s.index for s in sources}
    by_id = {h.point_id: h for h in found}
    points = []
    for p in outline.knowledge_points:
        hits = by_id.get(p.id)
        section = next((s for s in sections if s.point.id == p.id), None)
        idx = sorted({number[c.chunk_id] for c in (hits.contexts if hits else []) if c.chunk_id in number})
        points.append(PointCoverage(point_id=p.id, topic=p.topic, category=p.category, importance=p.importance,
                                    source_indices=idx, also_under=dict(hits.also_under) if hits else {},
                                    covered=bool(section and cited(section.text))))
    return ResearchReview(title=outline.title, markdown=markdown, sources=sources, points=points,
                          gaps=gap_lines, uncovered=uncovered, retried_points=retried)


def _index_of(contexts: list[RetrievedContext], chunk_id: str) -> int:
    return next(i for i, c in enumerate(contexts) if c.chunk_id == chunk_id)
