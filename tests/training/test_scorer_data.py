"""The sentence scorer's training data: seeded, deterministic, and disjoint from every evaluation set."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from training.data.generate_scorer import build
from training.data.scorer_questions import question_for, synthetic_papers

EVAL_ROOT = Path("/work/shared/eval")


def runs(text: str, n: int = 4) -> set[tuple[str, ...]]:
    ws = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(ws[i:i + n]) for i in range(len(ws) - n + 1)}


def test_the_same_seed_gives_the_same_groups_and_another_seed_other_ones() -> None:
    a, b = build(seed=5, n_synthetic=6), build(seed=5, n_synthetic=6)
    assert json.dumps(a) == json.dumps(b)
    assert json.dumps(build(seed=6, n_synthetic=6)) != json.dumps(a)


def test_every_group_has_one_answer_and_hard_negatives_from_its_own_and_other_papers() -> None:
    train, held = build(seed=5, n_synthetic=6)
    assert train and held
    for g in train + held:
        assert sum(c["label"] for c in g["candidates"]) == 1
        assert any(not c["label"] and c["own"] for c in g["candidates"])
    assert any(not c["own"] for g in train for c in g["candidates"])
    # a paper's groups sit on one side of the split only
    assert not {g["paper"] for g in train} & {g["paper"] for g in held}


def test_a_table_row_gets_a_question_about_its_label_and_column() -> None:
    row = "In Table 3 (Accuracy on Foo and Bar), Zeta: Foo 81.2, Bar 77.0."
    qs = {question_for(row, "Zeta: A Model", random.Random(i)) for i in range(10)}
    assert all("Zeta" in q and "Foo" in q for q in qs)


def test_synthetic_papers_carry_rows_captions_and_numbers() -> None:
    (_, _, sents), *_ = synthetic_papers(3, 1)
    assert any(s.startswith("In Table ") for s in sents)
    assert any(s.startswith("Figure ") for s in sents)
    assert sum(bool(re.search(r"\d", s)) for s in sents) >= 5


@pytest.mark.skipif(not EVAL_ROOT.is_dir(), reason="no evaluation sets on this machine")
def test_no_generated_question_shares_a_four_word_run_with_an_evaluation_question() -> None:
    eval_runs: set[tuple[str, ...]] = set()
    for path in EVAL_ROOT.rglob("questions.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                eval_runs |= runs(json.loads(line)["question"])
    assert eval_runs
    train, held = build()  # the shipped seed and sizes
    shared = [g["question"] for g in train + held if runs(g["question"]) & eval_runs]
    assert shared == []


@pytest.mark.skipif(not EVAL_ROOT.is_dir(), reason="no evaluation sets on this machine")
def test_no_candidate_sentence_comes_from_an_evaluation_document() -> None:
    eval_sents = set()
    for path in EVAL_ROOT.rglob("docs/*.md"):
        eval_sents |= {ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if len(ln.split()) >= 8}
    train, held = build()
    texts = {c["text"] for g in train + held for c in g["candidates"]}
    assert not {t for t in texts if any(t in s for s in eval_sents if len(t) > 60)}
