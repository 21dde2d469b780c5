"""`paperpilot train` / `paperpilot eval` end to end through the real command parser."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paperpilot_tui.cli.main import main
from training.data.generate_critic import HELDOUT_FILE as CRITIC_HELDOUT
from training.data.generate_router import HELDOUT_FILE, read_jsonl, write_jsonl
from tests.support.extras import needs


@pytest.mark.slow
@needs("train")
def test_train_then_eval_router(tmp_path, capsys):
    out = tmp_path / "router"
    assert main(["train", "router", "--base", "minilm", "--max-steps", "2", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["steps"] == 2 and (out / "classifier_head.safetensors").exists()
    data = tmp_path / "few.jsonl"
    write_jsonl(data, read_jsonl(HELDOUT_FILE)[:8])
    assert main(["eval", "router", "--data", str(data), "--model", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == 8 and set(report["per_label"]) == {"factual", "comparative", "multi_hop",
                                                             "exploratory", "follow_up"}
    assert {"p50", "p95"} <= set(report["latency_ms"]) and len(report["confusion"]["matrix"]) == 5


@pytest.mark.slow
def test_eval_router_defaults_to_shipped_adapter_and_heldout(capsys):
    assert main(["eval", "router", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["data"].endswith("router_heldout.jsonl") and report["router"] == "lora:minilm"
    assert report["n"] == len(read_jsonl(HELDOUT_FILE))
    # The held-out split shares no template, wrapper or name with training (the previous adapter scores 0.74
    # on it); the shipped adapter with its signals and calibrated fallback scores 0.94.
    assert report["accuracy"] >= 0.92 and report["latency_ms"]["p95"] > 0
    # the rewritten held-out split (new forms, not dev skeletons): en 0.95, zh 0.86
    assert min(report["accuracy_by_lang"].values()) >= 0.84 and report["ece"] <= 0.06


DEV_QUESTIONS = Path(__file__).resolve().parents[3] / "shared" / "eval" / "realpapers" / "dev" / "questions.jsonl"


@pytest.mark.slow
@pytest.mark.skipif(not DEV_QUESTIONS.exists(), reason="the real-paper dev set is not checked out beside the repo")
def test_shipped_router_on_real_paper_questions(capsys):
    """Measured, never trained on: researchers' questions about real papers, English and Chinese."""
    assert main(["eval", "router", "--data", str(DEV_QUESTIONS), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    # trained on data that shares no 4-word run or near-paraphrase with these questions: 0.927 / 1.00
    assert min(report["accuracy_by_lang"].values()) >= 0.90, report["accuracy_by_lang"]
    assert report["per_label"]["follow_up"]["recall"] >= 0.90 and report["ece"] <= 0.08


def test_eval_critic_scores_the_rule_critic(tmp_path, capsys):
    data = tmp_path / "few.jsonl"
    write_jsonl(data, read_jsonl(CRITIC_HELDOUT)[:12])
    assert main(["eval", "critic", "--data", str(data), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n"] == 12 and "local" not in report
    assert report["rules"] is None or 0 <= report["rules"]["pass_agreement"] <= 1


def test_eval_react_scores_the_rule_router_on_first_strategy(tmp_path, capsys):
    assert main(["eval", "react", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["data"].endswith("react_steps_heldout.jsonl") and "local" not in report
    assert report["rules"]["n"] == 40 and 0 <= report["rules"]["D1_initial_strategy"] <= 1
    assert main(["eval", "react", "--data", str(CRITIC_HELDOUT)]) == 1  # critic pairs are not step pairs
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "decision_point" in err


def test_missing_model_is_one_line(tmp_path, capsys):
    assert main(["eval", "router", "--model", str(tmp_path / "nothing")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing" in err


def test_critic_agreement_is_balanced_and_the_subset_stratified():
    from core.state import CriticVerdict
    from training.eval_critic import _agreement, majority, stratified

    rows = [{"defect": "clean", "passed": True}] * 2 + [{"defect": d, "passed": False} for d in "abcdef" for _ in range(3)]
    subset = stratified(rows, "defect", 7)
    assert [r["defect"] for r in subset] == ["a", "b", "c", "clean", "d", "e", "f"]
    always_fail = [CriticVerdict(passed=False, score=3, completeness=0.5, faithfulness=0.5)] * len(rows)
    report = _agreement(rows, always_fail)
    assert report["pass_agreement"] == majority(rows) == 0.9 and report["balanced"] == 0.5


def test_eval_qa_refuses_a_negative_review_count_in_one_line(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"id": "a", "question": "What is it?", "label": "factual", "docs": []}) + "\n")
    code = main(["eval", "qa", "--corpus", str(tmp_path / "docs"), "--questions", str(questions), "--review", "-1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--review -1" in err and "Traceback" not in err


def test_eval_qa_review_sheet_holds_answered_questions_only(tmp_path):
    from paperpilot_tui.cli.eval import write_review

    rows = [{"id": "a", "question": "Q a?", "answer": "A [1].", "abstained": False, "error": "",
             "sources": [{"index": 1, "title": "T", "doc": "t", "page": None}]},
            {"id": "b", "question": "Q b?", "answer": "The knowledge base holds no evidence.", "abstained": True,
             "error": "", "sources": []},
            {"id": "c", "question": "Q c?", "answer": "", "abstained": False, "error": "hub gone", "sources": []}]
    out = tmp_path / "deep" / "sheet.md"
    assert write_review({"rows": rows, "collection": "x"}, 5, 0, out) == 1
    sheet = out.read_text()
    assert "## 1. a" in sheet and "Q b?" not in sheet and "Q c?" not in sheet
