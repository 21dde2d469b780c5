"""Answer-quality evaluation on a user's own documents: ``paperpilot eval qa``.

The harness ingests a folder into its own collection, then asks every question through the real
agent (the same ``open_agent``/``run_turn`` path as ``paperpilot ask``), one process for the whole
run. A follow-up's ``history`` is written into its session's checkpoint first, exactly as an
earlier turn would have left it. Each question gets a fresh session, and long-term fact memory is
off, so no answer leaks into a later question; sessions and traces go to a temporary folder, the
hub is the user's.

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
- per strategy, and p50/p95 seconds per turn, LLM calls and tokens.

:func:`score` and :func:`summarize` are pure, so the scoring is tested on its own.
"""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable

from core.citations import claim_support
from core.state import INTENT_TYPES
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


def doc_slug(source: str, doc_id: str = "") -> str:
    """A source's document slug: its file stem (``.../bert.md`` → ``bert``), else its doc id."""
    name = Path(source).name if source else ""
    for suffix in SUFFIXES:
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name or doc_id


def score(q: Question, result: Any, *, seconds: float, dropped_markers: int = 0, citations_changed: int = 0,
          llm_fallbacks: int = 0, error: str = "") -> Outcome:
    """Score one finished turn (a :class:`core.events.TurnResult`, or ``None`` when it failed)."""
    if result is None:
        return Outcome(q.id, q.label, q.lang, q.answerable, None, 0.0, "", "", False, False, True, 0, False,
                       False, False, seconds, 0, 0, [], "", error or "turn failed")
    answer = result.final_answer or ""
    sources = list(result.sources or [])
    cited = [doc_slug(s.source, s.doc_id) for s in sources]
    indexes = {s.index for s in sources}
    marks = [int(m) for m in MARKER_RE.findall(answer)]
    intent = result.intent
    critic = result.critic
    supported, pairs = claim_support(answer, sources)
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
        llm_fallbacks=llm_fallbacks,
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
        "right_document": _rate(sum(o.right_doc for o in ans), len(ans)),
        "citation_validity": _rate(sum(o.citations_valid for o in rows), len(rows)),
        "claim_citation_precision": _rate(sum(o.claims_supported for o in rows), sum(o.claims_cited for o in rows)),
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


def _count(items) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return out


def collection_for(corpus: Path) -> str:
    """A collection named after the folder and its content: the same files reuse the same index."""
    h = hashlib.sha1()
    for path in sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    slug = re.sub(r"[^a-z0-9]+", "-", corpus.resolve().name.lower()).strip("-")[:24] or "corpus"
    return f"eval-{slug}-{h.hexdigest()[:8]}"


def ingest_corpus(settings: Any, corpus: Path, collection: str) -> Any:
    """Index ``corpus`` into ``collection`` of the user's hub (unchanged files are skipped)."""
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    store = HubStore(settings.paths.resolve(settings.paths.hub_db))
    return Ingestor(store).ingest([corpus], collection)


async def _seed_history(agent: Any, session_id: str, history: list[dict]) -> None:
    """Write an earlier exchange into the session, as a finished turn would have left it."""
    from langchain_core.messages import AIMessage, HumanMessage

    messages = []
    for n, msg in enumerate(history):
        role, content = msg.get("role"), str(msg.get("content", ""))
        cls = HumanMessage if role == "user" else AIMessage
        messages.append(cls(content=content, id=f"{session_id}-h{n}"))
    if messages:
        await agent.graph.aupdate_state({"configurable": {"thread_id": session_id}}, {"messages": messages},
                                        as_node="format_output")


async def run_questions(agent: Any, questions: list[Question],
                        on_done: Callable[[Outcome], None] | None = None) -> list[Outcome]:
    """Ask every question through ``agent.run_turn`` (fresh session each) and score it."""
    from core.events import AnswerReady, Notice, TurnFinished

    rows: list[Outcome] = []
    for i, q in enumerate(questions):
        session = f"eval-{i:04d}-{agent.new_session_id()}"
        await _seed_history(agent, session, q.history)
        t0 = time.perf_counter()
        result, error, dropped, changed, fallbacks = None, "", 0, 0, 0
        async for ev in agent.run_turn(q.question, session):
            if isinstance(ev, Notice) and FALLBACK_NOTE in ev.message:
                fallbacks += 1
            if isinstance(ev, AnswerReady):
                dropped, changed = len(ev.removed_markers), len(ev.citation_changes)
            if isinstance(ev, TurnFinished):
                result = ev.result
            elif ev.kind == "turn_failed":
                error = ev.error
        outcome = score(q, result, seconds=time.perf_counter() - t0, dropped_markers=dropped,
                        citations_changed=changed, llm_fallbacks=fallbacks, error=error)
        rows.append(outcome)
        if on_done:
            on_done(outcome)
    return rows


