"""The stricter measures of ``paperpilot eval qa``: what a reader of the answer actually gets.

Every function here is pure (text and small values in, numbers out), so each rule is tested on
made-up answers. The rules:

- **direct answer** (:func:`direct_answer`): an answer's Conclusion section when it has one (a line
  opening with ``**Conclusion:**``, ``Conclusion:`` or a ``#`` heading named Conclusion: that line's
  text after the label, plus the lines after it up to the next blank line or heading), else its first
  paragraph: the first run of non-blank lines that is not a heading, not a "From earlier sessions"
  line. A table is a paragraph, so a comparison's direct answer is its table. **Answer-first gold**
  is a gold string (verbatim) inside the direct answer, not merely somewhere in the padding after it.
- **per-document comparative gold** (:func:`per_document_hit`): a comparative question that lists
  two or more documents is a hit only when every listed document D has a gold string that belongs to
  D (D's ingested text contains it) inside a unit of the answer that cites a source of D, each
  document in a unit of its own. Units are table cells, and sentences (or lines) outside tables. A
  document whose text holds none of the gold strings accepts any gold string.
- **critic reliability** (:func:`reliability`): the critic's score (0–10, read as 0–1) against
  whether the answer holds the gold, in ten equal bins, with the expected calibration error.
- **claim support before repair** (:func:`draft_support`): the (claim, cited chunk) pairs of the
  draft as composed, before the formatter re-points or drops a citation; a marker naming no
  retrieved chunk is a pair that fails.
- **recalled material** (:func:`recalled_pieces`, :func:`unrelated_pieces`): the sentences of an
  answer's "From earlier sessions:" line. A recalled fact reads "<title> says: <text>"
  (:meth:`core.memory.protocol.RecalledFact.as_prior`). A piece is related to a question when it
  names one of the question's documents by title, or one of them contains its text (markers and
  case dropped, whitespace collapsed); otherwise it is unrelated: it came from another paper, or
  from no paper at all.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable

from core.brains.offline.synthesis import PRIOR_PREFIX
from core.citations import MARKER_GROUP, claims, supports
from core.types import RetrievedContext

BINS = 10
_CONCLUSION = re.compile(r"^\s*(?:\*\*Conclusion:?\*\*:?|Conclusion:|#{1,6}\s*Conclusion\b:?)\s*", re.I)
_HEADING = re.compile(r"^\s*#{1,6}\s")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+|\n")
_ATTRIBUTED = re.compile(r"^(.{2,300}?)(?: \(and \d+ other documents?\))? says: (.*)$", re.S)


def _paragraphs(answer: str) -> list[list[str]]:
    paras: list[list[str]] = [[]]
    for line in answer.splitlines():
        if line.strip():
            paras[-1].append(line)
        elif paras[-1]:
            paras.append([])
    return [p for p in paras if p]


def direct_answer(answer: str) -> str:
    """The part of ``answer`` that answers the question directly (the module's rule)."""
    lines = answer.splitlines()
    for i, line in enumerate(lines):
        m = _CONCLUSION.match(line)
        if not m:
            continue
        out = [line[m.end():]]
        for nxt in lines[i + 1:]:
            if not nxt.strip() or _HEADING.match(nxt):
                break
            out.append(nxt)
        return "\n".join(out).strip()
    for para in _paragraphs(answer):
        body = [ln for ln in para if not _HEADING.match(ln)]
        if body and not body[0].lstrip().startswith(PRIOR_PREFIX):
            return "\n".join(body).strip()
    return ""


def answer_first_hit(answer: str, gold: Iterable[str]) -> bool:
    head = direct_answer(answer)
    return any(g and g in head for g in gold)


def units(answer: str) -> list[str]:
    """The answer's table cells, and its sentences (or lines) outside tables."""
    out: list[str] = []
    for line in answer.splitlines():
        s = line.strip()
        if not s:
            continue
        if s.startswith("|") and s.endswith("|"):
            out += [c.strip() for c in re.split(r"(?<!\\)\|", s.strip("|")) if c.strip(" -:")]
        else:
            out += [p for p in _SENTENCE_END.split(s) if p.strip()]
    return out


def gold_owners(gold: Iterable[str], doc_texts: dict[str, str]) -> dict[str, set[str]]:
    """For each gold string, the documents whose text contains it."""
    return {g: {d for d, text in doc_texts.items() if g in text} for g in gold}


def _matching(options: dict[str, set[int]]) -> bool:
    """Whether every key gets a distinct unit of its options (augmenting paths)."""
    taken: dict[int, str] = {}

    def place(doc: str, seen: set[int]) -> bool:
        for u in options[doc]:
            if u in seen:
                continue
            seen.add(u)
            if u not in taken or place(taken[u], seen):
                taken[u] = doc
                return True
        return False

    return all(place(d, set()) for d in options)


def per_document_hit(answer: str, source_docs: dict[int, str], docs: list[str], gold: list[str],
                     doc_texts: dict[str, str]) -> bool:
    """Whether each of ``docs`` has its own gold string in its own unit citing it (the module's rule).

    ``source_docs`` maps the answer's ``[n]`` to the cited source's document slug.
    """
    owners = gold_owners(gold, doc_texts)
    options: dict[str, set[int]] = {}
    for d in docs:
        own = [g for g in gold if d in owners[g]] or list(gold)
        options[d] = set()
        for i, unit in enumerate(units(answer)):
            cited = {source_docs.get(int(n)) for m in MARKER_GROUP.finditer(unit) for n in m.group(1).split(",")}
            if d in cited and any(g and g in unit for g in own):
                options[d].add(i)
    return bool(docs) and _matching(options)


def reliability(scores: list[float], correct: list[bool], bins: int = BINS) -> tuple[list[dict], float]:
    """A reliability curve (per non-empty bin: its range, count, mean score, accuracy) and the ECE,
    for scores in 0–1 (a score of exactly 0 falls in the first bin)."""
    curve: list[dict] = []
    ece = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, s in enumerate(scores) if lo < s <= hi or (b == 0 and s <= 0.0)]
        if not idx:
            continue
        acc = sum(correct[i] for i in idx) / len(idx)
        mean = sum(scores[i] for i in idx) / len(idx)
        ece += len(idx) / len(scores) * abs(acc - mean)
        curve.append({"bin": f"{lo:.1f}-{hi:.1f}", "n": len(idx), "mean_score": round(mean, 4),
                      "accuracy": round(acc, 4)})
    return curve, round(ece, 4)


