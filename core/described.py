"""Papers a question names by what they are about: "the noisy matrix decomposition paper".

A researcher often names a paper of the library by its topic rather than by a name: "Compare the noisy
matrix decomposition paper and the TrustRank paper". The words of such a description are ordinary
words, so no name shape or vocabulary term catches them, and a comparison of two such papers had fewer
than two sides (it became a factual question, and often "no evidence").

A description is the words between "the" and "paper" (or "article"), possessive or not. It
names the paper whose title holds the most of its content words (stems, function words aside): at
least :data:`MIN_SHARE` of them, and more than any other paper's title holds. The candidates are the
papers a search for the description finds. A description that holds a name the question already
names ("the SMT paper") is that name's, and so is a paper whose title holds such a name. The side then
goes by the paper's short title, which the strategies and the brain match against the paper's title
like any name.
"""

from __future__ import annotations

import math
import re
from typing import Any

from core.errors import BackendUnavailable
from core.text import FRAME_WORDS, STOPWORDS, short_title, term_set

# "the <up to six words> paper": no word of it another "the" (the description starts at the nearest one).
# Not "study": "user study", "case study" and "ablation study" are parts of a paper, not papers.
DESCRIBED = re.compile(r"\bthe\s+((?:(?!the\b)[\w'’-]+\s+){0,5}?(?!the\b)[\w'’-]+)\s+(?:paper|article)(?:['’]s)?\b",
                       re.I)
# Words that point at a paper by its place ("the first paper", "the same paper"), not by its topic.
_POINTING = frozenset("first second third fourth last other same original earlier previous latter former next "
                      "above following present current whole entire cited main new older newer".split())
MIN_SHARE = 0.6  # of a description's content words its paper's title holds
SEARCH_K = 10  # chunks read when looking for the described paper
# A comparison's side described by its kind of system rather than as a paper ("the parallel topic model
# architecture", "the story-element tagger for narrative retellings"): "the" and up to six words, "of" and
# "for" inside, up to a stop word or a mark. It must share at least this many words with its paper's title,
# as well as MIN_SHARE of its own: one shared word ("the model") names no paper.
NOUN_PHRASE_WORDS = 6
MIN_SHARED_WORDS = 2
_PHRASE = re.compile(rf"\bthe\s+(?=((?:[\w’'-]+)(?:\s+[\w’'-]+){{0,{NOUN_PHRASE_WORDS - 1}}}))", re.I)
_INSIDE = frozenset({"of", "for"})


def descriptions(question: str, names: list[str]) -> list[tuple[int, str]]:
    """``(offset, words)`` of each description in ``question`` that holds none of ``names``."""
    out = []
    for m in DESCRIBED.finditer(question):
        words = m.group(1)
        if any(_names(n, words) for n in names) or not _terms(words):
            continue
        out.append((m.start(), words))
    return out


def phrase_descriptions(question: str, names: list[str]) -> list[tuple[int, list[str]]]:
    """``(offset, prefixes)`` of each noun phrase "the …" in ``question`` that is no "the … paper"
    description (:func:`descriptions`) and holds none of ``names``: the phrase's prefixes that end in a
    content word, shortest first ("parallel topic", "parallel topic model", "parallel topic model
    architecture" of "the parallel topic model architecture in how …"); which of them names a paper is
    read against the titles (:func:`phrase_paper`)."""
    strict = [(m.start(), m.end()) for m in DESCRIBED.finditer(question)]
    out = []
    for m in _PHRASE.finditer(question):
        if any(a <= m.start() < b for a, b in strict):
            continue
        kept: list[str] = []
        for w in m.group(1).split():
            low = w.lower()
            bare = re.sub(r"[’']s$", "", w)
            if (low in STOPWORDS and low not in _INSIDE) or low in FRAME_WORDS or not bare:
                break
            kept.append(bare)
            if bare != w:  # a possessive ends the phrase
                break
        prefixes = [" ".join(kept[:i]) for i in range(2, len(kept) + 1) if kept[i - 1].lower() not in _INSIDE]
        if prefixes and not any(_names(n, prefixes[-1]) for n in names):
            out.append((m.start(), prefixes))
    return out


def phrase_paper(prefixes: list[str], titles: list[str]) -> str | None:
    """The title one of ``prefixes`` (:func:`phrase_descriptions`) names: the prefix sharing the most
    words with a title (the shortest of equals), as :func:`paper_for` reads it, with at least
    :data:`MIN_SHARED_WORDS` shared; None when none does."""
    best: tuple[int, str] | None = None
    for words in prefixes:
        title = paper_for(words, titles)
        shared = len(_terms(words) & _terms(title)) if title else 0
        if title and shared >= MIN_SHARED_WORDS and (best is None or shared > best[0]):
            best = (shared, title)
    return best[1] if best else None


def _names(name: str, text: str) -> bool:
    """Whether ``text`` holds ``name`` as words of its own ("GAN" is not in "organization")."""
    return bool(name) and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text, re.I) is not None


def _terms(text: str) -> frozenset[str]:
    return term_set(" ".join(w for w in text.replace("-", " ").split() if w.lower() not in _POINTING))


def paper_for(description: str, titles: list[str]) -> str | None:
    """The title among ``titles`` that ``description`` names, or None when none holds enough of its
    words or two hold as many."""
    want = _terms(description)
    scored = sorted(((len(want & _terms(t)), t) for t in dict.fromkeys(titles) if t), key=lambda x: -x[0])
    if not scored or scored[0][0] < max(1, math.ceil(MIN_SHARE * len(want))):
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return scored[0][1]


async def described_papers(ctx: Any, question: str, names: list[str], *, whole_title: bool = False,
                           phrases: bool = False, **scope: Any) -> list[tuple[int, str]]:
    """``(offset, short title)`` of each paper ``question`` describes (one not among ``names``), best
    effort: a hub that cannot search gives none. With ``whole_title`` the paper goes by its whole title
    (two papers may share a short one, "Kestrel: …"); ``scope`` (``doc_id``) is passed to the search.
    With ``phrases``, a noun phrase that describes a paper without calling it one counts too
    (:func:`phrase_descriptions`: a comparison's "the parallel topic model architecture")."""
    out: list[tuple[int, str]] = []
    taken = {n.lower() for n in names}
    found_by = [(at, [words], True) for at, words in descriptions(question, names)]
    if phrases:
        found_by = sorted(found_by + [(at, p, False) for at, p in phrase_descriptions(question, names)])
    for at, prefixes, strict in found_by:
        try:
            found = await ctx.hub.search(prefixes[-1], SEARCH_K, ctx.collection, **scope)
        except BackendUnavailable:
            raise
        except Exception:  # noqa: BLE001 - an upstream hub with an odd answer: the description stays unresolved
            continue
        titles = [c.title for c in found]
        title = paper_for(prefixes[0], titles) if strict else phrase_paper(prefixes, titles)
        # a paper a name of the question already names ("the web spam paper" beside "TrustRank") is no new side
        name = title if whole_title or title is None else short_title(title)
        if name is not None and name.lower() not in taken and not any(_names(n, name) for n in names):
            taken.add(name.lower())
            out.append((at, name))
    return out
