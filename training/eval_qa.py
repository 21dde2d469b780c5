"""Answer-quality evaluation on a user's own documents (``paperpilot eval qa``): questions and scores.

:mod:`training.eval_qa_run` asks the questions through the real agent; here each finished turn
is scored and the rows summarized. Each question of the scored run gets a fresh session, and
long-term fact memory is off, so no answer leaks into a later question.

Questions are JSONL rows ``{id, question, label, docs, must_contain_any, history}`` (the
``realpapers`` format): ``docs: []`` marks a question no document answers. Scores:

- gold-term accuracy: the answer contains one of ``must_contain_any`` (verbatim, case-sensitive);
- right-document rate: a cited source comes from one of ``docs`` (matched by file stem);
- citation validity: every ``[n]`` of the final answer names a source retrieved in that turn, and
  how many markers the formatter had to drop from drafts;
- claim-level citation precision (ALCE-style): of all (claim, cited source) pairs of the final
  answers, the share whose source supports the claim (:mod:`core.citations`: content words,
  numbers and names present), and how many unsupported citations the turns re-pointed or dropped;
- abstention: recall on unanswerable questions, false-abstention rate on answerable ones;
- routing: accuracy per label and language, confusion matrix, expected calibration error;
- critic: pass rate on answers that miss the gold term (should be low) and that contain it (high);
- per strategy, and p50/p95 seconds per turn, LLM calls and tokens;
- the stricter measures of :mod:`training.eval_qa_measures` (answer-first gold, per-document
  comparative gold, the critic's reliability curve, claim support before repair, recalled material)
  and :mod:`training.eval_qa_provenance` (cited text from reference lists, page furniture, headings).

A default-settings run (:func:`training.eval_qa_run.evaluate_qa`) asks the questions a second time
as a user would: long-term memory on, one after another, each in a new session (facts a session wrote
itself are never recalled in it); it reports how many answers carry recalled material and how much of it
is unrelated to the question.

:func:`score` and :func:`summarize` are pure, so the scoring is tested on its own.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core.citations import claim_support
from core.state import INTENT_TYPES
from training import eval_qa_measures as m
from training.eval_qa_provenance import flags as provenance_flags
from training.eval_router import _percentile

LABELS = list(INTENT_TYPES)
ABSTAIN_RE = re.compile(r"knowledge base (?:holds|has|contains) no evidence|no evidence in the knowledge base", re.I)
MARKER_RE = re.compile(r"\[(\d+)\]")
FALLBACK_NOTE = "used the offline brain for this step"  # core.brains.llm.brain's notices
CJK_RE = re.compile(r"[\u4e00-\u9fff]")
SUFFIXES = (".md", ".markdown", ".txt", ".pdf", ".docx", ".pptx")


@dataclass
class Question:
    id: str
    question: str
    label: str
    docs: list[str]
    gold: list[str]
    history: list[dict] = field(default_factory=list)

    @property
    def lang(self) -> str:
        return "zh" if CJK_RE.search(self.question) else "en"

    @property
    def answerable(self) -> bool:
        return bool(self.docs)


def load_questions(path: str | Path) -> list[Question]:
    """Read the questions file; a bad row raises ValueError naming its line."""
    out: list[Question] = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            label = row["label"]
            if label not in LABELS:
                raise ValueError(f"unknown label {label!r}")
            out.append(Question(id=str(row.get("id", n)), question=row["question"], label=label,
                                docs=list(row.get("docs", [])), gold=list(row.get("must_contain_any", [])),
                                history=list(row.get("history", []))))
        except (ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}:{n}: not a question row ({exc})") from None
    return out


@dataclass
class Outcome:
    """What one turn produced, as scored (one JSON-friendly record per question)."""

    id: str
    label: str
    lang: str
    answerable: bool
    predicted: str | None
    confidence: float
    router: str
    strategy: str
    gold_hit: bool
    right_doc: bool
    citations_valid: bool
    dropped_markers: int
    abstained: bool
    critic_passed: bool
    forced: bool
    seconds: float
    llm_calls: int
    tokens: int
    cited_docs: list[str]
    answer: str
    error: str = ""
    critic_feedback: str = ""
    claims_supported: int = 0  # (claim, cited source) pairs whose source supports the claim
    claims_cited: int = 0  # all (claim, cited source) pairs of the answer
    citations_changed: int = 0  # unsupported citations the turn re-pointed or dropped
    llm_fallbacks: int = 0  # LLM steps whose reply was unusable or failed its check (offline answered)
    offline_drafts: int = 0  # of those, synthesis steps: the LLM's draft was replaced by the offline draft
    offline_answer: bool = False  # the turn floor delivered the offline brain's own answer (core.nodes.turn_floor)
    question: str = ""
    answer_first_hit: bool = False  # a gold string inside the direct answer (eval_qa_measures.direct_answer)
    per_doc_hit: bool | None = None  # comparative over >= 2 docs: each doc's own gold in its own cited unit
    critic_score: float | None = None  # the verdict's score, 0-10
    draft_claims_supported: int = 0  # as claims_*, on the draft before the formatter repaired citations
    draft_claims_cited: int = 0
    recalled: list[str] = field(default_factory=list)  # pieces of the "From earlier sessions" line
    unrelated_recalled: list[str] = field(default_factory=list)  # those no document of the question holds
    provenance: list[str] = field(default_factory=list)  # citations of references, furniture, glued headings
    sources: list[dict] = field(default_factory=list)  # index, title, doc, page of each cited source
    session: str = ""  # the session the question was asked in


def doc_slug(source: str, doc_id: str = "") -> str:
    """A source's document slug: its file stem (``.../bert.md`` → ``bert``), else its doc id."""
    name = Path(source).name if source else ""
    for suffix in SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name or doc_id


