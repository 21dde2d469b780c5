"""Critic: structural checks on a draft's form, and a learned verdict on whether it answers.

The answer is cut into claims (prose sentences, bullets, numbered steps, table cells). The checks
that stay rules are about form: every claim carries ``[n]`` markers, every marker is in range, the
claim's content words occur in the cited chunks (≥ 60 %), every entity × dimension cell of a
comparison is filled, every sub-question of a chain is answered. Whether the direct answer (the
first paragraph, or a chain's Conclusion) answers the question is the learned verdict's call
(:mod:`core.brains.offline.verdict`, one model per kind of judged text: a direct answer, a comparison
row, an overview's or chain's prose). The rule checks of cells, steps and the asked-for words live in
:mod:`core.brains.offline.critic_checks`; the asked-for words and entity coverage only name what a
failing draft lacks, so the retry searches for it.

Honest abstention: an answer that says the knowledge base holds no evidence passes when the
evidence gate finds no retrieved sentence that reads as an answer (a retry would search the same
static hub); it fails when one does. A name no retrieved chunk uses lowers the score, never vetoes.
Headings, labels, the "From earlier sessions:" line and explicit "no evidence" statements are not claims.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from core.brains.offline import verdict
from core.brains.offline.evidence import subject as evidence_subject
from core.brains.offline.evidence import (absent_names, in_abstract, is_document_of, profile, relevant_indexes,
                                          written_by)
from core.brains.offline.lexicon import mentions
from core.brains.offline.comparison import asks_overview
from core.brains.offline.sides import gist_paper, side_papers
from core.brains.offline.claims import SUPPORT_MIN, Claim, claims, support, word_share  # noqa: F401 (the critic's API)
from core.brains.offline.critic_checks import NUMBER, asked_for, asked_noun, check_chain, check_comparison, search  # noqa: F401 (asked_noun: the critic's API)
from core.brains.offline.synthesis import NO_EVIDENCE_RE, UNCLAIMED_PREFIXES
from core.brains.offline.text import content_words, markers, strip_markers, unlabelled
from core.vocabulary import Vocabulary
from core.text import LIBRARY_LISTING
from core.citations import publication_of
from core.config import CriticSettings
from core.doc_versions import split as split_version
from core.types import CriticVerdict, Intent, RetrievedContext

@dataclass
class Structure:
    """What the structural checks found in a draft (citations, cells, steps) and what they steer."""

    prof: object
    scored: list
    abstains: bool
    found: list[Claim]
    faithfulness: float = 1.0
    entity_share: float = 1.0
    checks: list[bool] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # structural gaps: each fails the draft
    hints: list[str] = field(default_factory=list)  # what the verdict may be missing: feedback only
    asked_missing: bool = False  # the direct answer lacks the question's words or asked-for noun
    by_metadata: bool = False  # a publication question answered (lead or every row) by the papers' metadata
    by_abstract: bool = False  # a question about a paper as a whole answered by that paper's abstract
    by_library: bool = False  # a question about the library answered by its list of papers, one a claim
    issues: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)


def structure(question: str, intent: Intent | None, contexts: list[RetrievedContext], answer: str,
              sub_questions: list[str], *, vocab: Vocabulary) -> Structure:
    """The checks that stay rules because they are about the draft's form: markers cited and in
    range, claims backed by what they cite, a comparison's cells filled, a chain's steps answered."""
    prof = profile(question, intent, vocab=vocab)
    scored = verdict.scored_pool(contexts, prof)
    found, gaps = claims(answer)
    abstains = bool(NO_EVIDENCE_RE.search(answer)) and not markers(answer)
    st = Structure(prof, scored, abstains, found)
    st.by_metadata = _by_metadata(prof, intent, contexts, found)
    st.by_abstract = _by_abstract(prof, contexts, found) or _rows_by_abstract(intent, prof, contexts, found)
    st.by_library = _by_library(question, contexts, answer, found, vocab)
    if not answer.strip():
        st.missing.append("an answer (the draft is empty)")
    supported = 0
    for c in found:
        ok, why = support(c, contexts)
        supported += ok
        if not ok:
            snippet = strip_markers(c.text)[:70]
            st.issues.append(f"unsupported claim ({why}): '{snippet}'")
            if why == "uncited" or "only" in why:
                st.queries.append(" ".join(content_words(snippet, drop_frame=True)[:5]))
    st.faithfulness = supported / len(found) if found else (1.0 if abstains else 0.0)
    plain = strip_markers(answer)
    cited = [contexts[m - 1] for m in dict.fromkeys(markers(answer)) if 1 <= m <= len(contexts)]
    absent = absent_names(contexts, prof)
    named = []
    for e in prof.entities:
        if e in absent:  # no retrieved chunk names it: confidence drops (a point off), never a veto
            st.issues.append(f"no retrieved source names {e}; the answer rests on the rest of the question")
            continue
        ok = mentions(plain, e, vocab) or any(is_document_of(c, e, vocab) or written_by(c, e) for c in cited)
        named.append(ok)
        if not ok:
            st.hints.append(e)
            st.queries.append(f"{e} {' '.join(prof.dimensions)}".strip() if prof.dimensions else f"{e} overview")
    st.entity_share = sum(named) / len(named) if named else 1.0
    kind = intent.type if intent else "factual"
    if (kind in ("factual", "follow_up", "exploratory") and found and not abstains and not st.by_metadata
            and not st.by_abstract and not st.by_library and (asked := asked_for(prof, found[0], contexts))):
        st.hints.append(asked)
        st.asked_missing = True
        st.queries.append(search(prof, prof.entities[:1], 5))
    if prof.numeric and kind != "comparative" and found and not abstains and not NUMBER.search(strip_markers(verdict.direct_answer(answer))):
        st.hints.append("the asked-for number in the direct answer")
        st.queries.append(search(prof, prof.entities[:1], 5))
    if kind == "comparative":
        check_comparison(st, prof, found, gaps)
    if kind == "multi_hop":
        check_chain(st, prof, found, answer, sub_questions, contexts)
    return st



def verdict_inputs(question: str, intent: Intent | None, contexts: list[RetrievedContext], answer: str,
                   sub_questions: list[str], st: Structure | None = None, *, vocab: Vocabulary) -> list[float]:
    """The learned verdict's features for a draft (the same call in training and in use): an overview
    or a chain (``intent`` exploratory or multi-hop) is judged on all its prose, since it answers in
    all its parts; any other draft on its direct answer."""
    st = st or structure(question, intent, contexts, answer, sub_questions, vocab=vocab)
    if (intent.type if intent else "factual") in _PROSE_KINDS:
        return verdict.features(st.prof, contexts, answer, st.faithfulness, st.entity_share, st.asked_missing,
                                st.scored, head=prose(answer), prose=True)
    return verdict.features(st.prof, contexts, answer, st.faithfulness, st.entity_share, st.asked_missing, st.scored)


_PROSE_KINDS = ("exploratory", "multi_hop")


def verdict_probability(question: str, intent: Intent | None, contexts: list[RetrievedContext], answer: str,
                        sub_questions: list[str], st: Structure) -> float:
    """The learned verdict's probability; a comparison is judged row by row (each row's cells as the
    direct answer, against the sentences about that row's entity) and is as good as its weakest row."""
    kind = intent.type if intent else "factual"
    rows = row_inputs(contexts, answer, st) if kind == "comparative" else {}
    if not rows:
        return verdict.probability(verdict_inputs(question, intent, contexts, answer, sub_questions, st,
                                                  vocab=st.prof.vocab))
    return min(verdict.probability(x, judged="row") for x in rows.values())


