"""Rule critic: coverage and support checks with feedback that changes the retry's queries.

The answer is cut into claims (prose sentences, bullets, numbered steps, table cells). Support:
every claim carries ``[n]`` markers, every marker is in range, and the claim's content words occur
in the cited chunks (≥ 60 %). Coverage: every entity is named, every entity × dimension cell of a
comparison is filled, every sub-question of a chain is answered.

Pass rule for honest abstention: an answer that says the knowledge base holds no evidence passes
(score 8, completeness and faithfulness 1) when no retrieved chunk is lexically relevant to the
question, because a retry would search the same static hub for the same words; it fails when
relevant chunks were retrieved, since then the evidence was ignored. Headings, labels, the
"From earlier sessions:" line and explicit "no evidence" statements are not claims.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.brains.offline.evidence import absent_names, chunk_sentences, dim_hits, expand_terms, is_document_of, profile, relevant_indexes
from core.brains.offline.glossary import english_terms
from core.brains.offline.lexicon import mentions
from core.brains.offline.compose import MISSING_CELL
from core.brains.offline.synthesis import NO_EVIDENCE_RE, PRIOR_PREFIX, key_terms
from core.brains.offline.text import content_terms, covered, has_cjk, markers, plain_text, split_sentences, strip_markers, term_set
from core.config import CriticSettings
from core.types import CriticVerdict, Intent, RetrievedContext

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
        if not line or line.startswith("#") or line.startswith(PRIOR_PREFIX):
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
        line = re.sub(r"^(?:[-*+•]|\d+[.)])\s+", "", line)
        line = re.sub(r"^\*\*[^*]+\*\*:?\s*", "", line).strip()
        for sent in split_sentences(line):
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
        have |= term_set(" ".join([ctx.content, *chunk_sentences(ctx)]))
    ratio = word_share(claim.text, have)
    return (ratio >= SUPPORT_MIN, "" if ratio >= SUPPORT_MIN else f"only {ratio:.0%} of its words occur in the cited source")


def word_share(text: str, have: set[str] | frozenset[str]) -> float:
    """The share of ``text``'s content words (markers dropped) found in ``have``; 1.0 when it has none."""
    words = content_terms(strip_markers(text).rstrip("…"))
    if not words:
        return 1.0
    return sum(1 for w in words if w in have) / len(words)