def score(q: Question, result: Any, *, seconds: float, dropped_markers: int = 0, citations_changed: int = 0,
          llm_fallbacks: int = 0, error: str = "", draft: str | None = None, contexts: list | None = None,
          doc_texts: dict[str, str] | None = None, doc_titles: dict[str, str] | None = None,
          profiles: dict | None = None) -> Outcome:
    """Score one finished turn (a :class:`core.events.TurnResult`, or ``None`` when it failed).

    ``draft`` and ``contexts`` are the draft as composed and the chunks its ``[n]`` index (claim
    support before repair; without them the final answer's counts stand in); ``doc_texts`` is each
    document's ingested text by slug (gold ownership, recalled material) and ``doc_titles`` its
    title (a recalled fact names its paper by title); ``profiles`` the PDFs' provenance profiles
    (:mod:`training.eval_qa_provenance`).
    """
    if result is None:
        return Outcome(q.id, q.label, q.lang, q.answerable, None, 0.0, "", "", False, False, True, 0, False,
                       False, False, seconds, 0, 0, [], "", error or "turn failed", question=q.question)
    answer = result.final_answer or ""
    sources = list(result.sources or [])
    cited = [doc_slug(s.source, s.doc_id) for s in sources]
    indexes = {s.index for s in sources}
    marks = [int(m) for m in MARKER_RE.findall(answer)]
    intent = result.intent
    critic = result.critic
    supported, pairs = claim_support(answer, sources)
    source_docs = {s.index: doc_slug(s.source, s.doc_id) for s in sources}
    doc_texts = doc_texts or {}
    d_supported, d_pairs = m.draft_support(draft, contexts or []) if draft is not None else (supported, pairs)
    recalled = m.recalled_pieces(answer)
    per_doc = (m.per_document_hit(answer, source_docs, q.docs, q.gold, doc_texts)
               if q.label == "comparative" and len(q.docs) >= 2 else None)
    return Outcome(
        id=q.id, label=q.label, lang=q.lang, answerable=q.answerable,
        predicted=intent.type if intent else None, confidence=float(intent.confidence) if intent else 0.0,
        router=intent.router if intent else "", strategy=result.strategy or "",
        gold_hit=any(g in answer for g in q.gold),
        right_doc=any(c in q.docs for c in cited),
        citations_valid=all(m in indexes for m in marks) and all(s.chunk_id for s in sources),
        dropped_markers=dropped_markers,
        abstained=bool(ABSTAIN_RE.search(answer)) and not sources,
        critic_passed=bool(critic and critic.passed and not critic.forced), forced=bool(critic and critic.forced),
        seconds=round(seconds, 3), llm_calls=int(result.llm_calls or 0),
        tokens=int((result.tokens or {}).get("total", 0)), cited_docs=list(dict.fromkeys(cited)), answer=answer,
        error=error, critic_feedback=critic.feedback if critic else "",
        claims_supported=supported, claims_cited=pairs, citations_changed=citations_changed,
        llm_fallbacks=llm_fallbacks, question=q.question,
        answer_first_hit=m.answer_first_hit(answer, q.gold), per_doc_hit=per_doc,
        critic_score=float(critic.score) if critic else None,
        draft_claims_supported=d_supported, draft_claims_cited=d_pairs,
        recalled=recalled, unrelated_recalled=m.unrelated_pieces(recalled, q.docs, doc_texts, doc_titles),
        provenance=provenance_flags(answer, source_docs, profiles or {}),
        sources=[{"index": s.index, "title": s.title, "doc": source_docs[s.index], "page": s.page} for s in sources],
    )


def _rate(hits: int, n: int) -> float | None:
    return round(hits / n, 4) if n else None


def calibration_error(confidences: list[float], correct: list[bool], bins: int = 10) -> float:
    """Expected calibration error: bin-weighted |accuracy − mean confidence| over equal-width bins."""
    if not confidences:
        return 0.0
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, c in enumerate(confidences) if (lo < c <= hi) or (b == 0 and c == 0.0)]
        if idx:
            acc = sum(correct[i] for i in idx) / len(idx)
            conf = sum(confidences[i] for i in idx) / len(idx)
            total += len(idx) / len(confidences) * abs(acc - conf)
    return round(total, 4)


