"""Claim-level citation support: a ``[n]`` stays only where chunk n supports the claim it ends.

A claim is the text a marker closes: from the start of its sentence, table cell or list line (or
from the previous marker group in the same sentence, when that leaves enough words) up to the
marker. Chunk n supports it when, in the chunk's text with its title and breadcrumb,

- at least half of the claim's content words are present (light stemming, shared 5-letter stems),
- every number of the claim is present, and
- every name of the claim (acronyms, CamelCase or letter-digit words: ``QLoRA``, ``GPT-3``) is present.

:func:`check_citations` re-points an unsupported marker to the retrieved chunk that supports the
claim best, or drops it, and lists what it changed; :func:`claim_support` counts the supported (claim,
source) pairs of a final answer for an evaluation (ALCE-style citation precision). Lexical and deterministic: no model.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.text import BOLD_LEAD, LIST_ITEM, content_terms, covered, name_tokens, sentence_end, sentence_start, term_set, written_numbers
from core.types import RetrievedContext, Source

MARKER_GROUP = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
MIN_COVERAGE = 0.5
MIN_CLAIM_TERMS = 2  # a shorter span after the previous marker reaches back to the sentence start


@dataclass(frozen=True)
class Claim:
    """One marker group and the text it cites for."""

    start: int  # the marker group's span in the answer
    end: int
    numbers: tuple[int, ...]
    text: str


def claims(answer: str) -> list[Claim]:
    """Every marker group of ``answer`` with the claim it closes, in order."""
    out: list[Claim] = []
    prev_end = 0
    for m in MARKER_GROUP.finditer(answer):
        begin = sentence_start(answer, m.start())
        start = max(begin, prev_end)
        text = MARKER_GROUP.sub(" ", answer[start:m.start()])
        if start != begin and len(content_terms(text, drop_frame=True)) < MIN_CLAIM_TERMS:
            text = MARKER_GROUP.sub(" ", answer[begin:m.start()])
        if not content_terms(text, drop_frame=True):  # a marker that opens its sentence cites what follows
            text = MARKER_GROUP.sub(" ", answer[m.end():sentence_end(answer, m.end())])
        if not content_terms(text, drop_frame=True) and begin > 0:  # "… diverges. [1]" ends its line:
            before = sentence_start(answer, begin - 1)  # it cites the sentence it follows
            text = MARKER_GROUP.sub(" ", answer[before:begin])
        out.append(Claim(m.start(), m.end(), tuple(int(n) for n in m.group(1).split(",")), _unlabel(text)))
        prev_end = m.end()
    return out


def _unlabel(text: str) -> str:
    """A claim without the list number and bold label that open its line
    (``2. **How many datasets?** We benchmark on 30 datasets`` → ``We benchmark on 30 datasets``)."""
    text = LIST_ITEM.sub("", text.strip())
    rest = BOLD_LEAD.sub("", text)
    return rest if len(content_terms(rest, drop_frame=True)) >= MIN_CLAIM_TERMS else text


def publication_of(ctx: RetrievedContext | Source) -> str:
    """What a chunk's (or cited source's) paper metadata says of its publication (:meth:`DocMeta.publication`), or ""."""
    return ctx.meta.publication(ctx.title) if ctx.meta is not None else ""


def evidence_text(ctx: RetrievedContext | Source) -> str:
    """What a chunk (or a cited source) offers as evidence: its title, breadcrumb and text, and its
    paper's authors, venue and year where the hub gives them."""
    body = ctx.content if isinstance(ctx, RetrievedContext) else ctx.text
    return " ".join(part for part in (ctx.title, ctx.breadcrumb, body, publication_of(ctx)) if part)


def support(claim: str, ctx: RetrievedContext | Source) -> float:
    """How well ``ctx`` supports ``claim``: the share of its content words present, or 0 when a
    number or a name of the claim is missing from the chunk. A claim with no word or number (a
    marker that only follows other markers: ``[1] [2] [3]``) states nothing and is supported by nothing."""
    if not re.search(r"\w", claim):
        return 0.0
    evidence = evidence_text(ctx)
    present = set(written_numbers(evidence))
    if any(n not in present for n in written_numbers(claim)):
        return 0.0
    low = evidence.lower()
    if any(name.lower() not in low for name in name_tokens(claim)):
        return 0.0
    terms = content_terms(claim, drop_frame=True)
    if not terms:
        return 1.0
    have = term_set(evidence)
    return sum(covered(t, have) for t in terms) / len(terms)


def supports(claim: str, ctx: RetrievedContext | Source) -> bool:
    return support(claim, ctx) >= MIN_COVERAGE


def check_citations(answer: str, contexts: list[RetrievedContext]) -> tuple[str, list[str]]:
    """``answer`` with each unsupported ``[n]`` re-pointed to the best supporting chunk or dropped
    (numbers index ``contexts``, 1-based; unknown numbers are left to the renumbering step), and
    one line per change."""
    changes: list[str] = []
    pieces: list[str] = []
    last = 0
    for claim in claims(answer):
        kept: list[int] = []
        for n in claim.numbers:
            if not 1 <= n <= len(contexts) or supports(claim.text, contexts[n - 1]):
                kept.append(n)
                continue
            best = _best(claim.text, contexts)
            if best is not None:
                kept.append(best)
                changes.append(f"[{n}] re-pointed to [{best}]: {_quote(claim.text)}")
            else:
                changes.append(f"[{n}] dropped, no retrieved chunk supports: {_quote(claim.text)}")
        pieces.append(answer[last:claim.start])
        pieces.append("".join(f"[{n}]" for n in dict.fromkeys(kept)))
        last = claim.end
    pieces.append(answer[last:])
    text = "".join(pieces)
    if changes:
        text = re.sub(r"(\[\d+\])(?:\s*\1)+", r"\1", text)  # a re-pointed marker next to the same one
        text = re.sub(r"[ \t]+([.,;:!?])", r"\1", text)
    return text, changes


def _best(claim: str, contexts: list[RetrievedContext]) -> int | None:
    scored = [(support(claim, c), i) for i, c in enumerate(contexts, start=1)]
    score, index = max(scored, key=lambda s: (s[0], -s[1]), default=(0.0, 0))
    return index if score >= MIN_COVERAGE else None


def _quote(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return f'"{text[:limit]}…"' if len(text) > limit else f'"{text}"'


def claim_support(answer: str, sources: list[Source]) -> tuple[int, int]:
    """(supported, all) (claim, cited source) pairs of a final answer, whose ``[n]`` are the
    sources' indexes: the counts behind ALCE-style citation precision."""
    by_index = {s.index: s for s in sources}
    pairs = [(c.text, by_index[n]) for c in claims(answer) for n in c.numbers if n in by_index]
    return sum(supports(text, src) for text, src in pairs), len(pairs)
