"""An answer cut into claims, and whether each claim is backed by the sources it cites.

Claims are prose sentences, bullets, numbered steps and table cells; headings, labels, the "From
earlier sessions:" line, a themed answer's opening line that names its sections and explicit "no
evidence" statements are not claims. A claim is supported
when it carries ``[n]`` markers, every marker is in range, and most of its content words (≥ 60 %)
occur in the cited chunks as the brain reads them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.brains.offline.comparison import MISSING_CELL
from core.brains.offline.evidence import chunk_sentences
from core.brains.offline.synthesis import NO_EVIDENCE_RE, UNCLAIMED_PREFIXES
from core.brains.offline.text import (content_terms, markers, plain_text, passage_sentences, strip_markers, term_set,
                                      unlabelled)
from core.citations import publication_of
from core.types import RetrievedContext

SUPPORT_MIN = 0.6


@dataclass
class Claim:
    text: str  # as written, markers included
    subject: str = ""  # the table row's entity, for cells
    column: str = ""  # the table column, for cells


def claims(answer: str) -> tuple[list[Claim], list[Claim]]:
    """(claims, honest gaps) of an answer; structure and labels are dropped."""
    out: list[Claim] = []
    gaps: list[Claim] = []
    header: list[str] = []
    for raw in answer.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", *UNCLAIMED_PREFIXES)):
            continue
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip("|"))]
            if all(set(c) <= set("-: ") for c in cells):
                continue
            if not header:
                header = cells
                continue
            subject = plain_text(cells[0]).strip()
            for col, cell in zip(header[1:], cells[1:]):
                target = gaps if MISSING_CELL in cell.lower() else out
                target.append(Claim(cell, subject, col.strip().lower()))
            continue
        header = []
        line = unlabelled(line, colon=False)  # as before: a step's bold question is no claim either
        for sent in passage_sentences(line):
            if re.fullmatch(r"\[\d+\](\[\d+\])*[.!?]?", sent) and out:
                out[-1].text += " " + sent  # a marker split off its sentence
                continue
            (gaps if NO_EVIDENCE_RE.search(sent) and not markers(sent) else out).append(Claim(sent))
    return out, gaps


def support(claim: Claim, contexts: list[RetrievedContext]) -> tuple[bool, str]:
    """Whether a claim is cited, in range, and lexically backed by what it cites: the chunk's text
    as the brain reads it (a table row names its table, so a row's caption words count; the
    breadcrumb of an ordinary chunk does not, which would let a title's words back any claim)."""
    marks = markers(claim.text)
    if not marks:
        return False, "uncited"
    bad = [m for m in marks if not 1 <= m <= len(contexts)]
    if bad:
        return False, f"marker [{bad[0]}] is out of range ({len(contexts)} sources)"
    have: set[str] = set()
    for m in marks:
        ctx = contexts[m - 1]
        have |= term_set(" ".join([ctx.content, *chunk_sentences(ctx), publication_of(ctx)]))  # and its paper's metadata
    ratio = word_share(claim.text, have)
    return (ratio >= SUPPORT_MIN, "" if ratio >= SUPPORT_MIN else f"only {ratio:.0%} of its words occur in the cited source")


def word_share(text: str, have: set[str] | frozenset[str]) -> float:
    """The share of ``text``'s content words (markers dropped) found in ``have``; 1.0 when it has none."""
    words = content_terms(strip_markers(text).rstrip("…"))
    if not words:
        return 1.0
    return sum(1 for w in words if w in have) / len(words)
