"""The comparison-cell training groups: one side of a comparison, answered by the sentence that
says what the paper's method is, against the paper's own sentences that share the aspect's words;
seeded, and disjoint from every evaluation set."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.brains.offline.text import content_terms
from training.data.generate_sides import build, shared_words
from training.data.scorer_questions import short_name

EVAL_ROOT = Path("/work/shared/eval")


def test_the_same_seed_gives_the_same_groups_and_another_seed_other_ones() -> None:
    assert json.dumps(build(seed=5)) == json.dumps(build(seed=5))
    assert json.dumps(build(seed=6)) != json.dumps(build(seed=5))


def test_a_group_asks_one_side_and_its_aspect_words_do_not_single_out_the_answer() -> None:
    train, held = build()
    assert len(train) >= 100 and held
    assert not {g["paper"] for g in train} & {g["paper"] for g in held}
    for g in train + held:
        name = short_name(g["title"])
        answers = [c["text"] for c in g["candidates"] if c["label"]]
        assert len(answers) == 1 and name in g["question"]
        assert all(c["own"] for c in g["candidates"])  # a cell reads only its paper
        # another sentence of the paper holds each of the answer's aspect words the question kept
        others = {t for c in g["candidates"] if not c["label"] for t in content_terms(c["text"])}
        kept = set(content_terms(g["question"])) & set(content_terms(answers[0])) - set(content_terms(name))
        assert kept <= others, g["question"]


def test_shared_words_are_the_answers_words_another_sentence_also_holds() -> None:
    assert shared_words("Kite adds sparse adapters to a frozen encoder.",
                        ["Encoders are usually fine-tuned whole.", "Sparse updates save memory."]) == ["sparse", "encoder"]


@pytest.mark.skipif(not EVAL_ROOT.is_dir(), reason="no evaluation sets on this machine")
def test_no_side_question_shares_a_four_word_run_with_an_evaluation_question() -> None:
    from tests.training.test_scorer_data import runs

    eval_runs: set[tuple[str, ...]] = set()
    for path in EVAL_ROOT.rglob("questions.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                eval_runs |= runs(json.loads(line)["question"])
    train, held = build()
    assert [g["question"] for g in train + held if runs(g["question"]) & eval_runs] == []
