"""The comparison table: an entity × dimension grid of cited clauses, then a short cited prose comparison.

Each row is a compared paper; each cell quotes its own paper's sentences, ranked by the side scorer
over a shortlist the sentence scorer picks (one MiniLM batch per comparison). Split from :mod:`core.brains.offline.compose`, which arranges the
other strategies' answers.
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.brains.offline import scorer
from core.brains.offline.evidence import (Profile, Sentence, attributed, dim_hits, is_document_of, names, overview_zh,
                                          subject)
from core.brains.offline.lexicon import mention_pattern, mentions
from core.brains.offline.sides import FIRST_PERSON, abstract_of, by_byline, gist, own_work, side_papers
from core.brains.offline.synthesis import cite, clause, follows, mmr, quoted, relevance
from core.brains.offline.text import has_cjk, term_set
from core.types import RetrievedContext
from core.vocabulary import Vocabulary

MISSING_CELL = "not found in the knowledge base"
CELL_SENTENCES = 2
CELL_MIN_RATIO = 0.0
# Candidates per cell that reach the cosine scorer: those the sentence scorer (no cosine) ranks first.
# None: every candidate. See :func:`_shortlist` for how the number was chosen.
CELL_SHORTLIST: int | None = 4

_CONTRAST = re.compile(r"\b(unlike|instead|whereas|compared (to|with)|simpler|rather than|without|however|but|than|limitation|drawback|avoid|eliminat|replac)", re.I)


def comparative(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> tuple[str, list[str]]:
    """An entity × dimension table of cited clauses, then a short cited prose comparison.

    The rows are the compared papers: when two or more of the named entities have their own paper
    among the contexts, a name without one (a benchmark or a tool they both mention) gets no row.
    A name's paper is the one its title or file names, else the one its side's retrieval came from
    (:func:`core.brains.offline.sides.side_papers`). A comparison that asks nothing of its sides but
    what they are (:func:`asks_overview`) fills its rows with each paper's gist when every row's paper
    abstract was retrieved (:func:`overview_gists`)."""
    ents, papers = _sides(prof, contexts)
    dims = prof.dimensions or ["overview"]
    used: list[str] = []
    # a column says what its cells answer: a publication-only comparison's single column is each paper's
    # publication (its metadata's sentence), not an overview of it
    header = "| | " + " | ".join("Publication" if d == "overview" and prof.publication_only else d.capitalize()
                                 for d in dims) + " |"
    rows = [header, "|---" * (len(dims) + 1) + "|"]
    gaps: list[str] = []
    scorer.prime([prof.question, *(s.text for s in pool)])
    _prime_cells(pool, prof, contexts, ents, dims, papers)
    chosen: dict[tuple[str, str], list[Sentence]] = {}
    gists = overview_gists(pool, prof, contexts, ents, papers)
    for e in ents:
        row: list[Sentence] = []
        for d in dims:
            chosen[e, d] = gists.get(e) or _cell(pool, prof, contexts, e, d, ents, row, papers.get(e))
            row += chosen[e, d]
    for e in ents:
        cells = []
        for d in dims:
            picks = chosen[e, d] or _shared(chosen, e, d, ents, prof.vocab)
            if not picks:
                cells.append(MISSING_CELL)
                gaps.append(f"{e} {d}" if d != "overview" else e)
                continue
            used += [s.text for s in picks if s.text not in used]
            # a paper's own description of itself is quoted whole; another cell, by the clause that speaks to it
            cells.append(cell_text([cite(s.text if e in gists else clause(s.text, None if d == "overview" else d, e,
                                                                            prof.vocab, max_words=200), s.cited,
                                         alone=not follows(s, before))
                                    for before, s in zip([None, *picks], picks)]))
        rows.append(f"| **{e}** | " + " | ".join(cells) + " |")
    prose, compares = _comparison_prose(pool, prof, ents, used)
    if not compares and gists and all(e in gists for e in ents):
        prose = []  # each row says what its paper is: one more sentence of each compares nothing and adds little
    if prof.publication_only and all(s.published for picks in chosen.values() for s in picks):
        prose = []  # only where and when each appeared, and its metadata says so: any sentence more is padding
    parts = ["\n".join(rows)]
    if prose:  # a paragraph of each side's own sentences compares nothing, and is not called a comparison
        parts.append(("**Comparison.** " if compares else "**More on each.** ") + quoted(prose))
        used += [s.text for s in prose]
    if gaps:
        parts.append("The knowledge base holds no evidence on: " + "; ".join(gaps) + ".")
    return "\n\n".join(parts), used



def _sides(prof: Profile, contexts: list[RetrievedContext]) -> tuple[list[str], dict[str, str]]:
    """The compared names that get a row, and each one's own paper (see :func:`comparative`)."""
    ents = prof.entities or sorted({c.entity for c in contexts if c.entity})
    papers = side_papers(contexts, ents, prof.vocab)
    return ([e for e in ents if e in papers] if len(papers) >= 2 else ents), papers