def draft_support(draft: str, contexts: list[RetrievedContext]) -> tuple[int, int]:
    """(supported, all) (claim, cited chunk) pairs of a draft whose ``[n]`` index ``contexts`` (1-based)."""
    supported = pairs = 0
    for claim in claims(draft):
        for n in claim.numbers:
            pairs += 1
            supported += 1 <= n <= len(contexts) and supports(claim.text, contexts[n - 1])
    return supported, pairs


def _plain(text: str) -> str:
    return " ".join(MARKER_GROUP.sub(" ", text).lower().split())


def recalled_pieces(answer: str) -> list[str]:
    """The sentences of the answer's "From earlier sessions:" line(s)."""
    out: list[str] = []
    for line in answer.splitlines():
        s = line.strip()
        if s.startswith(PRIOR_PREFIX):
            out += [p.strip() for p in _SENTENCE_END.split(s[len(PRIOR_PREFIX):]) if p.strip()]
    return out


def unrelated_pieces(pieces: list[str], docs: list[str], doc_texts: dict[str, str],
                     doc_titles: dict[str, str] | None = None) -> list[str]:
    """The recalled pieces that neither name one of the question's ``docs`` (by title) nor come from one."""
    texts = [_plain(doc_texts.get(d, "")) for d in docs]
    titles = {_plain(t) for d, t in (doc_titles or {}).items() if d in docs and t}
    out = []
    for piece in pieces:
        m = _ATTRIBUTED.match(piece)
        body = _plain(m.group(2) if m else piece).rstrip(".")
        if (m and _plain(m.group(1)) in titles) or (body and any(body in t for t in texts)):
            continue
        out.append(piece)
    return out


def review_sheet(rows: list[dict], n: int, seed: int = 0, title: str = "") -> str:
    """A Markdown sheet of ``n`` randomly chosen (``seed``) answered rows, for a person to score 1–5.

    Each row needs ``id``, ``question``, ``answer`` and ``sources`` (dicts with ``index``, ``title``,
    ``doc``, ``page``). The sheet shows no gold, label or score, so the reviewer judges blind.
    """
    pick = random.Random(seed).sample(rows, min(n, len(rows)))
    out = [f"# Blind review{': ' + title if title else ''}", "",
           "Score each answer 1–5 (5: answers the question directly and correctly, with apt citations; "
           "1: does not answer it).", "", "| # | id | score (1–5) | note |", "|---|---|---|---|"]
    out += [f"| {i} | {r['id']} |  |  |" for i, r in enumerate(pick, start=1)]
    for i, r in enumerate(pick, start=1):
        out += ["", f"## {i}. {r['id']}", "", f"**Question:** {r['question']}", "", "**Answer:**", ""]
        out += [f"> {ln}" if ln.strip() else ">" for ln in r["answer"].splitlines()]
        out += ["", "**Sources:**"]
        for s in r["sources"]:
            page = f", p. {s['page']}" if s.get("page") else ""
            out.append(f"- [{s['index']}] {s['title']} ({s['doc']}{page})")
        out += ["", "Score (1–5): ____"]
    return "\n".join(out) + "\n"
