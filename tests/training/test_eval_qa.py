"""The real-paper QA harness: scoring on known outcomes, and a whole run through the real agent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.events import TurnResult
from core.state import CriticVerdict, Intent, Source
from training.eval_qa import Question, calibration_error, doc_slug, load_questions, score, summarize


def _result(answer: str, *, docs: list[str], intent: str = "factual", confidence: float = 0.9,
            passed: bool = True, forced: bool = False, strategy: str = "simple") -> TurnResult:
    sources = [Source(index=i + 1, chunk_id=f"{d}#0", doc_id=d, source=f"/x/{d}.md") for i, d in enumerate(docs)]
    return TurnResult(question="q", session_id="s", trace_id="t", intent=Intent(type=intent, confidence=confidence),
                      strategy=strategy, final_answer=answer, sources=sources,
                      critic=CriticVerdict(passed=passed, score=8, completeness=1, faithfulness=1, forced=forced),
                      retry_count=0, llm_calls=2, tokens={"total": 30}, timings_ms={})


Q_FACT = Question("f1", "Which GLUE result does BERT report?", "factual", ["bert"], ["80.5%"])
Q_UNANS = Question("u1", "What is the boiling point of tungsten?", "factual", [], [])
Q_FUP = Question("p1", "And its parameter count?", "follow_up", ["albert"], ["18x fewer"],
                 [{"role": "user", "content": "What is ALBERT?"}, {"role": "assistant", "content": "A lite BERT."}])
Q_ZH = Question("z1", "BERT 的 GLUE 分数是多少？", "factual", ["bert"], ["80.5%"])


def test_known_outcomes_give_the_expected_scores() -> None:
    rows = [
        score(Q_FACT, _result("BERT pushes the GLUE score to 80.5% [1].", docs=["bert"]), seconds=1.0),
        # a miss the critic wrongly passed, citing the wrong paper
        score(Q_FUP, _result("ALBERT uses a self-supervised loss [1].", docs=["bert"], intent="factual"), seconds=2.0),
        # an honest abstention on the unanswerable question
        score(Q_UNANS, _result("The knowledge base holds no evidence about tungsten.", docs=[]), seconds=0.5),
        # a false abstention, routed wrongly and forced through
        score(Q_ZH, _result("The knowledge base holds no evidence to answer it.", docs=[], intent="comparative",
                            confidence=0.6, passed=False, forced=True, strategy="comparative"), seconds=3.0),
    ]
    r = summarize(rows)
    assert (r["answerable"], r["unanswerable"]) == (3, 1)
    assert r["gold_term"] == pytest.approx(1 / 3, abs=1e-3)
    assert r["right_document"] == pytest.approx(1 / 3, abs=1e-3)
    assert r["citation_validity"] == 1.0
    assert r["abstention_recall"] == 1.0
    assert r["false_abstention"] == pytest.approx(1 / 3, abs=1e-3)
    assert r["false_answer"] == 0.0
    assert r["router"]["accuracy"] == 0.5
    assert r["router"]["per_language"] == {"en": pytest.approx(2 / 3, abs=1e-3), "zh": 0.0}
    assert r["router"]["per_label"]["follow_up"] == 0.0
    matrix = r["router"]["confusion"]["matrix"]
    labels = r["router"]["confusion"]["labels"]
    assert matrix[labels.index("follow_up")][labels.index("factual")] == 1
    critic = {k: v for k, v in r["critic"].items() if k not in ("reliability", "ece")}
    assert critic == {"pass_rate_on_miss": 0.5, "misses": 2, "pass_rate_on_hit": 1.0, "hits": 1, "forced": 1}
    assert r["critic"]["reliability"] == [{"bin": "0.7-0.8", "n": 3, "mean_score": 0.8, "accuracy": 0.3333}]
    assert r["per_strategy"]["comparative"]["false_abstention"] == 1.0
    assert r["seconds"]["p50"] in (1.0, 2.0) and r["seconds"]["p95"] == 3.0
    assert r["llm"] == {"calls": 8, "tokens": 120}


def test_an_out_of_range_marker_is_an_invalid_citation() -> None:
    row = score(Q_FACT, _result("BERT reaches 80.5% [2].", docs=["bert"]), seconds=1.0)
    assert row.gold_hit and not row.citations_valid


def test_a_failed_turn_counts_as_a_miss() -> None:
    row = score(Q_FACT, None, seconds=1.0, error="MCP server gone")
    r = summarize([row])
    assert r["errors"] == 1 and r["gold_term"] == 0.0 and row.predicted is None


def test_calibration_error() -> None:
    assert calibration_error([1.0, 1.0], [True, True]) == 0.0
    assert calibration_error([0.9, 0.9], [False, False]) == pytest.approx(0.9)
    assert calibration_error([0.75, 0.75, 0.75, 0.75], [True, True, True, False]) == pytest.approx(0.0)


def test_doc_slug() -> None:
    assert doc_slug("/papers/vit_mae.md") == "vit_mae"
    assert doc_slug("/papers/kosmos-2.pdf") == "kosmos-2"
    assert doc_slug("", "bert-1a2b3c") == "bert-1a2b3c"


def test_load_questions_names_a_bad_line(tmp_path: Path) -> None:
    f = tmp_path / "q.jsonl"
    f.write_text(json.dumps({"question": "x", "label": "factual"}) + "\n{\"question\": \"y\", \"label\": \"nope\"}\n")
    with pytest.raises(ValueError, match=r"q.jsonl:2"):
        load_questions(f)


CORPUS = {
    "albatross.md": "# Albatross: Sparse Routing for Long Documents\nAuthors: A. Writer\n\n## Abstract\n"
                    "We present Albatross, a sparse routing transformer for long documents. Albatross routes "
                    "each token to 4 of 64 expert blocks and processes inputs of 32,768 tokens. On the "
                    "LongBench suite Albatross reaches an average score of 47.3, ahead of dense baselines.\n",
    "pelican.md": "# Pelican: Contrastive Speech Pre-training\nAuthors: B. Author\n\n## Abstract\n"
                  "Pelican learns speech representations with a contrastive objective over 12,000 hours of "
                  "unlabeled audio. Fine-tuned on ten minutes of labeled data, Pelican reaches a word error "
                  "rate of 5.2 on the clean test set.\n",
}


@pytest.mark.slow
def test_a_whole_run_through_the_real_agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ingest a two-paper corpus, ask through the real agent (stdio hub), score it."""
    import asyncio

    from core.config import load_settings
    from training.eval_qa_run import collection_for, evaluate_qa, ingest_corpus

    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    corpus = tmp_path / "papers"
    corpus.mkdir()
    for name, text in CORPUS.items():
        (corpus / name).write_text(text, encoding="utf-8")
    questions = [
        Question("a", "How many hours of unlabeled audio was Pelican pre-trained on?", "factual", ["pelican"],
                 ["12,000 hours"]),
        Question("b", "What average LongBench score does Albatross reach?", "factual", ["albatross"], ["47.3"]),
        Question("c", "What is the boiling point of tungsten?", "factual", [], []),
        Question("d", "And what word error rate does it reach?", "follow_up", ["pelican"], ["5.2"],
                 [{"role": "user", "content": "What is Pelican?"},
                  {"role": "assistant", "content": "Pelican is a contrastive speech pre-training method."}]),
    ]
    settings = load_settings(use_user_file=False)
    collection = collection_for(corpus)
    assert collection == collection_for(corpus) and collection.startswith("eval-papers-")
    assert len(ingest_corpus(settings, corpus, collection).added) == 2
    report = asyncio.run(evaluate_qa(settings, questions, collection=collection, corpus=corpus,
                                     default_settings=True))
    rows = {r["id"]: r for r in report["rows"]}
    assert report["errors"] == 0
    assert rows["a"]["gold_hit"] and rows["a"]["cited_docs"][0] == "pelican"
    assert rows["b"]["gold_hit"] and rows["b"]["right_doc"]
    assert rows["c"]["abstained"] and report["abstention_recall"] == 1.0
    assert rows["d"]["gold_hit"], rows["d"]["answer"]  # "it" resolved against the replayed history
    assert report["citation_validity"] == 1.0 and report["false_abstention"] == 0.0
    # the draft was read back from the session: its claims were counted before the formatter's repair
    assert sum(r["draft_claims_cited"] for r in report["rows"]) >= 3
    assert report["answer_first_gold"] is not None and report["provenance"]["answers"] == 0
    seq = report["default_settings"]
    assert seq["n"] == 4 and len(seq["rows"]) == 4 and {"answers_with_recalled", "answers_with_unrelated"} <= set(
        seq["recalled"])
    # a session never recalls the facts it wrote itself, so the memory-on run asks each question in a
    # session of its own (in one shared session its recall measure could not fail)
    assert len({r["session"] for r in seq["rows"]}) == 4
