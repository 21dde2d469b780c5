"""Arrange selected evidence by strategy: direct answer, comparison table, chain, themed sections.

Every sentence or table cell produced here is a sentence (or clause) of a retrieved chunk with its
``[n]`` marker; the only unmarked text is headings, labels, explicit "no evidence" statements and
the optional "From earlier sessions:" line.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.brains.offline import scorer
from core.brains.offline.evidence import Profile, Sentence, attributed, dim_hits, is_document_of, profile, subject
from core.brains.offline.lexicon import entity as lex_entity
from core.brains.offline.sides import by_byline, side_papers
from core.brains.offline.lexicon import mention_pattern, mentions
from core.brains.offline.synthesis import LEAD_MAX, cite, cited, clause, key_terms, lead_size, mmr, relevance
from core.brains.offline.text import term_set
from core.types import RetrievedContext

MISSING_CELL = "not found in the knowledge base"
CELL_SENTENCES = 2
CELL_MIN_RATIO = 0.0
# A sentence in the first person is its own paper speaking of its own work, whatever else it names.
_FIRST_PERSON = re.compile(r"\b(we|our|us)\b", re.I)
_CONTRAST = re.compile(r"\b(unlike|instead|whereas|compared (to|with)|simpler|rather than|without|however|but|than|limitation|drawback|avoid|eliminat|replac)", re.I)


def simple(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> tuple[str, list[str]]:
    """Direct answer first (the best sentence, and the next ones the scorer rates nearly as high,
    :func:`~core.brains.offline.synthesis.lead_size`; for a question asking for a number, opening
    with the best that states one), then the other supporting sentences (four in all).

    Whether a sentence comes from the paper the question names (by its file or title) is one of
    the scorer's features.
    """
    own = {s.ctx for s in pool if any(is_document_of(contexts[s.ctx], e) for e in prof.entities)}
    scorer.prime([prof.question, *(s.text for s in pool)])

    def score(s: Sentence) -> float:
        return relevance(s, prof, own=s.ctx in own)

    chosen = mmr(pool, score, 4, min_ratio=0.35, group=lambda s: table_of(s, contexts), per_group=2)
    if not chosen:
        return "", []
    if prof.numeric and not scorer.stated_values(chosen[0].text):
        # a question that asks for a number opens with a chosen sentence that states one (as a
        # comparison's cells do), not with a caption or a table row that only names the measure
        lead = next((s for s in chosen[1:] if scorer.stated_values(s.text)), None)
        chosen = [lead, *(s for s in chosen if s is not lead)] if lead is not None else chosen
    n = lead_size(chosen, score, lambda s: paper_of(contexts[s.ctx]))
    lines = [" ".join(cited(s) for s in chosen[:n])]
    if len(chosen) > n:
        lines.append(" ".join(cited(s) for s in chosen[n:]))
    return "\n\n".join(lines), [s.text for s in chosen]


def paper_of(ctx: RetrievedContext) -> str:
    """The paper a chunk belongs to: its document id, else its source, else the chunk itself."""
    return ctx.doc_id or ctx.source or ctx.chunk_id


_ROW_OF = re.compile(r"^In (Table\s*[\dIVX]+[a-z]?|the table on p\. \d+)\b")


def table_of(sent: Sentence, contexts: list[RetrievedContext]) -> str | None:
    """The table a row sentence belongs to (its paper and label), None for any other sentence.
    The rows of one table are alternatives to each other: a direct answer quotes at most two, so the
    rows of a table whose caption shares the question's words do not crowd out every other sentence."""
    m = _ROW_OF.match(sent.text)
    return f"{contexts[sent.ctx].doc_id or contexts[sent.ctx].source}|{m.group(1)}" if m else None