def critique(question: str, intent: Intent | None, contexts: list[RetrievedContext], answer: str,
             sub_questions: list[str], thresholds: CriticSettings) -> CriticVerdict:
    prof = profile(question, intent)
    relevant = relevant_indexes(contexts, prof)
    found, gaps = claims(answer)
    abstains = bool(NO_EVIDENCE_RE.search(answer)) and not markers(answer)
    if abstains and not relevant:
        return CriticVerdict(passed=True, score=8.0, completeness=1.0, faithfulness=1.0,
                             feedback="Honest abstention: no retrieved chunk is relevant to the question.")
    issues: list[str] = []
    queries: list[str] = []
    if not answer.strip():
        issues.append("the answer is empty")
    if abstains and relevant:
        issues.append(f"the answer claims no evidence, but sources {', '.join(f'[{i + 1}]' for i in relevant[:4])} are relevant")
    supported = 0
    for c in found:
        ok, why = support(c, contexts)
        supported += ok
        if not ok:
            snippet = strip_markers(c.text)[:70]
            issues.append(f"unsupported claim ({why}): '{snippet}'")
            if why == "uncited" or "only" in why:
                queries.append(" ".join(content_terms(snippet, drop_frame=True)[:5]))
    faithfulness = supported / len(found) if found else (1.0 if abstains else 0.0)
    plain = strip_markers(answer)
    checks: list[bool] = []
    missing: list[str] = []
    cited = [contexts[m - 1] for m in dict.fromkeys(markers(answer)) if 1 <= m <= len(contexts)]
    absent = absent_names(contexts, prof) if relevant else []
    for e in prof.entities:
        if e in absent:
            # no retrieved chunk names it, and a retry searches the same hub: it lowers confidence
            # (an issue, a point off the score) but does not fail an answer the rest of the evidence gives
            issues.append(f"no retrieved source names {e}; the answer rests on the rest of the question")
            continue
        # named, or answered from that paper itself (whose abstract may say "we", not "ALBERT")
        ok = mentions(plain, e) or any(is_document_of(c, e) for c in cited)
        checks.append(ok)
        if not ok:
            missing.append(e)
            queries.append(f"{e} {' '.join(prof.dimensions)}".strip() if prof.dimensions else f"{e} overview")
    kind = intent.type if intent else "factual"
    if kind in ("factual", "follow_up") and found and not abstains:
        asked = _asked_for(prof, found[0])
        checks.append(not asked)
        if asked:
            missing.append(asked)
            queries.append(" ".join([*prof.entities[:1], *prof.key_terms[:5]]))
    if kind == "comparative" and prof.dimensions:
        for e in prof.entities:
            for d in prof.dimensions:
                ok = _cell_covered(found, gaps, e, d)
                checks.append(ok)
                if not ok:
                    missing.append(f"{e} {d}")
                    queries.append(f"{e} {d}")
    if kind == "comparative" and prof.numeric and found and not abstains:
        # a number asked for ("how large", "what ratios"): each entity's row must carry one
        for e in prof.entities:
            row = " ".join(strip_markers(c.text) for c in found if c.subject and mentions(c.subject, e))
            ok = bool(_NUMBER.search(row))
            checks.append(ok)
            if not ok:
                missing.append(f"the asked-for number in the {e} row")
                queries.append(" ".join([e, *prof.key_terms[:4]]))
    elif prof.dimensions and kind == "multi_hop":  # a direct answer's coverage is _asked_for's
        for d in prof.dimensions:
            ok = dim_hits(plain, d) > 0
            checks += [ok, ok]  # the dimension is what the question asks: it weighs double
            if not ok:
                missing.append(d)
                queries.append(f"{' '.join(prof.entities[:2])} {d}".strip())
    if kind == "exploratory" and prof.numeric and found and not abstains:
        ok = bool(_NUMBER.search(plain))  # "by how much …" asked of an overview still wants the number
        checks.append(ok)
        if not ok:
            missing.append("the asked-for number")
            queries.append(" ".join(prof.key_terms[:6]))
    if kind == "multi_hop":
        gaps_at = {m.strip() for m in _STEP_GAP.findall(answer)}
        asking = [q for q in sub_questions if _asks(q)]  # a context clause or keyword rewrite asks nothing
        if asking and found and not abstains:
            asked = _asked_for(profile(asking[-1]), found[-1])  # the conclusion answers the last question
            checks.append(not asked)
            if asked:
                missing.append(asked.replace("direct answer", "conclusion"))
        for sq in asking:
            ok = sq.strip() not in gaps_at and _step_answered(sq, found)
            checks.append(ok)
            if not ok:
                missing.append(f"sub-question '{sq}'")
                queries.append(" ".join(content_terms(sq, drop_frame=True)[:6]))
    completeness = sum(checks) / len(checks) if checks else (1.0 if found else 0.0)
    if abstains and relevant:
        completeness = 0.0
    if missing:
        issues.insert(0, "missing: " + "; ".join(missing))
    score = 10 * (0.55 * faithfulness + 0.45 * completeness)
    score -= sum(1.0 for i in issues if "out of range" in i or i.startswith("no retrieved source names"))
    score = round(max(0.0, min(10.0, score)), 2)
    passed = (score >= thresholds.pass_score and faithfulness >= thresholds.min_faithfulness
              and completeness >= thresholds.min_completeness and bool(answer.strip()) and not missing)
    feedback = _feedback(missing, issues, passed)
    return CriticVerdict(passed=passed, score=score, completeness=round(completeness, 3),
                         faithfulness=round(faithfulness, 3), feedback=feedback, issues=issues,
                         suggested_queries=[q for q in dict.fromkeys(q.strip() for q in queries) if q][:4])


