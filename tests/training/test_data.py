"""The committed training data: reproducible from the seed, balanced, bilingual, honest held-out split."""

from __future__ import annotations

import re
from collections import Counter

from training.data import generate_critic, generate_react_steps, generate_router
from training.data import vocab as V
from training.data.generate_router import LABELS, read_jsonl


def test_router_data_is_reproducible_and_matches_committed_files():
    train, heldout = generate_router.generate()
    assert train == read_jsonl(generate_router.TRAIN_FILE)
    assert heldout == read_jsonl(generate_router.HELDOUT_FILE)
    assert generate_router.generate(seed=99) != (train, heldout)


def test_router_data_shape_and_balance():
    train, heldout = generate_router.generate()
    assert len(train) + len(heldout) >= 800
    counts = Counter(r["label"] for r in train + heldout)
    assert set(counts) == set(LABELS) and min(counts.values()) >= 100
    assert {r["lang"] for r in train} == {"en", "zh"} and {r["lang"] for r in heldout} == {"en", "zh"}
    for row in train + heldout:
        assert set(row) >= {"question", "history", "label"}
        assert all(m["role"] in ("user", "assistant") and m["content"] for m in row["history"])
    assert all(r["history"] for r in train + heldout if r["label"] == "follow_up")
    with_history = Counter(r["label"] for r in train if r["history"])
    assert all(with_history[label] >= 50 for label in LABELS)  # history alone never gives the label away


def test_router_heldout_never_seen_in_training():
    train, heldout = generate_router.generate()
    norm = lambda q: " ".join(q.lower().split())  # noqa: E731
    assert not {norm(r["question"]) for r in train} & {norm(r["question"]) for r in heldout}
    train_text = " ".join(r["question"] + " " + " ".join(m["content"] for m in r["history"]) for r in train)
    named = lambda e, text: re.search(rf"(?<![\w-]){re.escape(e)}(?![\w-])", text)  # noqa: E731
    held_entities = [e for e in V.R_MODELS_HELDOUT if e not in V.R_MODELS_TRAIN and not named(e, train_text)]
    assert len(held_entities) == len(V.R_MODELS_HELDOUT), "held-out models must be absent from training rows"
    assert sum(any(e in r["question"] for e in held_entities) for r in heldout) >= 0.5 * len(heldout)


def test_router_lineage_rows_keep_the_label_definitions_and_reach_the_split():
    """A one-paper ask (factual) names no second paper or system; every lineage row is in the split."""
    import random

    from training.data import router_lineage

    for forms in router_lineage.TEMPLATES["factual"].values():
        assert not [t for t in forms if "{P2}" in t or "{S2}" in t]
    rows = router_lineage.generate(random.Random(f"lineage-{generate_router.DEFAULT_SEED}"))
    assert Counter(r["label"] for r in rows) == Counter(router_lineage.COUNTS)
    assert {r["lang"] for r in rows} == {"en", "zh"} and sum(bool(r["history"]) for r in rows) >= 50
    committed = {r["question"] for r in read_jsonl(generate_router.TRAIN_FILE)}
    assert {r["question"] for r in rows} <= committed


def test_router_heldout_templates_and_vocabulary_are_disjoint_from_training():
    from training.data import router_templates as T

    for label, langs in T.TEMPLATES.items():
        for lang, (train_tpl, held_tpl) in langs.items():
            assert train_tpl and held_tpl and not set(train_tpl) & set(held_tpl), (label, lang)
    for lang in ("en", "zh"):
        for pool in (T.PREFIXES, T.SUFFIXES, T.HISTORY_QUESTIONS, T.HISTORY_ANSWERS):
            assert not set(pool[lang][0]) & set(pool[lang][1]) - {""}
    pairs = [(n, getattr(V, n), getattr(V, n.replace("_TRAIN", "_HELDOUT"))) for n in dir(V)
             if n.startswith("R_") and n.endswith("_TRAIN")]
    assert len(pairs) >= 20
    for name, train_pool, held_pool in pairs:
        assert not set(train_pool) & set(held_pool), name


def test_router_data_is_varied():
    """Many question forms and both languages in every label; decoy histories; multi-clause questions."""
    train, _ = generate_router.generate()
    for label in LABELS:
        rows = [r for r in train if r["label"] == label]
        assert len({r["question"] for r in rows}) >= 0.85 * len(rows) >= 800
        assert sum(r["lang"] == "zh" for r in rows) >= 200
    factual = [r["question"] for r in train if r["label"] == "factual" and r["lang"] == "en"]
    for form in ("Which ", "What ", "How many", "According to", "Does ", "Who ", "Is ", "Did ", "Name "):
        assert sum(q.startswith(form) or f": {form}" in q for q in factual) >= 5, form
    assert any("'" in q and "paper" in q for q in factual)  # a paper named by its quoted title
    assert sum(len(q.split()) >= 18 for q in factual) >= 30  # long, multi-clause questions
    decoys = [r for r in train if r["history"] and r["label"] != "follow_up"]
    assert len(decoys) >= 0.3 * len([r for r in train if r["label"] != "follow_up"])


def test_critic_pairs_cover_every_defect():
    train, heldout = generate_critic.generate()
    assert train == read_jsonl(generate_critic.TRAIN_FILE) and heldout == read_jsonl(generate_critic.HELDOUT_FILE)
    assert len(train) >= 500
    assert set(Counter(r["defect"] for r in train)) == set(generate_critic.DEFECTS)
    for row in train[:50]:
        assert row["prompt"] and row["chosen"] != row["rejected"]
        assert row["passed"] == (row["defect"] == "clean")
        assert ("VERDICT: pass" in row["chosen"]) == row["passed"]
    assert len({r["prompt"] for r in train + heldout}) == len(train) + len(heldout)


def test_react_critical_step_pairs():
    train, heldout = generate_react_steps.generate()
    assert train == read_jsonl(generate_react_steps.TRAIN_FILE)
    points = Counter(r["decision_point"] for r in train)
    assert set(points) == {"D1_initial_strategy", "D2_continue_or_stop", "D3_strategy_switch"}
    assert all(r["chosen"] != r["rejected"] for r in train + heldout)
    assert not {r["question"] for r in train} & {r["question"] for r in heldout}


def test_react_step_replies_parse_into_decision_and_action():
    from core.prompts.local_critic import parse_react_step
    from training.eval_react import CANDIDATES, STRATEGIES, chosen_line

    rows = read_jsonl(generate_react_steps.TRAIN_FILE) + read_jsonl(generate_react_steps.HELDOUT_FILE)
    assert all(chosen_line(r) in CANDIDATES[r["decision_point"]] for r in rows)
    parsed = {r["decision_point"]: parse_react_step(r["chosen"]) for r in rows if r["chosen"].count("[") >= 2}
    decision, action = parsed["D1_initial_strategy"]
    assert decision == "" and action in STRATEGIES  # D1 replies name a strategy and no [Decision]
    assert parse_react_step("[Decision] continue\n[Action] search: LoRA rank") == ("continue", "search")
    assert parse_react_step("Pros: 10x faster") is None
