"""The critic verdict's training data: seeded, labelled by construction, and never from evaluation text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from training.data import generate_verdict
from training.data.generate_scorer import build

EVAL_ROOT = Path("/work/shared/eval")


def _groups():
    train, _ = build(seed=5, n_synthetic=6)
    return [g for g in train if g["paper"].startswith("synthetic:")][:4] + train[:2]


def test_the_same_seed_gives_the_same_rows_and_each_group_has_answers_and_misses() -> None:
    groups = _groups()
    a, b = generate_verdict.rows(groups, seed=3), generate_verdict.rows(groups, seed=3)
    assert json.dumps(a) == json.dumps(b)
    kinds = {(r.get("kind"), r["label"]) for r in a if r["task"] == "verdict"}
    assert {("answer", 1), ("topical", 0), ("other_paper", 0)} <= kinds
    assert any(k == "composed" for k, _ in kinds)
    # the evidence gate's own draft, with and without the question's paper (never an answer without it)
    assert any(k == "gate_own" for k, _ in kinds) and ("gate_other", 0) in kinds and ("gate_other", 1) not in kinds
    gate = [r for r in a if r["task"] == "gate"]
    assert {r["label"] for r in gate} == {0, 1} and len(gate) == 2 * len(groups)


def test_overview_and_chain_drafts_come_with_and_without_the_answering_sentence() -> None:
    """The brain's overviews and chains are training drafts too, judged on their prose (the ``prose``
    feature set): composed from the chunks (most quote the answer) and from the chunks without the
    answering sentence (never an answer), so a prose draft that misses the answer is a labelled miss."""
    from core.brains.offline.verdict import FEATURES

    rows = generate_verdict.rows(_groups(), seed=3)
    prose_at = FEATURES.index("prose")
    for kind in generate_verdict.PROSE_DRAFTS:
        sub = [r for r in rows if r.get("kind") == kind]
        assert {r["label"] for r in sub} == {0, 1}, kind
        assert all(r["x"][prose_at] == 1.0 for r in sub)
    assert all(r["x"][prose_at] == 0.0 for r in rows if r["task"] == "verdict" and r["kind"] not in generate_verdict.PROSE_DRAFTS)


def test_a_direct_answer_composed_without_the_answering_sentence_is_a_miss_judged_on_what_was_retrieved() -> None:
    """The brain's direct answer when retrieval missed the answering sentence: composed from the chunks
    without it, labelled a miss, and featurized against those same chunks (the answering sentence is
    no runner-up there, so only the draft itself can tell the miss)."""
    import random

    from core.brains.offline import OfflineBrain
    from core.brains.offline.critic import verdict_inputs

    groups = _groups()
    rows = generate_verdict.rows(groups, seed=3)
    sub = [r for r in rows if r.get("kind") == generate_verdict.UNRETRIEVED]
    assert sub and all(r["label"] == 0 for r in sub)
    g = next(g for g in groups if any(r["question"] == g["question"] for r in sub))
    answer = next(c["text"] for c in g["candidates"] if c["label"])
    drafts = generate_verdict.drafts(g, random.Random(0), OfflineBrain())
    text = next(t for k, t, _ in drafts if k == generate_verdict.UNRETRIEVED)
    assert not generate_verdict.quotes(text, answer)
    ctxs, _ = generate_verdict.contexts_of(g)
    lacking = generate_verdict.without(ctxs, answer)
    row = next(r for r in sub if r["question"] == g["question"])
    assert row["x"] == [round(v, 6) for v in verdict_inputs(g["question"], None, lacking, text, [],
                                                                vocab=generate_verdict.NO_NAMES)]
    assert row["x"] != [round(v, 6) for v in verdict_inputs(g["question"], None, ctxs, text, [],
                                                                vocab=generate_verdict.NO_NAMES)]


def test_leaving_a_sentence_out_keeps_every_chunk_and_its_place() -> None:
    from core.types import RetrievedContext

    ctxs = [RetrievedContext(content="A one.\nA two.", chunk_id="a#0"), RetrievedContext(content="B one.", chunk_id="b#0")]
    assert [c.content for c in generate_verdict.without(ctxs, "A two.")] == ["A one.", "B one."]
    assert generate_verdict.without(ctxs, "B one.") == []  # a chunk left empty: no such draft


def test_gate_only_rows_are_exactly_the_gate_drafts_of_the_full_rows() -> None:
    """Refitting the gate alone (``--gate-only``) sees the same gate rows as a full regeneration."""
    groups = _groups()
    full = generate_verdict.rows(groups, seed=3)
    gate = [r for r in full if r.get("kind") in ("gate_own", "gate_other")]
    assert gate and generate_verdict.rows(groups, seed=3, gate_only=True) == gate


def test_a_cut_short_draft_quotes_only_the_start_of_the_answer() -> None:
    g = next(g for g in _groups() if len(next(c["text"] for c in g["candidates"] if c["label"]).split()) >= 9)
    import random

    from core.brains.offline import OfflineBrain

    cut = next(t for k, t, _ in generate_verdict.drafts(g, random.Random(0), OfflineBrain()) if k == "cut_short")
    answer = next(c["text"] for c in g["candidates"] if c["label"])
    assert answer.startswith(re.sub(r"\s*\[\d+\]$", "", cut)) and not generate_verdict.quotes(cut, answer)


def test_two_paper_questions_give_gate_drafts_with_both_papers_one_of_them_or_neither() -> None:
    import random

    train, _ = build(seed=5, n_synthetic=12)
    named = [g for g in train if generate_verdict._named(g)][::7][:40]
    rows = generate_verdict.paired(named, random.Random(0))
    forms = {(r["kind"], r["form"]) for r in rows}
    assert {("gate_own", "comparison"), ("gate_other", "comparison"), ("gate_own", "two_part"),
            ("gate_other", "two_part"), ("gate_own", "one_side")} <= forms
    assert all(r["label"] == int(r["kind"] == "gate_own") for r in rows)
    assert rows == generate_verdict.paired(named, random.Random(0))
    a = named[0]
    b = next(g for g in named if generate_verdict._named(g) != generate_verdict._named(a))
    for keep in ({a["paper"], b["paper"]}, {b["paper"]}, set()):
        ctxs = generate_verdict.paired_contexts(a, b, keep)
        papers = {c.chunk_id.rsplit("#", 1)[0] for c in ctxs}
        assert ctxs and papers & {a["paper"], b["paper"]} == keep
        assert all(bool(c.title) == (c.chunk_id.rsplit("#", 1)[0] in keep) for c in ctxs)


def _runs(text: str, n: int = 4) -> set[tuple[str, ...]]:
    ws = re.findall(r"[a-z0-9]+", text.lower())
    return {tuple(ws[i:i + n]) for i in range(len(ws) - n + 1)}


@pytest.mark.skipif(not EVAL_ROOT.is_dir(), reason="no evaluation sets on this machine")
def test_no_training_group_comes_from_an_evaluation_document_or_question() -> None:
    """Every verdict row is built from one of these groups (the shipped seed and sizes)."""
    eval_lines = {ln.strip() for p in EVAL_ROOT.rglob("docs/*.md")
                  for ln in p.read_text(encoding="utf-8").splitlines() if len(ln.split()) >= 8}
    eval_runs: set[tuple[str, ...]] = set()
    for path in EVAL_ROOT.rglob("questions.jsonl"):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                eval_runs |= _runs(json.loads(line)["question"])
    assert eval_lines and eval_runs
    train, held = build()
    groups = train + held
    assert groups
    texts = {c["text"] for g in groups for c in g["candidates"] if len(c["text"]) > 60}
    assert not [t for t in texts if any(t in line for line in eval_lines)]
    assert not [g["question"] for g in groups if _runs(g["question"]) & eval_runs]
    import random

    rng = random.Random(generate_verdict.SEED + 1)
    named = [g for g in groups if generate_verdict._named(g)]
    for form in ("comparison", "two_part"):  # every frame of the joined two-paper questions, over many pairs
        joined = [q for a, b in zip(named, named[7:]) for f, q in [generate_verdict.paired_question(a, b, rng)] if f == form]
        assert joined and not [q for q in joined if _runs(q) & eval_runs]
    rows = generate_verdict.rows(groups[:3])
    assert {r["paper"] for r in rows} <= {g["paper"] for g in groups[:3]}


def test_comparison_rows_judge_the_asked_papers_row_with_and_without_its_answer() -> None:
    """The comparison-row data: tables the brain composes for two named papers, the asked paper's row
    as the critic sees it. With the answering sentence in the evidence the label says whether the row
    quotes it (both occur); composed without it, the row is a miss. Seeded: the same rows twice."""
    import random

    from core.brains.offline import OfflineBrain

    train, _ = build(seed=5, n_synthetic=12)
    named = [g for g in train if generate_verdict._named(g)][::7][:24]
    rows = generate_verdict.comparison_rows(named, random.Random(0), OfflineBrain())
    kinds = {(r["kind"], r["label"]) for r in rows}
    assert (generate_verdict.ROW_COMPOSED, 1) in kinds and (generate_verdict.ROW_UNRETRIEVED, 0) in kinds
    # the same question composed without its answer is another table: its row's features differ
    composed = {r["question"]: r["x"] for r in rows if r["kind"] == generate_verdict.ROW_COMPOSED}
    pairs = [(composed[r["question"]], r["x"]) for r in rows
             if r["kind"] == generate_verdict.ROW_UNRETRIEVED and r["question"] in composed]
    assert pairs and all(a != b for a, b in pairs)
    assert all(r["task"] == "row" and len(r["x"]) == len(rows[0]["x"]) for r in rows)
    assert json.dumps(rows) == json.dumps(generate_verdict.comparison_rows(named, random.Random(0), OfflineBrain()))
