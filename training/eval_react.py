"""Evaluate the ReAct critical-step policy (``paperpilot train react``) on held-out step pairs.

* ``decision_agreement`` – the greedy reply's decision and action (strategy, ``search`` or
  ``answer``) match the chosen step's; per decision point (D1 first strategy, D2 continue or stop,
  D3 strategy switch); ``parse_rate`` – replies with a readable ``[Action]``.
* ``choice_accuracy`` – the policy used as a scorer, the way the agent would consult it: the
  decision's candidate lines (four strategies for D1, continue/stop for D2, switch/keep for D3)
  are scored by likelihood and the best must be the chosen step's; ``base_choice_accuracy`` is the
  same with the adapter disabled, so the report shows what DPO changed.
* ``preference_accuracy`` – the chosen step is more likely than the rejected one (raw likelihood)
  and has the higher DPO implicit reward (log-ratio to the adapter-free base).
* ``rules`` – the offline brain's rule router on D1 (its intent mapped to a strategy); the rule
  brain has no counterpart for D2/D3 on this data, so those are not scored for it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from core.models.critic import completion_logp
from training.data.generate_react_steps import HELDOUT_FILE
from training.data.generate_router import read_jsonl
from training.eval_critic import preference_accuracy, stratified

STRATEGIES = ("simple", "multi_hop", "comparative", "exploratory")
CANDIDATES = {  # the line that carries each decision, per decision point
    "D1_initial_strategy": [f"[Action] {s}" for s in STRATEGIES],
    "D2_continue_or_stop": ["[Decision] continue", "[Decision] stop"],
    "D3_strategy_switch": ["[Decision] switch", "[Decision] keep"],
}

def _by_point(rows: list[dict], hits: list[bool]) -> dict:
    per: dict[str, list[int]] = {}
    for row, ok in zip(rows, hits):
        per.setdefault(row["decision_point"], [0, 0])
        per[row["decision_point"]][0] += ok
        per[row["decision_point"]][1] += 1
    return {d: round(a / n, 4) for d, (a, n) in sorted(per.items())}


def rule_d1(rows: list[dict]) -> dict:
    """The rule router's strategy choice on the D1 rows."""
    from core.brains.offline.brain import OfflineBrain
    from core.state import Intent

    brain = OfflineBrain()
    d1 = [r for r in rows if r["decision_point"] == "D1_initial_strategy"]

    async def choose() -> list[str]:
        out = []
        for r in d1:
            decision = await brain.classify(r["question"], [])
            out.append(Intent(type=decision.type, confidence=decision.confidence).to_strategy())
        return out

    picks = asyncio.run(choose())
    hits = sum(p == r["strategy"] for p, r in zip(picks, d1))
    return {"n": len(d1), "D1_initial_strategy": round(hits / len(d1), 4) if d1 else None}


def generate_step(model: Any, tokenizer: Any, prompt: str, max_new_tokens: int = 48) -> str:
    from core.models.critic import generate_reply
    from core.prompts.local_critic import react_step_messages

    return generate_reply(model, tokenizer, react_step_messages(prompt), max_new_tokens)


def chosen_line(row: dict) -> str:
    """The chosen step's deciding line (its first line), as in ``CANDIDATES``."""
    return row["chosen"].splitlines()[0].strip()


def choose(model: Any, tokenizer: Any, row: dict) -> str:
    """The candidate line the model finds most likely for this step."""
    from core.prompts.local_critic import react_step_messages

    prompt = tokenizer.apply_chat_template(react_step_messages(row["prompt"]), tokenize=False,
                                           add_generation_prompt=True)
    return max(CANDIDATES[row["decision_point"]], key=lambda c: completion_logp(model, tokenizer, prompt, c))


def evaluate_react(data: str | Path = HELDOUT_FILE, *, model_dir: str | Path | None = None, limit: int = 30) -> dict:
    """Rule baseline on all rows; the local policy (when given) on ``limit`` rows taken round-robin
    over the decision points."""
    rows = read_jsonl(data)
    if not rows or "decision_point" not in rows[0]:
        raise ValueError(f"{data}: no ReAct step pairs (rows need decision_point)")
    subset = stratified(rows, "decision_point", max(1, limit))
    report: dict[str, Any] = {"data": str(data), "n": len(rows), "subset": len(subset), "rules": rule_d1(rows)}
    if model_dir is not None:
        from core.models.critic import load_dpo_adapter
        from core.prompts.local_critic import parse_react_step

        path = Path(model_dir).expanduser()
        model, tok, _ = load_dpo_adapter(path, "paperpilot train react")
        raws = [generate_step(model, tok, r["prompt"]) for r in subset]
        parsed = [parse_react_step(t) for t in raws]
        hits = [p is not None and p == parse_react_step(r["chosen"]) for p, r in zip(parsed, subset)]
        picks = [choose(model, tok, r) == chosen_line(r) for r in subset]
        base_picks: list[bool] | None = None
        if hasattr(model, "disable_adapter"):  # the same scorer without the DPO adapter
            with model.disable_adapter():
                base_picks = [choose(model, tok, r) == chosen_line(r) for r in subset]
        report["local"] = {
            "model": str(path),
            "choice_accuracy": round(sum(picks) / len(subset), 4), "choice_by_decision_point": _by_point(subset, picks),
            "base_choice_accuracy": round(sum(base_picks) / len(subset), 4) if base_picks is not None else None,
            "decision_agreement": round(sum(hits) / len(subset), 4),
            "by_decision_point": _by_point(subset, hits),
            "parse_rate": round(sum(p is not None for p in parsed) / len(subset), 4),
            "preference_accuracy": preference_accuracy(model, tok, subset), "sample_output": raws[0][:300]}
    return report


def format_report(report: dict) -> str:
    lines = [f"ReAct step evaluation on {report['data']} (n={report['n']}, local subset={report['subset']})",
             f"rule router, first strategy (D1, n={report['rules']['n']}): {report['rules']['D1_initial_strategy']}"]
    if report.get("local"):
        loc = report["local"]
        lines.append(f"local policy, scored choice: {loc['choice_accuracy']:.3f} {loc['choice_by_decision_point']} "
                     f"(base without the adapter: {loc['base_choice_accuracy']})")
        lines.append(f"local policy, generated: decision agreement {loc['decision_agreement']:.3f} {loc['by_decision_point']}, "
                     f"parse rate {loc['parse_rate']:.3f}, preference (likelihood / DPO reward) "
                     f"{loc['preference_accuracy']}")
    return "\n".join(lines)
