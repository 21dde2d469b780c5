"""Evaluate an intent router on labelled JSONL: accuracy, per-label P/R/F1, confusion, ECE, latency.

Any JSONL with ``question``, ``label`` and ``history`` (chat messages) works: the router's own
held-out split, or a real-paper question set such as ``../shared/eval/realpapers/dev/questions.jsonl``
(rows without ``lang`` count as Chinese when the question has CJK characters). Accuracy is reported
overall, per label and per language, with the confusion matrix and the expected calibration error
(10 equal-width confidence bins). Latency is measured per question, one at a time (batch size 1, as
the agent calls it), after a short warm-up; p50/p95 are over every example. When the offline brain is
importable its rule router is scored on the same data for comparison.

``raw=True`` scores the LoRA model alone (no conversation signals, no fallback);
:func:`calibrate_threshold` picks the fallback threshold of ``core.brains.routing`` on held-out data.

    python -m training.eval_router [--data FILE] [--model DIR] [--raw] [--json]
    python -m training.eval_router --calibrate      # held-out split only, never the dev set
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from core.prompts.local_router import turns_from_chat
from core.state import INTENT_TYPES
from training.data.generate_router import HELDOUT_FILE, read_jsonl

LABELS = list(INTENT_TYPES)
_CJK = re.compile(r"[\u3400-\u9fff]")


def detect_lang(text: str) -> str:
    """``zh`` when the text has CJK characters, else ``en``."""
    return "zh" if _CJK.search(text) else "en"


def row_lang(row: dict) -> str:
    return row.get("lang") or detect_lang(row["question"])


def expected_calibration_error(confidences: list[float], correct: list[bool], bins: int = 10) -> float:
    """ECE: the bin-weighted gap |accuracy − mean confidence| over ``bins`` equal-width bins of (0, 1]."""
    if not confidences:
        return 0.0
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, c in enumerate(confidences) if lo < c <= hi or (b == 0 and c <= 0.0)]
        if idx:
            acc = sum(correct[i] for i in idx) / len(idx)
            conf = sum(confidences[i] for i in idx) / len(idx)
            total += len(idx) / len(confidences) * abs(acc - conf)
    return round(total, 4)


def classification_report(gold: list[str], pred: list[str], labels: list[str] = LABELS) -> dict:
    """Accuracy, per-label precision/recall/F1/support, macro F1 and the confusion matrix (rows = gold)."""
    idx = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, pred):
        matrix[idx[g]][idx[p]] += 1
    per_label = {}
    for label, i in idx.items():
        tp = matrix[i][i]
        fp = sum(matrix[r][i] for r in range(len(labels))) - tp
        fn = sum(matrix[i]) - tp
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        per_label[label] = {"precision": round(prec, 4), "recall": round(rec, 4), "f1": round(f1, 4),
                            "support": tp + fn}
    correct = sum(g == p for g, p in zip(gold, pred))
    return {
        "n": len(gold), "accuracy": round(correct / len(gold), 4) if gold else 0.0,
        "macro_f1": round(statistics.fmean(v["f1"] for v in per_label.values()), 4),
        "per_label": per_label, "confusion": {"labels": labels, "matrix": matrix},
    }


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def _rules_baseline(rows: list[dict]) -> dict | None:
    """Score the offline brain's rule router on the same rows, if that brain is installed."""
    try:
        from core.brains.offline.brain import OfflineBrain
    except ImportError:
        return None
    brain = OfflineBrain()

    async def run() -> list[str]:
        return [(await brain.classify(r["question"], turns_from_chat(r.get("history", [])))).type for r in rows]

    try:
        pred = asyncio.run(run())
    except Exception as exc:  # noqa: BLE001 - the baseline is informational only
        return {"error": f"{type(exc).__name__}: {exc}"[:200]}
    report = classification_report([r["label"] for r in rows], pred)
    return {"accuracy": report["accuracy"], "macro_f1": report["macro_f1"]}


def _classifier(router: Any, raw: bool):
    """The router's decision function: the model alone (``raw``) or the full decision."""
    if raw and hasattr(router, "model_sync"):
        return router.model_sync
    return router.classify_sync


