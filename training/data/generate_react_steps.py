"""ReAct critical-step DPO pairs (ADR-003 §4.3): the three decisions worth optimising.

* ``D1_initial_strategy`` – given the question, pick the first strategy
  (simple / multi_hop / comparative / exploratory); rejected = a plausible but wrong one.
* ``D2_continue_or_stop`` – given the actions and observations so far, continue (with a query) when
  evidence is partial or missing, stop when it is sufficient; rejected = the opposite call
  (stopping early, or over-retrieving).
* ``D3_strategy_switch`` – the current strategy keeps returning one-sided or empty evidence: switch to
  the fitting one; rejected = repeat the same action.

Same ``{prompt, chosen, rejected}`` format as the critic pairs, plus ``decision_point`` and ``question``.
Held-out lines use held-out entities. ``python -m training.data.generate_react_steps`` regenerates.
"""

from __future__ import annotations

import random

from training.data import vocab as V
from training.data.generate_router import DATA_DIR, generator_main

TRAIN_FILE = DATA_DIR / "react_steps_train.jsonl"
HELDOUT_FILE = DATA_DIR / "react_steps_heldout.jsonl"
DEFAULT_SEED = 19
STRATEGIES = ("simple", "multi_hop", "comparative", "exploratory")
WRONG = {"simple": "exploratory", "multi_hop": "simple", "comparative": "simple", "exploratory": "simple"}
REASONS = {
    "simple": "one source states this fact; a single lookup is enough",
    "multi_hop": "the answer chains two facts; plan sub-questions and resolve them in order",
    "comparative": "two methods on the same dimensions; retrieve evidence for each side in parallel",
    "exploratory": "an open survey; search iteratively and judge sufficiency after each step",
}


def _question(rng: random.Random, pairs: list, ents: list, topics: list) -> tuple[str, str, list[str]]:
    kind = rng.choice(STRATEGIES)
    a, b = rng.choice(pairs)
    dim = rng.choice(V.DIMENSIONS_EN)
    if kind == "simple":
        return f"What {rng.choice(V.ATTRIBUTES_EN)} does {rng.choice(ents)} use?", kind, []
    if kind == "comparative":
        return f"Compare {a} and {b} in {dim}.", kind, [a, b]
    if kind == "multi_hop":
        return f"How does {a} build on {b} to {rng.choice(V.GOALS_EN)}?", kind, [b, a]
    return f"Trace how {rng.choice(topics)} evolved from {b} to {a}.", kind, [b, a]


def _d1(question: str, kind: str) -> dict:
    prompt = f"Question: {question}\nChoose the first strategy (simple | multi_hop | comparative | exploratory):"
    return {"decision_point": "D1_initial_strategy", "prompt": prompt,
            "chosen": f"[Action] {kind}\n[Reason] {REASONS[kind]}",
            "rejected": f"[Action] {WRONG[kind]}\n[Reason] {REASONS[WRONG[kind]]}"}


def _d2(rng: random.Random, question: str, kind: str, ents: list[str]) -> dict:
    target = ents[0] if ents else "the asked fact"
    other = ents[1] if len(ents) > 1 else "the details"
    if rng.random() < 0.5:  # evidence still partial → continue
        obs = f"found evidence about {target}, nothing yet about {other}"
        chosen = f"[Decision] continue\n[Action] search: {other}\n[Reason] {other} is still missing"
        rejected = "[Decision] stop\n[Action] answer\n[Reason] enough information (wrong: one side is missing)"
        level = "partially_sufficient"
    else:  # evidence complete → stop
        obs = f"found evidence about {target} and {other}, with citations for every part of the question"
        chosen = "[Decision] stop\n[Action] answer\n[Reason] every part of the question is covered"
        rejected = f"[Decision] continue\n[Action] search: more about {target}\n[Reason] more detail (wrong: over-retrieval)"
        level = "fully_sufficient"
    prompt = (f"Question: {question}\n[History]\n- Action: search: {target}\n- Result: {obs}\n"
              f"[Observation] sufficiency = {level}\nContinue retrieving or stop?")
    return {"decision_point": "D2_continue_or_stop", "prompt": prompt, "chosen": chosen, "rejected": rejected}


def _d3(question: str, kind: str, ents: list[str]) -> dict:
    current = WRONG[kind]
    prompt = (f"Question: {question}\n[Current strategy] {current}\n[History]\n- search: {question}\n"
              f"- search: {question} details\n[Observation] both searches returned the same "
              f"{'single-sided' if ents else 'off-topic'} chunks\nKeep the strategy or switch?")
    return {"decision_point": "D3_strategy_switch", "prompt": prompt,
            "chosen": f"[Decision] switch\n[Action] {kind}\n[Reason] {REASONS[kind]}",
            "rejected": f"[Decision] keep\n[Action] {current}\n[Reason] search again with the same query"}


def generate(seed: int = DEFAULT_SEED, n_train: int = 150, n_heldout: int = 40) -> tuple[list[dict], list[dict]]:
    """Return (train, heldout) lists of critical-step pairs (three per question)."""
    rng = random.Random(seed)
    out: dict[str, list[dict]] = {"train": [], "heldout": []}
    seen: set[str] = set()
    for split, n, pairs, ents, topics in (
        ("train", n_train, V.PAIRS_TRAIN, V.ENTITIES_TRAIN, V.TOPICS_EN_TRAIN),
        ("heldout", n_heldout, V.PAIRS_HELDOUT, V.ENTITIES_HELDOUT, V.TOPICS_EN_HELDOUT),
    ):
        questions, tries = 0, 0
        while questions < n and tries < n * 30:
            tries += 1
            question, kind, qents = _question(rng, pairs, ents, topics)
            if question in seen:
                continue
            seen.add(question)
            questions += 1
            for row in (_d1(question, kind), _d2(rng, question, kind, qents), _d3(question, kind, qents)):
                out[split].append({**row, "question": question, "strategy": kind})
        rng.shuffle(out[split])
    return out["train"], out["heldout"]


def main(argv: list[str] | None = None) -> int:
    return generator_main(argv, __doc__, generate, DEFAULT_SEED, TRAIN_FILE, HELDOUT_FILE, "react critical-step pairs")


if __name__ == "__main__":
    raise SystemExit(main())
