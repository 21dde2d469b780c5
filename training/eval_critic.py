"""Evaluate critics on held-out critic pairs: the rule critic and, when given, the local DPO critic.

* ``pass_agreement`` – share of examples where the critic's pass/fail matches the label (a clean
  answer passes, a corrupted one fails); reported with a per-defect breakdown.
* ``preference_accuracy`` (local model only) – share of pairs where the model prefers the chosen
  review: by raw log-likelihood, and by DPO's implicit reward (log-ratio to the adapter-free base).
* ``parse_rate`` (local model only) – share of generated reviews the tolerant parser could read.

Generation is slow on CPU, so the local model scores the first ``limit`` examples; the rule critic
always scores them all, and is also reported on the same subset for a like-for-like comparison.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from core.state import CriticVerdict, Intent, RetrievedContext
from training.data.generate_critic import HELDOUT_FILE
from training.data.generate_router import read_jsonl


def _inputs(row: dict) -> tuple[str, Intent, list[RetrievedContext], str]:
    contexts = [RetrievedContext(content=c["content"], chunk_id=c["chunk_id"], title=c.get("title", ""))
                for c in row["contexts"]]
    return row["question"], Intent(type=row["intent"], confidence=1.0), contexts, row["answer"]


def _agreement(rows: list[dict], verdicts: list[CriticVerdict | None]) -> dict:
    """Pass/fail agreement with the labels, overall, balanced (mean of the pass and the fail
    recall, 0.5 for any constant critic) and per defect."""
    per: dict[str, list[int]] = {}
    by_label = {True: [0, 0], False: [0, 0]}
    hits = 0
    for row, v in zip(rows, verdicts):
        ok = v is not None and v.passed == row["passed"]
        hits += ok
        per.setdefault(row["defect"], [0, 0])
        per[row["defect"]][0] += ok
        per[row["defect"]][1] += 1
        by_label[bool(row["passed"])][0] += ok
        by_label[bool(row["passed"])][1] += 1
    recalls = [a / n for a, n in by_label.values() if n]
    return {"n": len(rows), "pass_agreement": round(hits / len(rows), 4) if rows else 0.0,
            "balanced": round(sum(recalls) / len(recalls), 4) if recalls else 0.0,
            "by_defect": {d: round(a / n, 4) for d, (a, n) in sorted(per.items())}}


def rule_critic() -> Any | None:
    try:
        from core.brains.offline.brain import OfflineBrain
    except ImportError:
        return None
    return OfflineBrain()


def _critique_all(critic: Any, rows: list[dict]) -> list[CriticVerdict | None]:
    async def run() -> list[CriticVerdict | None]:
        out = []
        for row in rows:
            q, intent, ctx, answer = _inputs(row)
            out.append(await critic.critique(q, intent, ctx, answer, []))
        return out

    return asyncio.run(run())


def preference_accuracy(model: Any, tokenizer: Any, rows: list[dict]) -> dict:
    """How often the model prefers ``chosen`` over ``rejected``.

    ``likelihood``: log p(chosen) > log p(rejected) under the tuned model (raw, length-sensitive).
    ``reward``: DPO's implicit reward, log-ratio to the reference (adapter disabled), is higher for
    chosen – the quantity DPO optimises; only for PEFT models.
    """
    from core.models.critic import completion_logp
    from core.prompts.local_critic import preference_messages

    def logp(prompt_text: str, completion: str) -> float:
        return completion_logp(model, tokenizer, prompt_text, completion)

    has_ref = hasattr(model, "disable_adapter")
    likes, rewards = 0, 0
    for row in rows:
        prompt = tokenizer.apply_chat_template(preference_messages(row), tokenize=False, add_generation_prompt=True)
        ch, rj = logp(prompt, row["chosen"]), logp(prompt, row["rejected"])
        likes += ch > rj
        if has_ref:
            with model.disable_adapter():
                ref_ch, ref_rj = logp(prompt, row["chosen"]), logp(prompt, row["rejected"])
            rewards += (ch - ref_ch) > (rj - ref_rj)
    n = max(1, len(rows))
    return {"likelihood": round(likes / n, 4), "reward": round(rewards / n, 4) if has_ref else None}


def stratified(rows: list[dict], key: str, limit: int) -> list[dict]:
    """Up to ``limit`` rows taken round-robin over the values of ``key`` (file order within each)."""
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(row[key], []).append(row)
    out: list[dict] = []
    queues = [list(g) for _, g in sorted(groups.items())]
    while len(out) < limit and any(queues):
        for q in queues:
            if q and len(out) < limit:
                out.append(q.pop(0))
    return out


def majority(rows: list[dict]) -> float:
    """Agreement of the constant critic that always gives the commoner verdict."""
    passed = sum(r["passed"] for r in rows)
    return round(max(passed, len(rows) - passed) / len(rows), 4) if rows else 0.0


def verdict_by_likelihood(model: Any, tokenizer: Any, row: dict) -> CriticVerdict:
    """Only the verdict line, chosen by likelihood (what the guided critic starts its review with)."""
    from core.models.critic import VERDICT_LINES, completion_logp
    from core.prompts.local_critic import critic_messages

    start = tokenizer.apply_chat_template(critic_messages(row["prompt"]), tokenize=False, add_generation_prompt=True)
    line = max(VERDICT_LINES, key=lambda v: completion_logp(model, tokenizer, start, v))
    return CriticVerdict(passed=line.endswith("pass"), score=8.0 if line.endswith("pass") else 4.0,
                         completeness=0.5, faithfulness=0.5)


def evaluate_critic(data: str | Path = HELDOUT_FILE, *, model_dir: str | Path | None = None, limit: int = 40) -> dict:
    """Score the rule critic (all rows and the subset) and the local critic (subset) on the data.

    The subset is stratified over the defects (clean answers included) so a slow local model sees
    every kind; ``majority`` is the constant always-the-commoner-verdict critic, the bar to beat.
    """
    rows = read_jsonl(data)
    if not rows:
        raise ValueError(f"{data}: no examples")
    subset = stratified(rows, "defect", max(1, limit))
    report: dict[str, Any] = {"data": str(data), "n": len(rows), "subset": len(subset),
                              "majority": majority(rows), "majority_subset": majority(subset)}
    rules = rule_critic()
    if rules is None:
        report["rules"] = None
        report["rules_note"] = "core.brains.offline.brain is not available; rule critic not scored"
    else:
        verdicts = _critique_all(rules, rows)
        report["rules"] = _agreement(rows, verdicts)
        by_id = {id(r): v for r, v in zip(rows, verdicts)}
        report["rules_subset"] = _agreement(subset, [by_id[id(r)] for r in subset])
    if model_dir is not None:
        from core.models.critic import load_critic_dir

        critic = load_critic_dir(model_dir)
        model, tok = critic.model, critic.tokenizer
        raws = [critic.generate(r["prompt"]) for r in subset]
        from core.prompts.local_critic import parse_critique

        parsed = [parse_critique(t) for t in raws]
        base = None
        if hasattr(model, "disable_adapter"):  # the same verdict choice without the DPO adapter
            with model.disable_adapter():
                base = _agreement(subset, [verdict_by_likelihood(model, tok, r) for r in subset])
        report["local"] = {**_agreement(subset, parsed), "model": str(model_dir), "base_pass_agreement": base,
                           "parse_rate": round(sum(p is not None for p in parsed) / len(subset), 4),
                           "preference_accuracy": preference_accuracy(model, tok, subset),
                           "sample_output": raws[0][:400]}
    return report


def format_report(report: dict) -> str:
    lines = [f"critic evaluation on {report['data']} (n={report['n']}, local subset={report['subset']}, "
             f"stratified by defect)",
             f"always the commoner verdict: {report['majority']:.3f} (subset {report['majority_subset']:.3f}), "
             f"balanced 0.5"]
    if report.get("rules"):
        lines.append(f"rule critic: pass agreement {report['rules']['pass_agreement']:.3f}, balanced "
                     f"{report['rules']['balanced']:.3f} (subset {report['rules_subset']['pass_agreement']:.3f} / "
                     f"{report['rules_subset']['balanced']:.3f}) by defect {report['rules']['by_defect']}")
    else:
        lines.append(report.get("rules_note", "rule critic not scored"))
    if report.get("local"):
        loc = report["local"]
        base = loc["base_pass_agreement"]
        lines.append(f"local critic: pass agreement {loc['pass_agreement']:.3f}, balanced {loc['balanced']:.3f} "
                     f"(base without the adapter: {base and (base['pass_agreement'], base['balanced'])}), "
                     f"parse rate {loc['parse_rate']:.3f}, "
                     f"preference (likelihood / DPO reward) {loc['preference_accuracy']} by defect {loc['by_defect']}")
    return "\n".join(lines)