def row_inputs(contexts: list[RetrievedContext], answer: str, st: Structure) -> dict[str, list[float]]:
    """The learned verdict's features for each row of a comparison table (the same call in training and
    in use): the row's cells as the direct answer, against the sentences about that row's entity."""
    rows: dict[str, list[str]] = {}
    for c in st.found:
        if c.subject:
            rows.setdefault(c.subject, []).append(c.text)
    out = {}
    for subject, cells in rows.items():
        own = [(s, p) for s, p in st.scored
               if (who := evidence_subject(s, st.prof.vocab)) and mentions(subject, who, st.prof.vocab)]
        out[subject] = verdict.features(st.prof, contexts, answer, st.faithfulness, st.entity_share,
                                        st.asked_missing, st.scored, head="\n".join(cells), rivals=own)
    return out


def _judged(intent: Intent | None, st: Structure) -> str:
    """Which of the verdict's models judges this draft (:data:`core.brains.offline.verdict.JUDGED`)."""
    kind = intent.type if intent else "factual"
    if kind in _PROSE_KINDS:
        return "prose"
    return "row" if kind == "comparative" and any(c.subject for c in st.found) else "direct"


def prose(answer: str) -> str:
    """A draft's claims outside headings, tables, the recalled-facts line and a themed answer's opening
    line, each without its list marker and the name it is filed under (a survey lead's "**Kestrel:**")."""
    return "\n".join(unlabelled(ln) for ln in answer.splitlines()
                      if ln.strip() and not ln.lstrip().startswith(("#", "|", *UNCLAIMED_PREFIXES)))


