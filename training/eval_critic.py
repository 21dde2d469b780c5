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
    per: dict[str, list[int]] = {}
    hits = 0
    for row, v in zip(rows, verdicts):
        ok = v is not None and v.passed == row["passed"]
        hits += ok
        per.setdefault(row["defect"], [0, 0])
        per[row["defect"]][0] += ok
        per[row["defect"]][1] += 1
    return {"n": len(rows), "pass_agreement": round(hits / len(rows), 4) if rows else 0.0,
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
    from core.models.critic_format import preference_messages

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


def evaluate_critic(data: str | Path = HELDOUT_FILE, *, model_dir: str | Path | None = None, limit: int = 40) -> dict:
    """Score the rule critic (all rows and the subset) and the local critic (subset) on the data."""
    rows = read_jsonl(data)
    if not rows:
        raise ValueError(f"{data}: no examples")
    subset = rows[: max(1, limit)]
    report: dict[str, Any] = {"data": str(data), "n": len(rows), "subset": len(subset)}
    rules = rule_critic()
    if rules is None:
        report["rules"] = None
        report["rules_note"] = "core.brains.offline.brain is not available; rule critic not scored"
    else:
        verdicts = _critique_all(rules, rows)
        report["rules"] = _agreement(rows, verdicts)
        report["rules_subset"] = _agreement(subset, verdicts[: len(subset)])
    if model_dir is not None:
        from core.models.critic import load_critic_dir

        critic = load_critic_dir(model_dir)
        model, tok = critic.model, critic.tokenizer
        raws = [critic.generate(r["prompt"]) for r in subset]
        from core.models.critic_format import parse_critique

        parsed = [parse_critique(t) for t in raws]
        report["local"] = {**_agreement(subset, parsed), "model": str(model_dir),
                           "parse_rate": round(sum(p is not None for p in parsed) / len(subset), 4),
                           "preference_accuracy": preference_accuracy(model, tok, subset),
                           "sample_output": raws[0][:400]}
    return report


def format_report(report: dict) -> str:
    lines = [f"critic evaluation on {report['data']} (n={report['n']}, local subset={report['subset']})"]
    if report.get("rules"):
        lines.append(f"rule critic: pass agreement {report['rules']['pass_agreement']:.3f} "
                     f"(subset {report['rules_subset']['pass_agreement']:.3f}) by defect {report['rules']['by_defect']}")
    else:
        lines.append(report.get("rules_note", "rule critic not scored"))
    if report.get("local"):
        loc = report["local"]
        lines.append(f"local critic: pass agreement {loc['pass_agreement']:.3f}, parse rate {loc['parse_rate']:.3f}, "
                     f"preference (likelihood / DPO reward) {loc['preference_accuracy']} by defect {loc['by_defect']}")
    return "\n".join(lines)