def evaluate_router(router: Any, data: str | Path = HELDOUT_FILE, *, warmup: int = 5,
                    baseline: bool = True, raw: bool = False) -> dict:
    """Classify every row with ``router.classify_sync`` (``model_sync`` if ``raw``) and report quality and latency."""
    rows = read_jsonl(data)
    if not rows:
        raise ValueError(f"{data}: no examples")
    classify = _classifier(router, raw)
    for r in rows[:warmup]:
        classify(r["question"], turns_from_chat(r.get("history", [])))
    pred, latencies, langs, confidences, routers = [], [], {}, [], {}
    for r in rows:
        turns = turns_from_chat(r.get("history", []))
        t0 = time.perf_counter()
        decision = classify(r["question"], turns)
        latencies.append((time.perf_counter() - t0) * 1000)
        pred.append(decision.type)
        confidences.append(decision.confidence)
        kind = re.sub(r" \(p=[0-9.]+\)$", "", decision.router)
        routers[kind] = routers.get(kind, 0) + 1
        lang = row_lang(r)
        ok, n = langs.get(lang, (0, 0))
        langs[lang] = (ok + (decision.type == r["label"]), n + 1)
    report = classification_report([r["label"] for r in rows], pred)
    report["accuracy_by_lang"] = {k: round(ok / n, 4) for k, (ok, n) in sorted(langs.items())}
    report["n_by_lang"] = {k: n for k, (_, n) in sorted(langs.items())}
    report["ece"] = expected_calibration_error(confidences, [p == r["label"] for p, r in zip(pred, rows)])
    report["mean_confidence"] = round(statistics.fmean(confidences), 4)
    report["routers"] = dict(sorted(routers.items()))
    report["latency_ms"] = {"p50": round(_percentile(latencies, 0.5), 2), "p95": round(_percentile(latencies, 0.95), 2),
                            "mean": round(statistics.fmean(latencies), 2)}
    report["errors"] = [{"question": r["question"], "gold": r["label"], "pred": p}
                        for r, p in zip(rows, pred) if p != r["label"]][:20]
    report["router"] = getattr(router, "name", "?") + (" (model only)" if raw else "")
    report["data"] = str(data)
    if baseline:
        report["rules_baseline"] = _rules_baseline(rows)
    return report


def format_report(report: dict) -> str:
    """A short human-readable summary."""
    lines = [f"router {report['router']} on {report['data']} (n={report['n']})",
             f"accuracy {report['accuracy']:.4f}  macro-F1 {report['macro_f1']:.4f}  "
             f"latency p50 {report['latency_ms']['p50']} ms  p95 {report['latency_ms']['p95']} ms"]
    if "ece" in report:
        langs = "  ".join(f"{k} {v:.4f} (n={report.get('n_by_lang', {}).get(k, '?')})"
                          for k, v in report.get("accuracy_by_lang", {}).items())
        lines.append(f"ECE {report['ece']:.4f}  mean confidence {report['mean_confidence']:.4f}  by language: {langs}")
        if report.get("routers"):
            lines.append(f"decided by: {report['routers']}")
    for label, m in report["per_label"].items():
        lines.append(f"  {label:<12} P {m['precision']:.3f}  R {m['recall']:.3f}  F1 {m['f1']:.3f}  n={m['support']}")
    lines.append("confusion (rows gold, cols pred): " + " ".join(report["confusion"]["labels"]))
    for label, row in zip(report["confusion"]["labels"], report["confusion"]["matrix"]):
        lines.append(f"  {label:<12} {row}")
    if report.get("rules_baseline"):
        lines.append(f"rule router baseline: {report['rules_baseline']}")
    return "\n".join(lines)