async def evaluate_qa(settings: Any, questions: list[Question], *, collection: str,
                      on_done: Callable[[Outcome], None] | None = None) -> dict:
    """Run the questions against ``collection`` with the configured brain; the report with every row."""
    from core.agent import open_agent

    with tempfile.TemporaryDirectory(prefix="paperpilot-eval-") as tmp:
        settings = settings.model_copy(deep=True)
        settings.paths.checkpoints_db = str(Path(tmp) / "checkpoints.sqlite3")
        settings.paths.state_db = str(Path(tmp) / "state.sqlite3")
        settings.memory.enabled = False  # facts learnt from one question must not answer the next
        settings.mcp.collection = collection
        async with open_agent(settings, collection=collection) as agent:
            brain = agent.brain_name
            rows = await run_questions(agent, questions, on_done)
    report = summarize(rows)
    report["brain"] = brain
    report["collection"] = collection
    report["rows"] = [asdict(o) for o in rows]
    return report


def format_report(report: dict) -> Any:
    """A Rich renderable: the headline table, routing per label/language, per strategy."""
    from rich.console import Group
    from rich.table import Table

    def pct(v: float | None) -> str:
        return "—" if v is None else f"{v:.2f}"

    head = Table(title=f"QA on {report['collection']} ({report['n']} questions, brain: {report['brain']})",
                 show_header=True)
    head.add_column("measure")
    head.add_column("value", justify="right")
    for label, key in (("gold-term accuracy", "gold_term"), ("right document", "right_document"),
                       ("citation validity", "citation_validity"),
                       ("claim-level citation precision", "claim_citation_precision"),
                       ("abstention recall", "abstention_recall"),
                       ("false abstention", "false_abstention"), ("false answer (unanswerable)", "false_answer")):
        head.add_row(label, pct(report[key]))
    r = report["router"]
    head.add_row("router accuracy", pct(r["accuracy"]))
    for lang, v in r["per_language"].items():
        head.add_row(f"  router ({lang})", pct(v))
    head.add_row("router ECE", f"{r['ece']:.3f}")
    c = report["critic"]
    head.add_row(f"critic pass on misses ({c['misses']})", pct(c["pass_rate_on_miss"]))
    head.add_row(f"critic pass on hits ({c['hits']})", pct(c["pass_rate_on_hit"]))
    head.add_row("seconds per turn p50 / p95", f"{report['seconds']['p50']:.2f} / {report['seconds']['p95']:.2f}")
    head.add_row("LLM calls / tokens", f"{report['llm']['calls']} / {report['llm']['tokens']}")
    if report.get("llm_fallbacks"):
        head.add_row("LLM steps answered offline (unusable or failed check)", str(report["llm_fallbacks"]))
    if report["errors"]:
        head.add_row("failed turns", str(report["errors"]))

    conf = Table(title="routing (rows: gold, columns: predicted)")
    conf.add_column("gold")
    for label in r["confusion"]["labels"]:
        conf.add_column(label[:11], justify="right")
    conf.add_column("recall", justify="right")
    for label, row in zip(r["confusion"]["labels"], r["confusion"]["matrix"]):
        conf.add_row(label, *map(str, row), pct(r["per_label"][label]))

    strat = Table(title="per strategy")
    for col in ("strategy", "n", "gold-term", "right doc", "false abst.", "abst. recall"):
        strat.add_column(col, justify="right" if col != "strategy" else "left")
    for name, s in report["per_strategy"].items():
        strat.add_row(name, str(s["n"]), pct(s["gold_term"]), pct(s["right_document"]), pct(s["false_abstention"]),
                      pct(s["abstention_recall"]))
    return Group(head, conf, strat)
