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
from core.text import short_title, term_set

# "the <up to six words> paper": no word of it another "the" (the description starts at the nearest one).
# Not "study": "user study", "case study" and "ablation study" are parts of a paper, not papers.
DESCRIBED = re.compile(r"\bthe\s+((?:(?!the\b)[\w'’-]+\s+){0,5}?(?!the\b)[\w'’-]+)\s+(?:paper|article)(?:['’]s)?\b",
                       re.I)
# Words that point at a paper by its place ("the first paper", "the same paper"), not by its topic.
_POINTING = frozenset("first second third fourth last other same original earlier previous latter former next "
                      "above following present current whole entire cited main new older newer".split())
MIN_SHARE = 0.6  # of a description's content words its paper's title holds
SEARCH_K = 10  # chunks read when looking for the described paper


def descriptions(question: str, names: list[str]) -> list[tuple[int, str]]:
    """``(offset, words)`` of each description in ``question`` that holds none of ``names``."""
    out = []
    for m in DESCRIBED.finditer(question):
        words = m.group(1)
        if any(_names(n, words) for n in names) or not _terms(words):
            continue
        out.append((m.start(), words))
    return out


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
                           **scope: Any) -> list[tuple[int, str]]:
    """``(offset, short title)`` of each paper ``question`` describes (one not among ``names``), best
    effort: a hub that cannot search gives none. With ``whole_title`` the paper goes by its whole title
    (two papers may share a short one, "Kestrel: …"); ``scope`` (``doc_id``) is passed to the search."""
    out: list[tuple[int, str]] = []
    taken = {n.lower() for n in names}
    for at, words in descriptions(question, names):
        try:
            found = await ctx.hub.search(words, SEARCH_K, ctx.collection, **scope)
        except BackendUnavailable:
            raise
        except Exception:  # noqa: BLE001 - an upstream hub with an odd answer: the description stays unresolved
            continue
        title = paper_for(words, [c.title for c in found])
        # a paper a name of the question already names ("the web spam paper" beside "TrustRank") is no new side
        name = title if whole_title or title is None else short_title(title)
        if name is not None and name.lower() not in taken and not any(_names(n, name) for n in names):
            taken.add(name.lower())
            out.append((at, name))
    return out
