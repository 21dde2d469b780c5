"""Arrange selected evidence by strategy: direct answer, comparison table, chain, themed sections.

Every sentence or table cell produced here is a sentence (or clause) of a retrieved chunk with its
``[n]`` marker; the only unmarked text is headings, labels, explicit "no evidence" statements and
the optional "From earlier sessions:" line.
"""

from __future__ import annotations

import re

from core.brains.offline.evidence import Profile, Sentence, attributed, dim_hits, is_document_of, profile, subject
from core.brains.offline.lexicon import entity as lex_entity
from core.brains.offline.lexicon import mention_pattern, mentions
from core.brains.offline.synthesis import cite, cited, clause, key_terms, mmr, relevance
from core.brains.offline.text import numbers_with_units, term_set
from core.types import RetrievedContext

MISSING_CELL = "not found in the knowledge base"
_CONTRAST = re.compile(r"\b(unlike|instead|whereas|compared (to|with)|simpler|rather than|without|however|but|than|limitation|drawback|avoid|eliminat|replac)", re.I)


def simple(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> tuple[str, list[str]]:
    """Direct answer first (the best sentence), then up to three supporting sentences.

    A sentence from the paper the question names (by its file or title) counts for more than one
    from a paper that merely mentions it.
    """
    own = {s.ctx for s in pool if any(is_document_of(contexts[s.ctx], e) for e in prof.entities)}
    chosen = mmr(pool, lambda s: relevance(s, prof) + (1.5 if s.ctx in own else 0.0), 4, min_ratio=0.35)
    if not chosen:
        return "", []
    lines = [cited(chosen[0])]
    if len(chosen) > 1:
        lines.append(" ".join(cited(s) for s in chosen[1:]))
    return "\n\n".join(lines), [s.text for s in chosen]


def comparative(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> tuple[str, list[str]]:
    """An entity × dimension table of cited clauses, then a short cited prose comparison."""
    ents = prof.entities or sorted({c.entity for c in contexts if c.entity})
    dims = prof.dimensions or ["overview"]
    used: list[str] = []
    header = "| | " + " | ".join(d.capitalize() for d in dims) + " |"
    rows = [header, "|---" * (len(dims) + 1) + "|"]
    gaps: list[str] = []
    for e in ents:
        cells = []
        for d in dims:
            best = _best_cell(pool, prof, contexts, e, d, ents)
            if best is None:
                cells.append(MISSING_CELL)
                gaps.append(f"{e} {d}" if d != "overview" else e)
                continue
            used.append(best.text)
            cells.append(cite(clause(best.text, None if d == "overview" else d, e), best.cited).replace("|", "\\|"))
        rows.append(f"| **{e}** | " + " | ".join(cells) + " |")
    prose = _comparison_prose(pool, prof, ents, used)
    parts = ["\n".join(rows)]
    if prose:
        parts.append("**Comparison.** " + " ".join(cited(s) for s in prose))
        used += [s.text for s in prose]
    if gaps:
        parts.append("The knowledge base holds no evidence on: " + "; ".join(gaps) + ".")
    return "\n\n".join(parts), used


def _best_cell(pool, prof, contexts, name, dim, ents) -> Sentence | None:
    """The sentence that best states ``name``'s ``dim``; never one whose subject is a rival entity.

    When ``name``'s own paper was retrieved, its row quotes only that paper: another paper's remark
    about it ("X builds on NAME …") belongs to that other paper's row."""
    best, best_val = None, 0.0
    ent_terms = {t for e in ents for t in term_set(e)}
    key = set(prof.key_terms) - ent_terms  # what is asked about them; none: "what are X and Y?"
    home = {i for i, c in enumerate(contexts) if is_document_of(c, name)}
    for s in pool:
        if (home and s.ctx not in home) or not attributed(s, name, contexts):
            continue
        subj = subject(s)
        if subj is not None and subj != name and subj in ents:
            continue
        hits = 1 if dim == "overview" else dim_hits(s.text, dim)
        if not hits:
            continue
        rivals = sum(1 for o in ents if o != name and mentions(s.text, o))
        own = 2.0 if subj == name else (1.0 if mentions(s.text, name) else 0.0)
        val = len(key & s.terms) + 1.5 * min(hits, 4) + own - 0.8 * rivals + 0.3 / (1 + s.pos) - 0.03 * max(0, len(s.terms) - 25)
        if dim != "overview" and numbers_with_units(s.text):
            val += 1.0  # a measured value says more than a qualitative remark
        if prof.numeric:
            val += 2.0 if re.search(r"\d", s.text) else 0.0  # a cell without a number does not answer
        elif dim == "overview" and not key and re.search(r"\b(is|are) (a|an)\b|\bintroduc|\bpropos", s.text):
            val += 1.5
        if best is None or val > best_val:
            best, best_val = s, val
    return best


def _comparison_prose(pool, prof, ents, used) -> list[Sentence]:
    multi = [s for s in pool if sum(1 for e in ents if mentions(s.text, e)) >= 2 and s.text not in used]
    score = lambda s: relevance(s, prof) + (1.0 if _CONTRAST.search(s.text) else 0.0)  # noqa: E731
    chosen = mmr(multi, score, 2)
    if not chosen:  # no sentence names both: one on each side, not two on one
        rest = [s for s in pool if s.text not in used]
        for e in ents[:2]:
            chosen += mmr([s for s in rest if e in s.about and s not in chosen], lambda s: relevance(s, prof), 1)
    return chosen


def multi_hop(pool: list[Sentence], prof: Profile, sub_questions: list[str]) -> tuple[str, list[str]]:
    """One numbered step per sub-question with its cited sentence(s), then a cited conclusion."""
    lines: list[str] = []
    picked: list[Sentence] = []
    steps = sub_questions or [prof.question]
    # each later step's best sentence is kept for it, so an earlier step quotes another where one exists
    best_of = [_step_best(pool, sq) for sq in steps]
    for i, sq in enumerate(steps, start=1):
        sp = profile(sq)
        focus = key_terms(sq)
        def score(s: Sentence, sp=sp, focus=focus, picked=picked) -> float:
            base = relevance(s, sp, focus) + 0.25 * relevance(s, prof)
            return base - (3.0 if any(s is p for p in picked) else 0.0)
        later = [b for b in best_of[i:] if b is not None]
        chosen = mmr(pool, score, 2, min_ratio=0.75, exclude=picked + later)
        chosen = [s for s in chosen if len(focus & s.terms) >= min(2, len(focus))] or mmr(
            pool, score, 2, min_ratio=0.75, exclude=picked)
        chosen = [s for s in chosen if len(focus & s.terms) >= min(2, len(focus)) and all(s is not p for p in picked)]
        if not chosen:  # a weaker sentence of its own, else reuse earlier evidence rather than claim a gap
            fits = [s for s in pool if len(focus & s.terms) >= min(2, len(focus))]
            fresh = [s for s in fits if all(s is not p for p in picked)]
            chosen = mmr(fresh or fits, lambda s, sp=sp, focus=focus: relevance(s, sp, focus), 1)
        label = f"{i}. **{sq.strip()}**"
        if chosen:
            picked += chosen
            lines.append(f"{label} " + " ".join(cited(s) for s in chosen))
        else:
            lines.append(f"{label} The knowledge base holds no evidence for this step.")
    # The conclusion answers what the last step asks (the question's own last clause), in context.
    last = (sub_questions or [prof.question])[-1]
    lp, lfocus = profile(last), key_terms(last)
    concl = mmr(pool, lambda s: relevance(s, lp, lfocus) + 0.5 * relevance(s, prof), 1)
    if concl:
        lines.append("")
        lines.append(f"**Conclusion:** {cited(concl[0])}")
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
    for theme in themes:
        members = [s for s in pool if _theme_of(s, themes, contexts) == theme and s not in contrast]
        if not members and theme in [short_title(c.title) for c in contexts]:
            members = [s for s in pool if short_title(contexts[s.ctx].title) == theme]
        picks = mmr(members, lambda s: relevance(s, prof) + 0.5, 3, min_ratio=0.3, exclude=used)
        if picks:
            used += picks
            sections.append(f"### {theme}\n" + "\n".join(f"- {cited(s)}" for s in picks))
    picks = mmr([s for s in contrast if s not in used], lambda s: relevance(s, prof) + 1.0, 3, exclude=used)
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