# A comparison that asks for a judgment ("Which is better, A or B?", "Should I use A or B?"): its frame
# words ("better") are dropped from its key terms, yet it asks more than what the two are
_JUDGMENT = re.compile(r"\b(?:better|worse|best|worst|prefer\w*|should|recommend\w*|choose|pick|which one)\b", re.I)
# a name set after a preposition is where or on what the others are compared ("A and B on FormBench"; not
# "with", as in "Compare A with B")
_SETTING = r"\b(?:on|in|at|over|across|for|using|under)\s+(?:the\s+)?"


def _set_after_preposition(question: str, name: str, vocab: Vocabulary) -> bool:
    """Whether ``question`` names ``name`` after a preposition (:data:`_SETTING`)."""
    pat = mention_pattern(name, vocab)
    return re.search(f"{_SETTING}(?:{pat.pattern})", question, pat.flags) is not None


def asks_overview(prof: Profile, ents: list[str] | None = None) -> bool:
    """Whether a comparison asks nothing of its sides but what they are ("Compare A and B.", "How do A
    and B differ?"): no dimension, and no key term beyond the compared names' own (``ents``, default
    the profile's entities); a Chinese one by its form ("A 和 B 有什么区别？", :func:`evidence.overview_zh`)."""
    ents = prof.entities if ents is None else ents
    if prof.dimensions:
        return False
    if has_cjk(prof.question):  # its key terms are character pairs, the frame's among them: read its form
        return overview_zh(prof.question, ents, prof.vocab)
    if _JUDGMENT.search(prof.question) or any(_set_after_preposition(prof.question, e, prof.vocab) for e in ents):
        return False
    ent_terms = {t for e in ents for t in term_set(e)}
    return not set(prof.key_terms) - ent_terms


def overview_gists(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext], ents: list[str],
                   papers: dict[str, str]) -> dict[str, list[Sentence]]:
    """For a comparison that asks what its sides are (:func:`asks_overview`): each side's cell from its own
    paper's abstract, where the paper speaks of its own work (:func:`core.brains.offline.sides.own_work`),
    :data:`CELL_SENTENCES` at most; {} unless every side's abstract was retrieved (rows of two kinds would be
    judged as neither). A side no retrieved chunk names is "not found" whatever its row would be, so it
    asks for no abstract: the others still say what they are. Scored, an overview cell is the sentences
    that repeat the name: its results ("X outperforms Y at all levels of recall"), not what it is."""
    if not asks_overview(prof, ents):
        return {}
    named = [e for e in ents if any(names(c, e, prof.vocab) for c in contexts)]
    abstracts = {e: abstract_of(pool, contexts, papers.get(e)) for e in named}
    if len(ents) < 2 or not named or not all(abstracts.values()):
        return {}
    return {e: gist(own_work(a, [e], prof.vocab, late=True), CELL_SENTENCES) for e, a in abstracts.items()}