def gate_draft(question: str, intent: Intent | None, contexts: list[RetrievedContext], *, vocab: Vocabulary,
               gated: bool = True) -> tuple[str, Intent] | None:
    """The draft the evidence gate judges: the scorer's best retrieved sentence, cited, as a factual
    one-sentence answer (None when nothing was retrieved or, ``gated``, no sentence reaches the
    scorer's gate threshold)."""
    prof = profile(question, intent, vocab=vocab)
    scored = verdict.scored_pool(contexts, prof)
    if not scored or (gated and not verdict.has_evidence(contexts, prof, scored)):
        return None
    best = max(scored, key=lambda sp: sp[1])[0]
    plain = Intent(type="factual", confidence=1.0, entities=intent.entities if intent else [],
                   reformulated_query=intent.reformulated_query if intent else "")
    return f"{best.text} [{best.cited[0]}]", plain


def evidence_gate(question: str, intent: Intent | None, contexts: list[RetrievedContext], *, vocab: Vocabulary) -> bool:
    """Whether the retrieved text holds an answer at all: the :func:`gate_draft` passes the gate's
    learned model at its own threshold (used when no chunk is lexically on topic)."""
    found = gate_draft(question, intent, contexts, vocab=vocab)
    if found is None:
        return False
    draft, plain = found
    x = verdict_inputs(question, plain, contexts, draft, [], vocab=vocab)
    return verdict.gate_probability(x) >= verdict.model()["gate_pass_threshold"]


def critique(question: str, intent: Intent | None, contexts: list[RetrievedContext], answer: str,
             sub_questions: list[str], thresholds: CriticSettings, *, vocab: Vocabulary) -> CriticVerdict:
    """Pass = the structural checks hold AND the learned verdict says the direct answer answers.

    The score is 10 × the verdict's calibrated probability, a point off per structural issue (an
    out-of-range marker, a name no source uses). ``thresholds.pass_score`` moves the calibrated pass
    threshold by its distance from the default 7 (a point of score is 0.1 of probability).
    """
    st = structure(question, intent, contexts, answer, sub_questions, vocab=vocab)
    if st.abstains and not relevant_indexes(contexts, st.prof) and not evidence_gate(question, intent, contexts,
                                                                                      vocab=vocab):
        strength = verdict.evidence_strength(contexts, st.prof, st.scored)
        return CriticVerdict(passed=True, score=round(10 * (1 - strength), 2), completeness=1.0, faithfulness=1.0,
                             feedback="Honest abstention: no retrieved sentence reads as an answer to the question.")
    if st.abstains:
        best = sorted(st.scored, key=lambda sp: -sp[1])[:4]
        where = ", ".join(f"[{c}]" for c in dict.fromkeys(m for s, _ in best for m in s.cited))
        st.missing.append(f"an answer: the draft claims no evidence, but sources {where} bear on the question")
        p = 0.0
    else:
        p = verdict_probability(question, intent, contexts, answer, sub_questions, st)
    out_of_range = [i for i in st.issues if "out of range" in i]
    if out_of_range:
        st.missing.append("citations in range")
    threshold = verdict.pass_threshold(_judged(intent, st)) + (thresholds.pass_score - 7.0) / 10
    learned_ok = p >= threshold
    if not learned_ok and not st.abstains and _judged_by_structure(intent, st):
        learned_ok, p = True, max(p, threshold)  # its score is at least the pass mark
    if not learned_ok:
        st.missing += st.hints or ["a direct answer: the first paragraph does not answer the question"]
    completeness = sum(st.checks) / len(st.checks) if st.checks else (1.0 if st.found else 0.0)
    score = 10 * p - sum(1.0 for i in st.issues if "out of range" in i or i.startswith("no retrieved source names"))
    score = round(max(0.0, min(10.0, score)), 2)
    passed = (learned_ok and not st.missing and bool(answer.strip())
              and st.faithfulness >= thresholds.min_faithfulness and completeness >= thresholds.min_completeness)
    issues = (["missing: " + "; ".join(st.missing)] if st.missing else []) + st.issues
    return CriticVerdict(passed=passed, score=score, completeness=round(completeness, 3),
                         faithfulness=round(st.faithfulness, 3), feedback=_feedback(st.missing, issues, passed),
                         issues=issues, suggested_queries=[q for q in dict.fromkeys(q.strip() for q in st.queries) if q][:4])