def comparative(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> tuple[str, list[str]]:
    """An entity × dimension table of cited clauses, then a short cited prose comparison.

    The rows are the compared papers: when two or more of the named entities have their own paper
    among the contexts, a name without one (a benchmark or a tool they both mention) gets no row.
    A name's paper is the one its title or file names, else the one its side's retrieval came from
    (:func:`core.brains.offline.sides.side_papers`)."""
    ents = prof.entities or sorted({c.entity for c in contexts if c.entity})
    papers = side_papers(contexts, ents)
    ents = [e for e in ents if e in papers] if len(papers) >= 2 else ents
    dims = prof.dimensions or ["overview"]
    used: list[str] = []
    header = "| | " + " | ".join(d.capitalize() for d in dims) + " |"
    rows = [header, "|---" * (len(dims) + 1) + "|"]
    gaps: list[str] = []
    scorer.prime([prof.question, *(s.text for s in pool)])
    _prime_cells(pool, prof, contexts, ents, dims, papers)
    for e in ents:
        cells = []
        row: list[Sentence] = []
        for d in dims:
            picks = _cell(pool, prof, contexts, e, d, ents, row, papers.get(e))
            if not picks:
                cells.append(MISSING_CELL)
                gaps.append(f"{e} {d}" if d != "overview" else e)
                continue
            used += [s.text for s in picks]
            row += picks
            cells.append(" ".join(cite(clause(s.text, None if d == "overview" else d, e, max_words=200), s.cited)
                                  for s in picks).replace("|", "\\|"))
        rows.append(f"| **{e}** | " + " | ".join(cells) + " |")
    prose = _comparison_prose(pool, prof, ents, used)
    parts = ["\n".join(rows)]
    if prose:
        parts.append("**Comparison.** " + " ".join(cited(s) for s in prose))
        used += [s.text for s in prose]
    if gaps:
        parts.append("The knowledge base holds no evidence on: " + "; ".join(gaps) + ".")
    return "\n\n".join(parts), used


def _candidates(pool, prof, contexts, name, dim, ents, taken=(), paper=None) -> tuple:
    """What one cell ranks — (sentences, cell profile, focus terms, side question, home contexts):
    the sentences about ``name`` that speak to ``dim``; never one whose subject is a rival
    entity (unless it is a first-person sentence of ``name``'s own paper: "our vision transformer
    ..." in a paper that builds on one is that paper's own), nor one already in the row (``taken``).

    When ``name``'s own paper was retrieved, its row quotes only that paper: another paper's remark
    about it ("X builds on NAME …") belongs to that other paper's row. ``paper`` is that paper's
    doc_id when it was found by the side's retrieval or byline rather than by name; a sentence of it
    that names no other entity (any sentence of it, for a byline) is about ``name``."""
    ent_terms = {t for e in ents for t in term_set(e)}
    key = set(prof.key_terms) - ent_terms  # what is asked about them; none: "what are X and Y?"
    # an overview cell asks what the thing is; a dimension's cell asks for that dimension of it
    overview = dim == "overview" and not key
    # the cell's own name stays among its terms (as in a question about one paper); its rivals' go
    key |= set(prof.key_terms) & (term_set(name) - {t for e in ents if e != name for t in term_set(e)})
    cell = replace(prof, entities=[name], definitional=prof.definitional or overview,
                   question=f"What is {name}?" if overview else prof.question if dim == "overview" else f"{dim} of {name}")
    others = [d for d in prof.dimensions if d != dim]
    # a column's cell is asked about its own dimension, not the row's other columns
    focus = (key - {t for d in others for t in term_set(d)}) | (set() if dim == "overview" else term_set(dim))
    home = {i for i, c in enumerate(contexts) if is_document_of(c, name) or (paper and c.doc_id == paper)}
    # a side cited by its authors names a paper, not a method: every sentence of that paper is its own
    byline = any(by_byline(contexts[i], name) for i in home)
    fits = [s for s in pool if (not home or s.ctx in home)
            and (attributed(s, name, contexts) or (paper is not None and s.ctx in home and (byline or not s.about)))
            and not ((subj := subject(s)) is not None and subj != name and subj in ents
                     and not (s.ctx in home and _FIRST_PERSON.search(s.text)))
            and (dim == "overview" or dim_hits(s.text, dim)) and s not in taken]
    if dim != "overview" and others:  # a sentence mostly about another column belongs in that column
        fits = [s for s in fits if dim_hits(s.text, dim) >= max(dim_hits(s.text, d) for d in others)] or fits
    if prof.numeric:  # a question that asks for figures is answered, in each row, by a sentence that states one
        fits = [s for s in fits if re.search(r"\d", s.text)] or fits
    asked = cell.question if overview or len(prof.dimensions) > 1 else side_question(prof.question, name, ents)
    return fits, cell, focus, asked, home


def _prime_cells(pool, prof, contexts, ents, dims, papers) -> None:
    """One encoder batch per comparison: every side question and candidate sentence its cells rank by
    the MiniLM cosine, gathered as if each row were empty (a row's taken sentences are embedded
    already); a cell with one candidate ranks nothing (:func:`_cell`)."""
    cells = [_candidates(pool, prof, contexts, e, d, ents, (), papers.get(e)) for e in ents for d in dims]
    scorer.prime([t for fits, _, _, asked, _ in cells if len(fits) > 1 for t in (asked, *(s.text for s in fits))],
                 scorer.side_model())


def _cell(pool, prof, contexts, name, dim, ents, taken=(), paper=None) -> list[Sentence]:
    """The sentences the cell scorer ranks first among ``name``'s candidates for ``dim`` (:func:`_candidates`)."""
    fits, cell, focus, asked, home = _candidates(pool, prof, contexts, name, dim, ents, taken, paper)
    if len(fits) <= 1:  # a lone candidate is the cell as mmr would pick it: nothing to rank or embed
        return fits
    side = scorer.side_model()
    scorer.prime([asked, *(s.text for s in fits)], side)  # a no-op unless _prime_cells missed one
    return mmr(fits, lambda s: relevance(s, cell, focus or None, own=s.ctx in home, question=asked, weights=side),
               CELL_SENTENCES, min_ratio=CELL_MIN_RATIO)


def side_question(question: str, name: str, ents: list[str]) -> str:
    """One side of a comparison: the question with the other compared names taken out ("How do A
    and B differ in X?" reads "How do and B differ in X?" for B), so the similarity of a sentence
    of B's paper is to what is asked of B, not to A's name."""
    for e in ents:
        if e != name:
            question = mention_pattern(e).sub("", question)
    return " ".join(question.split())


def _comparison_prose(pool, prof, ents, used) -> list[Sentence]:
    """Up to two sentences that name two or more of the entities (those that contrast them, when
    any do, first), ranked by the scorer; else the two best of the rest."""
    multi = [s for s in pool if sum(1 for e in ents if mentions(s.text, e)) >= 2 and s.text not in used]
    contrast = [s for s in multi if _CONTRAST.search(s.text)]
    chosen = mmr(contrast, lambda s: relevance(s, prof), 2)
    if len(chosen) < 2:
        rest = [s for s in multi if s not in contrast]
        chosen += mmr(rest, lambda s: relevance(s, prof), 2 - len(chosen), exclude=chosen)
    if not chosen:  # no sentence names both: one on each side, not two on one
        rest = [s for s in pool if s.text not in used]
        for e in ents[:2]:
            chosen += mmr([s for s in rest if e in s.about and s not in chosen], lambda s: relevance(s, prof), 1)
    return chosen


def multi_hop(pool: list[Sentence], prof: Profile, sub_questions: list[str]) -> tuple[str, list[str]]:
    """One numbered step per sub-question with its cited sentence(s), then a cited conclusion: the
    sentences that best answer the last step in the question's context, as many as the direct answer
    of a simple question would hold (:func:`~core.brains.offline.synthesis.lead_size`)."""
    lines: list[str] = []
    picked: list[Sentence] = []
    steps = sub_questions or [prof.question]
    scorer.prime([prof.question, *sub_questions, *(s.text for s in pool)])
    # each later step's best sentence is kept for it, so an earlier step quotes another where one exists
    best_of = [_step_best(pool, sq) for sq in steps]
    for i, sq in enumerate(steps, start=1):
        sp = profile(sq)
        focus = key_terms(sq)
        def score(s: Sentence, sp=sp, focus=focus) -> float:
            return relevance(s, sp, focus)
        # a step about a named method reads sentences about it, not about another method that cites it
        own = [s for s in pool if (subj := subject(s)) is None or subj in sp.entities] if sp.entities else pool
        later = [b for b in best_of[i:] if b is not None]
        chosen = mmr(own or pool, score, 2, min_ratio=0.75, exclude=picked + later)
        chosen = [s for s in chosen if len(focus & s.terms) >= min(2, len(focus))] or mmr(
            own or pool, score, 2, min_ratio=0.75, exclude=picked)
        chosen = [s for s in chosen if len(focus & s.terms) >= min(2, len(focus)) and all(s is not p for p in picked)]
        if not chosen:  # a weaker sentence of its own, else reuse earlier evidence rather than claim a gap
            fits = [s for s in pool if len(focus & s.terms) >= min(2, len(focus))]
            fresh = [s for s in fits if all(s is not p for p in picked)]
            chosen = mmr(fresh or fits, score, 1)
        label = f"{i}. **{sq.strip()}**"
        if chosen:
            picked += chosen
            lines.append(f"{label} " + " ".join(cited(s) for s in chosen))
        else:
            lines.append(f"{label} The knowledge base holds no evidence for this step.")
    if not picked:  # no step found evidence: a conclusion would be an unrelated sentence; the brain declines
        return "", []
    # The conclusion answers what the last step asks (the question's own last clause), in context.
    last = (sub_questions or [prof.question])[-1]
    lp, lfocus = profile(last), key_terms(last)

    def concl_score(s: Sentence) -> float:
        return relevance(s, lp, lfocus, question=prof.question)

    concl = mmr(pool, concl_score, LEAD_MAX)
    concl = concl[:lead_size(concl, concl_score, paper=lambda s: "")]  # a chain's conclusion may bridge its papers
    if concl:
        lines.append("")
        lines.append("**Conclusion:** " + " ".join(cited(c) for c in concl))
        picked += [c for c in concl if all(c is not p for p in picked)]
    return "\n".join(lines), [s.text for s in picked]


def _step_best(pool: list[Sentence], step: str) -> Sentence | None:
    """The sentence that best answers one step on its own (None when none carries its words)."""
    focus = key_terms(step)
    sp = profile(step)
    top = mmr([s for s in pool if len(focus & s.terms) >= min(2, len(focus))], lambda s: relevance(s, sp, focus), 1)
    return top[0] if top else None


def exploratory(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> tuple[str, list[str]]:
    """Themed sections (one per stage/method, in chronological order) with cited bullets."""
    themes = _themes(pool, prof, contexts)
    sections: list[str] = []
    used: list[Sentence] = []
    contrast = [s for s in pool if sum(1 for t in themes if mentions(s.text, t)) >= 2 and _CONTRAST.search(s.text)]
    papers = {short_title(c.title) for c in contexts}
    if not set(themes) <= papers:  # themes are methods, not the collection's papers
        pool = [s for s in pool if subject(s) is None or subject(s) in themes]  # drop asides about other methods
    contrast = [s for s in contrast if s in pool]
    scorer.prime([prof.question, *(s.text for s in pool)])
    for theme in themes:
        members = [s for s in pool if _theme_of(s, themes, contexts) == theme and s not in contrast]
        if not members and theme in [short_title(c.title) for c in contexts]:
            members = [s for s in pool if short_title(contexts[s.ctx].title) == theme]
        picks = mmr(members, lambda s: relevance(s, prof), 3, min_ratio=0.3, exclude=used)
        if picks:
            used += picks
            sections.append(f"### {theme}\n" + "\n".join(f"- {cited(s)}" for s in picks))
    picks = mmr([s for s in contrast if s not in used], lambda s: relevance(s, prof), 3, exclude=used)
    if picks:
        used += picks
        sections.append("### How they compare\n" + "\n".join(f"- {cited(s)}" for s in picks))
    if not sections:
        picks = mmr(pool, lambda s: relevance(s, prof), 4)
        used += picks
        sections.append("### Overview\n" + "\n".join(f"- {cited(s)}" for s in picks))
    return "\n\n".join(sections), [s.text for s in used]


def _themes(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> list[str]:
    counts: dict[str, int] = {}
    for s in pool:
        for e in s.about:
            counts[e] = counts.get(e, 0) + 1
    themes = list(prof.entities)
    near = {r for e in prof.entities if lex_entity(e) for r in lex_entity(e).related}
    near |= {x.name for x in (lex_entity(n) for n in counts) if x and set(x.related) & set(prof.entities)}
    for name, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])):
        if name in themes or n < 2:
            continue
        if prof.entities and name not in near:
            continue  # a method merely mentioned alongside is not a stage of this story
        themes.append(name)
    themes = themes[:5]
    if not prof.entities or prof.collection_wide:
        # A question about the collection ("what do these papers do about X"): one theme per paper.
        return list(dict.fromkeys(short_title(contexts[i].title) for i in sorted({s.ctx for s in pool})
                                  if contexts[i].title))[:6] or themes
    year = lambda n: (lex_entity(n).year if lex_entity(n) and lex_entity(n).year else 9999)  # noqa: E731
    return sorted(themes, key=lambda n: (year(n), themes.index(n)))


def short_title(title: str) -> str:
    """A paper's short name: the part of its title before a colon ("Longformer: The Long-…")."""
    head = title.split(":", 1)[0].strip()
    return head if 0 < len(head) <= 40 else title.strip()


def _theme_of(s: Sentence, themes: list[str], contexts: list[RetrievedContext]) -> str | None:
    firsts = []
    for t in themes:
        m = mention_pattern(t).search(s.text)
        if m:
            firsts.append((m.start(), t))
    if firsts:
        return min(firsts)[1]
    for t in themes:
        if attributed(s, t, contexts):
            return t
    return None
