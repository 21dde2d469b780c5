"""Calibrate the direct-answer critic's pass threshold on the tuning set's real answers.

``training.critic_verdict_train --direct-only`` chooses ``direct_pass_threshold`` on generated drafts:
the highest threshold that passes 95% of the held-out composed drafts that answer. Real questions
are worded unlike the generated ones, and on them the verdict rates right answers lower: on the
abstract dev set 10 of 60 right direct answers scored under that threshold (0.78), were retried for
nothing and delivered as forced passes. The issue asks for thresholds calibrated on dev, so this
applies the same rule to the tuning set's delivered answers: the highest threshold that passes
``--hit-pass`` of the direct answers that hold their gold string.

Input: ``paperpilot eval qa --json`` on the tuning set (``../shared/eval/realpapers/dev``; never the
validation set). A direct answer is an answerable question routed factual or follow_up and answered
by the simple strategy, not declined. Its verdict probability is its critic score plus the points the
critic took off (one per name no source uses, one per out-of-range marker), over 10; an answer the
structure passed reports at least the old threshold, so it never lowers the new one.

``python -m training.critic_dev_calibrate RESULT.json`` reports the calibrated threshold and the pass
rates at it and at the shipped one; ``--write`` stores it in ``core/models/critic_verdict.json`` with
where it came from (``direct_dev_calibration``). Session 37 wrote 0.624 and took it back: it passed a
non-answer that states another value of the asked measure (``tests/brains/test_offline_critic.py``,
verdict 0.72), so the shipped threshold is still the generated-data one (README, "Session 37").
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

WEIGHTS_FILE = Path(__file__).resolve().parents[1] / "core" / "models" / "critic_verdict.json"
DIRECT_INTENTS = ("factual", "follow_up")
_PENALTIES = ("no retrieved source names", "out of range")


def direct_answers(rows: list[dict]) -> list[tuple[float, bool]]:
    """(verdict probability, holds its gold string) for each direct answer among ``rows``."""
    out = []
    for r in rows:
        if not r.get("answerable") or r.get("abstained") or r.get("strategy") != "simple":
            continue
        if r.get("predicted") not in DIRECT_INTENTS or r.get("critic_score") is None:
            continue
        taken = sum((r.get("critic_feedback") or "").count(p) for p in _PENALTIES)
        out.append((min(1.0, (float(r["critic_score"]) + taken) / 10), bool(r.get("gold_hit"))))
    return out


def threshold(scored: list[tuple[float, bool]], hit_pass: float) -> float:
    """The highest threshold (rounded down to 0.001) at which at least ``hit_pass`` of the answers
    that hold their gold string pass."""
    hits = sorted(p for p, hit in scored if hit)
    if not hits:
        raise ValueError("no direct answer holds its gold string: nothing to calibrate on")
    allowed = int(math.floor(len(hits) * (1 - hit_pass) + 1e-9))  # how many right answers may fail
    return math.floor(hits[allowed] * 1000) / 1000


def report(scored: list[tuple[float, bool]], t: float) -> dict:
    hits = [p for p, hit in scored if hit]
    misses = [p for p, hit in scored if not hit]
    return {"threshold": t, "direct_answers": len(scored), "hits": len(hits), "misses": len(misses),
            "pass_on_hits": round(sum(p >= t for p in hits) / len(hits), 4) if hits else None,
            "pass_on_misses": round(sum(p >= t for p in misses) / len(misses), 4) if misses else None}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("result", type=Path, help="`paperpilot eval qa --json` output on the tuning set")
    ap.add_argument("--hit-pass", type=float, default=0.95, help="share of right direct answers that must pass")
    ap.add_argument("--write", action="store_true", help=f"store the threshold in {WEIGHTS_FILE.name}")
    ap.add_argument("--weights", type=Path, default=WEIGHTS_FILE)
    ap.add_argument("--set", default="realpapers/dev", help="the tuning set the result was run on (recorded)")
    args = ap.parse_args(argv)
    try:
        result = json.loads(args.result.read_text(encoding="utf-8"))
        scored = direct_answers(result["rows"])
        t = threshold(scored, args.hit_pass)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SystemExit(f"critic_dev_calibrate: cannot calibrate on {args.result} ({type(exc).__name__}: {exc})") from None
    data = json.loads(args.weights.read_text(encoding="utf-8"))
    out = {**report(scored, t), "hit_pass": args.hit_pass, "before": data["direct_pass_threshold"],
           "before_on_this_set": report(scored, data["direct_pass_threshold"])}
    print(json.dumps(out, indent=1))
    if args.write:
        data["direct_pass_threshold"] = t
        data["direct_dev_calibration"] = {"set": args.set, "tool": "training.critic_dev_calibrate",
                                          **{k: v for k, v in out.items() if k != "before_on_this_set"}}
        args.weights.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.weights}")


if __name__ == "__main__":
    main()