def _answer_scores(rows: list[Outcome]) -> dict:
    ans = [o for o in rows if o.answerable]
    unans = [o for o in rows if not o.answerable]
    return {
        "n": len(rows), "answerable": len(ans), "unanswerable": len(unans),
        "gold_term": _rate(sum(o.gold_hit for o in ans), len(ans)),
        "answer_first_gold": _rate(sum(o.answer_first_hit for o in ans), len(ans)),
        "right_document": _rate(sum(o.right_doc for o in ans), len(ans)),
        "citation_validity": _rate(sum(o.citations_valid for o in rows), len(rows)),
        "claim_citation_precision": _rate(sum(o.claims_supported for o in rows), sum(o.claims_cited for o in rows)),
        "claim_precision_before_repair": _rate(sum(o.draft_claims_supported for o in rows),
                                               sum(o.draft_claims_cited for o in rows)),
        "abstention_recall": _rate(sum(o.abstained for o in unans), len(unans)),
        "false_abstention": _rate(sum(o.abstained for o in ans), len(ans)),
        "false_answer": _rate(sum(not o.abstained for o in unans), len(unans)),
    }


def summarize(rows: list[Outcome]) -> dict:
    """The report: answer scores overall and per strategy, routing, critic, cost and time."""
    report = _answer_scores(rows)
    report["errors"] = sum(1 for o in rows if o.error)
    report["dropped_markers"] = sum(o.dropped_markers for o in rows)
    report["citations_changed"] = sum(o.citations_changed for o in rows)
    report["llm_fallbacks"] = sum(o.llm_fallbacks for o in rows)
    report["offline_draft_turns"] = sum(o.offline_drafts > 0 for o in rows)
    report["offline_answer_turns"] = sum(o.offline_answer for o in rows)
    # routing
    routed = [o for o in rows if o.predicted]
    idx = {label: i for i, label in enumerate(LABELS)}
    matrix = [[0] * len(LABELS) for _ in LABELS]
    for o in routed:
        matrix[idx[o.label]][idx[o.predicted]] += 1
    per_label = {label: _rate(matrix[i][i], sum(matrix[i])) for label, i in idx.items()}
    per_lang = {}
    for lang in sorted({o.lang for o in rows}):
        sub = [o for o in routed if o.lang == lang]
        per_lang[lang] = _rate(sum(o.predicted == o.label for o in sub), len(sub))
    correct = [o.predicted == o.label for o in routed]
    report["router"] = {
        "accuracy": _rate(sum(correct), len(routed)), "per_label": per_label, "per_language": per_lang,
        "confusion": {"labels": LABELS, "matrix": matrix},
        "ece": calibration_error([o.confidence for o in routed], correct),
        "routers": dict(sorted(_count(o.router for o in routed).items())),
    }
    # critic: does it notice a miss?
    ans = [o for o in rows if o.answerable and not o.error]
    miss = [o for o in ans if not o.gold_hit]
    hit = [o for o in ans if o.gold_hit]
    report["critic"] = {
        "pass_rate_on_miss": _rate(sum(o.critic_passed for o in miss), len(miss)), "misses": len(miss),
        "pass_rate_on_hit": _rate(sum(o.critic_passed for o in hit), len(hit)), "hits": len(hit),
        "forced": sum(o.forced for o in rows),
    }
    scored = [o for o in ans if o.critic_score is not None]
    curve, ece = m.reliability([o.critic_score / 10 for o in scored], [o.gold_hit for o in scored])
    report["critic"].update(reliability=curve, ece=ece)
    comp = [o for o in rows if o.per_doc_hit is not None]
    report["comparative"] = {"n": len(comp), "any_gold": _rate(sum(o.gold_hit for o in comp), len(comp)),
                             "per_document_gold": _rate(sum(bool(o.per_doc_hit) for o in comp), len(comp))}
    report["recalled"] = recall_summary(rows)
    bad = [o for o in rows if o.provenance]
    kinds = _count(f.split(":", 1)[0] for o in rows for f in o.provenance)
    report["provenance"] = {"answers": len(bad), "ids": [o.id for o in bad], "by_kind": kinds}
    report["per_strategy"] = {s: _answer_scores([o for o in rows if o.strategy == s])
                              for s in sorted({o.strategy for o in rows if o.strategy})}
    report["per_label"] = {label: _answer_scores([o for o in rows if o.label == label])
                           for label in LABELS if any(o.label == label for o in rows)}
    secs = [o.seconds for o in rows]
    report["seconds"] = {"p50": round(_percentile(secs, 0.5), 3) if secs else 0.0,
                         "p95": round(_percentile(secs, 0.95), 3) if secs else 0.0,
                         "total": round(sum(secs), 1)}
    report["llm"] = {"calls": sum(o.llm_calls for o in rows), "tokens": sum(o.tokens for o in rows)}
    return report


def recall_summary(rows: list[Outcome]) -> dict:
    """How many answers carry recalled material, and how much of it is unrelated to the question."""
    carry = [o for o in rows if o.recalled]
    unrelated = [o for o in rows if o.unrelated_recalled]
    return {"answers_with_recalled": len(carry), "pieces": sum(len(o.recalled) for o in rows),
            "unrelated_pieces": sum(len(o.unrelated_recalled) for o in rows),
            "answers_with_unrelated": len(unrelated), "unrelated_ids": [o.id for o in unrelated]}


def _count(items) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return out