def _by_metadata(prof, intent: Intent | None, contexts: list[RetrievedContext], found: list[Claim]) -> bool:
    """Whether a question only about papers' publication (where, when, by whom) is answered by what their
    metadata says: the direct answer (every row, for a comparison) is a paper's publication sentence
    (:meth:`core.types.DocMeta.publication`), as the brain quotes it."""
    if not prof.publication_only or not found:
        return False
    published = {t.rstrip(".") for c in contexts if (t := publication_of(c))}
    judged = [c for c in found if c.subject] if intent is not None and intent.type == "comparative" else found[:1]
    return bool(judged) and all(strip_markers(c.text).strip().rstrip(".") in published for c in judged)


def _by_abstract(prof, contexts: list[RetrievedContext], found: list[Claim]) -> bool:
    """Whether a question about one paper as a whole (its idea, its problem: ``Profile.whole_paper``) is
    answered by that paper's abstract: every claim cites only chunks of the abstract of the paper the
    question asks about (:func:`~core.brains.offline.sides.gist_paper`)."""
    paper = gist_paper(contexts, prof) if found else None
    cited = [[contexts[m - 1] for m in markers(c.text) if 1 <= m <= len(contexts)] for c in found]
    return paper is not None and all(cs and all(x.doc_id == paper and in_abstract(x) for x in cs) for cs in cited)


def _rows_by_abstract(intent: Intent | None, prof, contexts: list[RetrievedContext], found: list[Claim]) -> bool:
    """Whether a comparison that asks what its sides are (:func:`~core.brains.offline.comparison.asks_overview`)
    is answered row by row from each side's own paper's abstract: two rows or more, and every cell claim
    cites only chunks of the abstract of its row's paper (:func:`~core.brains.offline.sides.side_papers`).
    The verdict reads such a row as it reads a gist: without the names it repeats, as no answer."""
    if intent is None or intent.type != "comparative" or not asks_overview(prof):
        return False
    rows = [c for c in found if c.subject]
    papers = side_papers(contexts, prof.entities, prof.vocab)
    cited = [(c.subject, [contexts[m - 1] for m in markers(c.text) if 1 <= m <= len(contexts)]) for c in rows]
    return len({name for name, _ in cited}) >= 2 and all(
        cs and all(x.doc_id == papers.get(name) and in_abstract(x) for x in cs) for name, cs in cited)


def _by_library(question: str, contexts: list[RetrievedContext], answer: str, found: list[Claim],
                vocab: Vocabulary) -> bool:
    """Whether a question about the library itself (``Profile.library`` of the question as typed: a
    follow-up's rewrite names the previous turn's paper) is answered by its list of papers
    (:mod:`core.strategies.library`): under the heading that counts them, each claim cites one paper,
    and no two claims the same one. Any other draft is judged as drafts are."""
    if not (found and LIBRARY_LISTING.match(answer.lstrip()) and profile(question, None, vocab=vocab).library):
        return False
    cited = [{contexts[m - 1].doc_id for m in markers(c.text) if 1 <= m <= len(contexts)} for c in found]
    return all(len(docs) == 1 for docs in cited) and len(set.union(*cited)) == len(found)


def _judged_by_structure(intent: Intent | None, st: Structure) -> bool:
    """A comparison table whose every entity × dimension cell is filled and backed, or a diff of two
    versions of one document, is judged by that structure: the learned verdict was trained on drafts
    that answer one question with one sentence, and scores a table row or a version diff out of its
    distribution (it failed correct two-row comparisons and correct diffs). So is a publication
    question answered from the papers' metadata (the verdict never saw such a sentence), and a question
    about one paper as a whole answered by the start of its abstract (the verdict reads the gist's words,
    "idea", "about", as words the answer must hold), and a question about the library answered by its
    list of papers, as long as each of its sentences is backed."""
    if st.by_metadata or st.by_abstract or st.by_library:
        return st.faithfulness == 1.0
    if intent is None or intent.type != "comparative" or not st.found:
        return False
    scoped = [split_version(e)[1] for e in intent.entities]
    if len(scoped) == 2 and all(v is not None for v in scoped):
        return True
    return any(c.subject for c in st.found) and bool(st.checks) and all(st.checks)



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