def by_abstracts(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> bool:
    """Whether a comparison's rows are its papers' gists (:func:`overview_gists`)."""
    ents, papers = _sides(prof, contexts)
    return bool(overview_gists(pool, prof, contexts, ents, papers))


def cell_text(pieces: list[str]) -> str:
    """A table cell of cited clauses: one reads as a cell (no closing stop); two or more each end
    with a stop, so they read (and the critic reads them) as the separate sentences they are."""
    if len(pieces) > 1:
        pieces = [p if p.endswith((".", "!", "?")) else p + "." for p in pieces]
    return " ".join(pieces).replace("|", "\\|")


def _shared(chosen: dict[tuple[str, str], list[Sentence]], name: str, dim: str, ents: list[str],
            vocab: Vocabulary) -> list[Sentence]:
    """For a cell of ``name`` with no sentence of its own: a sentence another row quotes for the same
    column that names ``name`` too ("A reaches a 1.9x speed-up over B"). A sentence that compares the two
    is evidence on both sides, so B's cell quotes it rather than saying the knowledge base has nothing."""
    return [s for e in ents if e != name for s in chosen[e, dim] if mentions(s.text, name, vocab)][:1]

def _candidates(pool, prof, contexts, name, dim, ents, taken=(), paper=None) -> tuple:
    """What one cell ranks — (sentences, cell profile, focus terms, side question, home contexts):
    the sentences about ``name`` that speak to ``dim`` (at most :data:`CELL_SHORTLIST`, :func:`_shortlist`);
    never one whose subject is a rival
    entity (unless it is a first-person sentence of ``name``'s own paper: "our vision transformer
    ..." in a paper that builds on one is that paper's own), nor one already in the row (``taken``).

    When ``name``'s own paper was retrieved, its row quotes only that paper: another paper's remark
    about it ("X builds on NAME …") belongs to that other paper's row. ``paper`` is that paper's
    doc_id when it was found by the side's retrieval or byline rather than by name; a sentence of it
    that names no other entity (any sentence of it, for a byline) is about ``name``."""
    ent_terms = {t for e in ents for t in term_set(e)}
    key = set(prof.key_terms) - ent_terms  # what is asked about them; none: "what are X and Y?"
    # an overview cell asks what the thing is; a dimension's cell asks for that dimension of it
    overview = dim == "overview" and asks_overview(prof, ents)
    # the cell's own name stays among its terms (as in a question about one paper); its rivals' go
    key |= set(prof.key_terms) & (term_set(name) - {t for e in ents if e != name for t in term_set(e)})
    cell = replace(prof, entities=[name], definitional=prof.definitional or overview,
                   question=f"What is {name}?" if overview else prof.question if dim == "overview" else f"{dim} of {name}")
    others = [d for d in prof.dimensions if d != dim]
    # a column's cell is asked about its own dimension, not the row's other columns
    focus = (key - {t for d in others for t in term_set(d)}) | (set() if dim == "overview" else term_set(dim))
    home = {i for i, c in enumerate(contexts) if is_document_of(c, name, prof.vocab) or (paper and c.doc_id == paper)}
    # a side cited by its authors names a paper, not a method: every sentence of that paper is its own
    byline = any(by_byline(contexts[i], name) for i in home)
    rivals = [e for e in ents if e != name]
    fits = [s for s in pool if (not home or s.ctx in home)
            and (attributed(s, name, contexts, prof.vocab)
                 or (paper is not None and s.ctx in home and (byline or not _names_any(s, rivals, prof.vocab))))
            and not ((subj := subject(s, prof.vocab)) is not None and subj != name and subj in ents
                     and not (s.ctx in home and FIRST_PERSON.search(s.text)))
            and (dim == "overview" or dim_hits(s.text, dim)) and s not in taken]
    if dim != "overview" and others:  # a sentence mostly about another column belongs in that column
        fits = [s for s in fits if dim_hits(s.text, dim) >= max(dim_hits(s.text, d) for d in others)] or fits
    if prof.numeric:  # a question that asks for figures is answered, in each row, by a sentence that states one
        fits = [s for s in fits if re.search(r"\d", s.text)] or fits
    # only where or when each paper was published: its row quotes what its metadata says; a question
    # that asks more, or a column of another dimension, never does (a title's word may hit that dimension)
    pub = prof.publication_only and dim == "overview"
    fits = ([s for s in fits if s.published][:1] or fits) if pub else [s for s in fits if not s.published]
    asked = cell.question if overview or len(prof.dimensions) > 1 else side_question(prof.question, name, ents, prof.vocab)
    return _shortlist(fits, cell, focus, asked, home), cell, focus, asked, home


def _names_any(sent: Sentence, names: list[str], vocab: Vocabulary) -> bool:
    """Whether ``sent`` names any of ``names`` (a side's rivals). A sentence of a side's own paper that
    names only that paper's own parts ("the C2B distance", "the POS pattern") is still the side's."""
    return any(n in sent.about or mentions(sent.text, n, vocab) for n in names)


def _shortlist(fits, cell, focus, asked, home) -> list[Sentence]:
    """A cascade: the :data:`CELL_SHORTLIST` candidates the sentence scorer ranks first (its features
    without the MiniLM cosine, so nothing is embedded), in pool order; only these are embedded and
    ranked by the cell scorer. The encoder is most of a new comparison's cost, and a cell quotes
    :data:`CELL_SENTENCES`. On the generated held-out groups (``training/data``), the shortlist of
    four keeps the cell scorer's own first choice in nearly every group (see the README)."""
    if CELL_SHORTLIST is None or len(fits) <= CELL_SHORTLIST:
        return fits
    lexical = scorer.model()
    ranked = sorted(range(len(fits)), key=lambda i: -relevance(fits[i], cell, focus or None, own=fits[i].ctx in home,
                                                               question=asked, weights=lexical))
    return [fits[i] for i in sorted(ranked[:CELL_SHORTLIST])]


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


def side_question(question: str, name: str, ents: list[str], vocab: Vocabulary) -> str:
    """One side of a comparison: the question with the other compared names taken out ("How do A
    and B differ in X?" reads "How do and B differ in X?" for B), so the similarity of a sentence
    of B's paper is to what is asked of B, not to A's name."""
    for e in ents:
        if e != name:
            question = mention_pattern(e, vocab).sub("", question)
    return " ".join(question.split())


def _comparison_prose(pool, prof, ents, used) -> tuple[list[Sentence], bool]:
    """Up to two sentences that name two or more of the entities (those that contrast them, when
    any do, first), ranked by the scorer, and True; else one more sentence on each of the first two
    sides, and False (they compare nothing, but a side's answer is often there)."""
    multi = [s for s in pool if sum(1 for e in ents if mentions(s.text, e, prof.vocab)) >= 2 and s.text not in used]
    contrast = [s for s in multi if _CONTRAST.search(s.text)]
    chosen = mmr(contrast, lambda s: relevance(s, prof), 2)
    if len(chosen) < 2:
        rest = [s for s in multi if s not in contrast]
        chosen += mmr(rest, lambda s: relevance(s, prof), 2 - len(chosen), exclude=chosen)
    if chosen:
        return chosen, True
    rest = [s for s in pool if s.text not in used]  # no sentence names both: one on each side, not two on one
    for e in ents[:2]:
        chosen += mmr([s for s in rest if e in s.about and s not in chosen], lambda s: relevance(s, prof), 1)
    return chosen, False
