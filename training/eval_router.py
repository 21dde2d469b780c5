"""Evaluate an intent router on labelled JSONL: accuracy, per-label P/R/F1, confusion, latency.

Latency is measured per question, one at a time (batch size 1, as the agent calls it), after a
short warm-up; p50/p95 are over every example. When the offline brain is importable its rule
router is scored on the same data for comparison.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from core.models.router import turns_from_chat
from core.state import INTENT_TYPES
from training.data.generate_router import HELDOUT_FILE, read_jsonl

LABELS = list(INTENT_TYPES)


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


def evaluate_router(router: Any, data: str | Path = HELDOUT_FILE, *, warmup: int = 5,
                    baseline: bool = True) -> dict:
    """Classify every row with ``router.classify_sync`` and report quality and latency."""
    rows = read_jsonl(data)
    if not rows:
        raise ValueError(f"{data}: no examples")
    for r in rows[:warmup]:
        router.classify_sync(r["question"], turns_from_chat(r.get("history", [])))
    pred, latencies, langs = [], [], {}
    for r in rows:
        turns = turns_from_chat(r.get("history", []))
        t0 = time.perf_counter()
        decision = router.classify_sync(r["question"], turns)
        latencies.append((time.perf_counter() - t0) * 1000)
        pred.append(decision.type)
        lang = r.get("lang", "?")
        ok, n = langs.get(lang, (0, 0))
        langs[lang] = (ok + (decision.type == r["label"]), n + 1)
    report = classification_report([r["label"] for r in rows], pred)
    report["accuracy_by_lang"] = {k: round(ok / n, 4) for k, (ok, n) in sorted(langs.items())}
    report["latency_ms"] = {"p50": round(_percentile(latencies, 0.5), 2), "p95": round(_percentile(latencies, 0.95), 2),
                            "mean": round(statistics.fmean(latencies), 2)}
    report["errors"] = [{"question": r["question"], "gold": r["label"], "pred": p}
                        for r, p in zip(rows, pred) if p != r["label"]][:20]
    report["router"] = getattr(router, "name", "?")
    report["data"] = str(data)
    if baseline:
        report["rules_baseline"] = _rules_baseline(rows)
    return report


def format_report(report: dict) -> str:
    """A short human-readable summary."""
    lines = [f"router {report['router']} on {report['data']} (n={report['n']})",
             f"accuracy {report['accuracy']:.4f}  macro-F1 {report['macro_f1']:.4f}  "
             f"latency p50 {report['latency_ms']['p50']} ms  p95 {report['latency_ms']['p95']} ms"]
    for label, m in report["per_label"].items():
        lines.append(f"  {label:<12} P {m['precision']:.3f}  R {m['recall']:.3f}  F1 {m['f1']:.3f}  n={m['support']}")
    lines.append("confusion (rows gold, cols pred): " + " ".join(report["confusion"]["labels"]))
    for label, row in zip(report["confusion"]["labels"], report["confusion"]["matrix"]):
        lines.append(f"  {label:<12} {row}")
    if report.get("rules_baseline"):
        lines.append(f"rule router baseline: {report['rules_baseline']}")
    return "\n".join(lines)