_NUMBER = re.compile(r"(?<![A-Za-z0-9_-])\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|"
                     r"forty|fifty|hundreds?|thousands?|millions?|billions?|trillions?|twice|half|double|triple|"
                     r"dozens?)\b|[一二三四五六七八九十百千万亿]", re.I)


def _asked_for(prof, lead: Claim) -> str:
    """What the direct answer (the first claim) leaves out of what the question asks, or "".

    The first claim must carry at least one of the question's own words beyond the names it
    mentions, and a number when the question asks for one ("how many", "what score").
    """
    # the names and their parts ("kosmo" of Kosmos-2) are not what is asked about them
    ent_terms = expand_terms(prof.entities) | {t for e in prof.entities for t in content_terms(e, parts=True)}
    focus = [t for t in prof.key_terms if t not in ent_terms and t.isascii()]
    head = asked_noun(prof.question)
    if prof.numeric and head and len(focus) > 1:
        # "what rank … by default": the number answers "rank"; the words around it must be there
        focus = [t for t in focus if t != head] or focus
    have = term_set(strip_markers(lead.text))
    if focus and not any(covered(t, have) for t in focus):
        return "the asked-for " + " ".join(focus[:4]) + " in the direct answer"
    head = "" if prof.numeric else head  # a measure is checked as a number
    if head and head not in _GENERIC_HEADS and not covered(head, have):
        return f"the asked-for {head} in the direct answer"
    if prof.numeric and not _NUMBER.search(strip_markers(lead.text)):
        return "the asked-for number in the direct answer"
    return ""


_WH_NOUN = re.compile(r"^\s*(?:what|which)\s+((?:[\w-]+\s+){0,3}?[\w-]+)\s+(?:did|does|do|is|was|are|were|has|have|can|"
                      r"could|would|will)\b", re.I)


_GENERIC_HEADS = frozenset("kind type sort form way part variant version aspect thing one method approach model".split())


def asked_noun(question: str) -> str:
    """The thing a "what/which X did …" question asks for, stemmed ("what new corpus did …" → corpus)."""
    m = _WH_NOUN.match(question.strip())
    if not m:
        return ""
    terms = content_terms(re.split(r"\s+of\s+", m.group(1))[0])  # "what fraction of patches" → fraction
    return terms[-1] if terms else ""


def _cell_covered(found: list[Claim], gaps: list[Claim], name: str, dim: str) -> bool:
    if any(g.subject and mentions(g.subject, name) and g.column == dim for g in gaps):
        return False
    for c in found:
        if c.subject:
            if mentions(c.subject, name) and c.column == dim:
                return True
        elif mentions(c.text, name) and dim_hits(c.text, dim):
            return True
    return False


_STEP_GAP = re.compile(r"^\d+\.\s+\*\*(.+?)\*\*\s+The knowledge base holds no evidence", re.M)
_ASKS = re.compile(r"[?？]\s*$|^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|does|do|did|can|"
                   r"could|should|was|were|has|have)\b|什么|哪|多少|如何|怎么|为什么|是否|吗", re.I)


def _asks(step: str) -> bool:
    return bool(_ASKS.search(step))


def _step_answered(sub_question: str, found: list[Claim]) -> bool:
    terms = key_terms(sub_question)
    if has_cjk(sub_question):  # judged on its names and its terms in English
        terms = {t for t in terms if t.isascii()} | key_terms(" ".join(english_terms(sub_question)))
    if not terms:
        return True
    best = max((sum(1 for t in terms if covered(t, term_set(c.text))) / len(terms) for c in found), default=0.0)
    return best >= 0.5


def _feedback(missing: list[str], issues: list[str], passed: bool) -> str:
    if not issues:
        return "All entities, dimensions and steps are covered and every claim is cited and supported."
    parts = []
    if missing:
        parts.append("Missing: " + "; ".join(missing) + ".")
    others = [i for i in issues if not i.startswith("missing:")]
    if others:
        parts.append("Fix: " + "; ".join(others[:4]) + ("." if not others[-1].endswith(".") else ""))
    if passed:
        parts.append("Good enough to pass.")
    return " ".join(parts)