def fit_temperature(router: Any, rows: list[dict],
                    grid: tuple[float, ...] = tuple(round(0.5 + 0.1 * i, 2) for i in range(46))) -> float:
    """The softmax temperature with the lowest negative log-likelihood on ``rows`` (held-out data)."""
    import math

    from core.models.router import softmax
    from core.prompts.local_router import format_router_input

    logits = [router.logits([format_router_input(r["question"], turns_from_chat(r.get("history", [])))])[0]
              for r in rows]
    gold = [router.labels.index(r["label"]) for r in rows]

    def nll(t: float) -> float:
        return -sum(math.log(max(1e-12, softmax(z, t)[g])) for z, g in zip(logits, gold)) / len(rows)

    return min(grid, key=lambda t: (round(nll(t), 6), t))


def calibrate_threshold(router: Any, data: str | Path = HELDOUT_FILE,
                        grid: tuple[float, ...] = tuple(round(0.05 * i, 2) for i in range(21)), *,
                        temperature: bool = True) -> dict:
    """Fit the softmax temperature, then pick the fallback threshold of ``core.brains.routing.combine``
    on ``data`` (the held-out split, never the dev set).

    For every threshold in ``grid`` the combined decision falls back to the rule router below it; the
    threshold with the best accuracy wins (ties: the lowest, i.e. the least fallback).
    """
    from core.brains.base import RouteDecision
    from core.brains.offline import router as rules
    from core.vocabulary import Vocabulary
    from core.brains.routing import combine

    rows = read_jsonl(data)
    if temperature:
        router.temperature = fit_temperature(router, rows)
    cases = []
    for r in rows:
        turns = turns_from_chat(r.get("history", []))
        intent, conf, probs, _ = rules.classify(r["question"], bool(turns), Vocabulary())
        cases.append((r, turns, router.model_sync(r["question"], turns),
                      RouteDecision(type=intent, confidence=conf, scores=probs, router="rules")))
    results = []
    for t in grid:
        ok, fell, conf, hit = 0, 0, [], []
        for r, turns, model, rule in cases:
            d = combine(model, r["question"], turns, threshold=t, fallback=lambda rule=rule: rule)
            ok += d.type == r["label"]
            fell += "→" in d.router
            conf.append(d.confidence)
            hit.append(d.type == r["label"])
        results.append({"threshold": t, "accuracy": round(ok / len(rows), 4), "fallbacks": fell,
                        "ece": expected_calibration_error(conf, hit)})
    best = max(results, key=lambda x: (x["accuracy"], -x["threshold"]))
    return {"data": str(data), "n": len(rows), "temperature": router.temperature, "best": best, "grid": results}


def write_calibration(adapter_dir: str | Path, result: dict) -> None:
    """Store the fitted temperature and threshold in the adapter's ``label_map.json``."""
    from core.models.router import LABEL_MAP_FILE

    path = Path(adapter_dir) / LABEL_MAP_FILE
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["temperature"] = result["temperature"]
    meta["fallback_threshold"] = result["best"]["threshold"]
    meta["calibrated_on"] = Path(result["data"]).name
    path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="evaluate the intent router on labelled JSONL")
    parser.add_argument("--data", default=str(HELDOUT_FILE), help="JSONL with question/label/history")
    parser.add_argument("--model", default=None, help="adapter folder (default: the shipped router)")
    parser.add_argument("--raw", action="store_true", help="the model alone: no signals, no fallback")
    parser.add_argument("--calibrate", action="store_true",
                        help="fit the temperature and choose the fallback threshold on --data (held-out only)")
    parser.add_argument("--write", action="store_true", help="with --calibrate: store both in the adapter")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from core.models.manager import SHIPPED_ROUTER
    from core.models.router import load_router_dir

    model_dir = args.model or SHIPPED_ROUTER
    router = load_router_dir(model_dir)
    if args.calibrate:
        result = calibrate_threshold(router, args.data)
        if args.write:
            write_calibration(model_dir, result)
        print(json.dumps(result, indent=2) if args.json else
              f"temperature {result['temperature']}; best threshold {result['best']} on {result['data']}\n" +
              "\n".join(f"  t={g['threshold']:.2f} acc={g['accuracy']:.4f} fallbacks={g['fallbacks']}"
                        for g in result["grid"]))
        return 0
    report = evaluate_router(router, args.data, raw=args.raw, baseline=not args.raw)
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else format_report(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
