"""Which paper each side of a comparison is about.

A side named by a title or a file name has its paper by name (:func:`is_document_of`); one written as
an author citation ("Smith et al. (2020)", see :func:`core.brains.offline.slots.author_citation`) has
the paper whose byline (the authors and year the hub returns with each chunk) carries those surnames
(:func:`by_byline`). A side named by a description — "the … paper" — has none; its paper is then the document
its own retrieval mostly came from, when that is clear. The comparative strategy scopes the side's
search to that paper, and the brain reads the same answer from the chunks' ``entity`` tags, so a
side's cells quote its own paper rather than whichever paper shares the asked words."""

from __future__ import annotations

import re

from core.brains.offline.evidence import Profile, Sentence, in_abstract, is_document_of, names, surname
from core.brains.offline.lexicon import mentions
from core.brains.offline.slots import author_citation
from core.hub.refmatch import norm_title
from core.types import RetrievedContext
from core.vocabulary import Vocabulary

# A sentence in the first person is its own paper speaking of its own work, whatever else it names.
FIRST_PERSON = re.compile(r"\b(?:[Ww]e|[Oo]ur|us)\b")  # not "US firms"
# a sentence that opens by turning from the one before it ("Instead, we …", "To this end, we …"): read alone,
# it answers nothing
_ANSWERS_BEFORE = re.compile(r"^(?:Instead|However|Rather|In contrast|To this end|To (?:address|solve|overcome) "
                             r"(?:this|these|that|them))\b")
# a paper that speaks of itself: "This paper describes …", "In this work …"
_SELF = re.compile(r"\b(?:[Tt]his|[Oo]ur|[Tt]he present) (?:paper|work|article|study)\b")
GIST_SENTENCES, GIST_CHARS = 4, 900  # at most this much of an abstract answers a question about its paper

SIDE_SHARE = 0.5  # a described side's paper holds its top chunk and at least this share of its retrieval


def _surname(author: str) -> str:
    """An author's surname as a byline writes it, folded as titles are matched: "Müller, Jane" and
    "Jane Muller" both give "muller"."""
    return norm_title(surname(author))


def by_byline(ctx: RetrievedContext, name: str) -> bool:
    """Whether ``name`` is an author citation of the chunk's paper: its first surname is the paper's
    first author's, any second surname is among the paper's authors, and its year (when given and
    the paper has one) is the paper's."""
    cited = author_citation(name)
    if cited is None or ctx.meta is None or not ctx.meta.authors:
        return False
    (first, *rest), year = cited
    byline = [_surname(a) for a in ctx.meta.authors]
    return (byline[0] == _surname(first) and all(_surname(r) in byline[1:] for r in rest)
            and (year is None or ctx.meta.year is None or ctx.meta.year == year))


def is_paper_of(ctx: RetrievedContext, name: str, vocab: Vocabulary) -> bool:
    """Whether the chunk comes from the paper ``name`` names: by its title or file, or by its byline."""
    return is_document_of(ctx, name, vocab) or by_byline(ctx, name)


def side_paper(found: list[RetrievedContext], name: str, vocab: Vocabulary,
               taken: set[str] | frozenset[str] = frozenset()) -> str | None:
    """The doc_id one side's retrieval (``found``, best first) mostly came from: the document of its
    top chunk when that document holds at least two and at least half of the chunks, one of its
    chunks names ``name`` (a description names a word of its paper's text), and it is not another
    side's paper (``taken``); else None."""
    docs = [c.doc_id for c in found if c.doc_id]
    if not docs or docs[0] in taken:
        return None
    top, n = docs[0], docs.count(docs[0])
    if n < 2 or n < SIDE_SHARE * len(docs):
        return None
    return top if any(c.doc_id == top and names(c, name, vocab) for c in found) else None


# a question that calls a name a paper ("the ReVerb paper", "ReVerb 这篇论文"): its paper may be one its file
# and title do not name
_CALLED_PAPER = re.compile(r"\bpaper\b|论文|文章", re.I)


def gist_paper(contexts: list[RetrievedContext], prof: Profile) -> str | None:
    """The doc_id of the paper a question about one paper as a whole (``Profile.whole_paper``) asks
    about, among ``contexts``: the document the name's file, title or byline names; else, when the
    question calls the name a paper ("the ReVerb paper"), the one the chunks mostly came from, if it
    names it (:func:`side_paper`). A question that names none ("this paper", in a turn scoped to one
    document) is about the one document every chunk comes from. None otherwise: a method that only
    other papers discuss has no paper of its own here."""
    if not prof.whole_paper:
        return None
    if not prof.entities:
        docs = {c.doc_id for c in contexts}
        return next(iter(docs)) if len(docs) == 1 and all(docs) else None
    name = prof.entities[0]
    own = next((c.doc_id for c in contexts if c.doc_id and is_paper_of(c, name, prof.vocab)), None)
    if own is None and _CALLED_PAPER.search(prof.question):
        own = side_paper(contexts, name, prof.vocab)
    return own


def side_papers(contexts: list[RetrievedContext], names: list[str], vocab: Vocabulary) -> dict[str, str]:
    """Each compared name's own paper: the document its file, title or byline names, else the one its own
    retrieval (the chunks whose ``entity`` is the name) mostly came from. Names with neither are
    left out; no two names share a paper, and a named paper is never taken by a described side."""
    out: dict[str, str] = {}
    for name in names:
        own = next((c.doc_id for c in contexts if c.doc_id and is_paper_of(c, name, vocab)), None)
        if own is not None and own not in out.values():
            out[name] = own
    for name in names:
        if name not in out:
            doc = side_paper([c for c in contexts if c.entity == name], name, vocab, frozenset(out.values()))
            if doc is not None:
                out[name] = doc
    return out


def abstract_of(pool: list[Sentence], contexts: list[RetrievedContext], paper: str | None) -> list[Sentence]:
    """The sentences of ``paper``'s abstract among ``pool``, in the abstract's order ([] when none was retrieved)."""
    out = [s for s in pool if paper and contexts[s.ctx].doc_id == paper and in_abstract(contexts[s.ctx])]
    return sorted(out, key=lambda s: (contexts[s.ctx].chunk_index or 0, s.pos))


def own_work(abstract: list[Sentence], names_: list[str], vocab: Vocabulary, *, late: bool = False) -> list[Sentence]:
    """``abstract`` from where the paper speaks of its own work (the first sentence in the first person or
    that names one of ``names_``), past the problem it sets out; from the sentence before when that one
    turns from it ("Instead, we propose …" answers the sentence before). The whole abstract when that
    start leaves fewer than two sentences (never down to the abstract's last words: "We release our code.")
    or, unless ``late``, is in its second half. ``late`` is a comparison's cell, which quotes two sentences
    of it: the first in which the paper speaks of its work says what it is wherever it stands, and "This
    paper presents …" is the paper speaking too (a gist question's "how it works" starts at its method)."""
    own = next((i for i, s in enumerate(abstract) if FIRST_PERSON.search(s.text) or (late and _SELF.search(s.text))
                or any(mentions(s.text, e, vocab) for e in names_)), 0)
    if own and _ANSWERS_BEFORE.match(abstract[own].text):
        own -= 1
    return abstract[own:] if (late or own <= len(abstract) // 2) and len(abstract) - own >= 2 else abstract


def gist(sentences: list[Sentence], most: int = GIST_SENTENCES) -> list[Sentence]:
    """The first of an abstract's ``sentences`` (in order): up to ``most`` of them within
    :data:`GIST_CHARS` characters, and always the first."""
    out: list[Sentence] = []
    for s in sentences[:most]:
        if out and sum(len(x.text) for x in out) + len(s.text) > GIST_CHARS:
            break
        out.append(s)
    return out
