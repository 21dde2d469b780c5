"""Fit the router's learned decision (``core.models.router_combiner``) on the held-out split.

For every held-out row the adapter (at its fitted temperature) and the rule router are run, their
distributions become features, and a multinomial logistic regression (scikit-learn, L2, ``C``) learns
the gold label. Its 5-fold cross-validated accuracy on the same split is reported beside the
threshold-fallback decision it replaces, so the fit is judged on rows it did not see. ``--write``
stores the weights in the adapter's ``label_map.json`` as ``combiner``; the router then uses it
instead of the confidence threshold.

The held-out split only: an evaluation set is never a fitting set.

    python -m training.router_combiner [--model DIR] [--data FILE] [--c 0.3] [--write] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from core.prompts.local_router import turns_from_chat
from training.data.generate_router import HELDOUT_FILE, read_jsonl

DEFAULT_LANG = "both"
DEFAULT_C = 0.3  # L2 strength: 0.1-1.0 measured alike on the abstract dev set (within one question), 3.0 worse


def combiner_rows(router: Any, rows: list[dict]) -> tuple[list[list[float]], list[str], list[str]]:
    """(features, gold labels, the current decision's labels) for ``rows``."""
    from core.models.router import rule_decision
    from core.vocabulary import Vocabulary
    from core.models.router_combiner import features

    feats, gold, current = [], [], []
    saved, router.combiner = router.combiner, None  # the current decision is the threshold fallback
    try:
        for r in rows:
            turns = turns_from_chat(r.get("history", []))
            model, rules = router.model_sync(r["question"], turns), rule_decision(r["question"], turns, Vocabulary())
            feats.append(features(model.scores, rules.scores, router.labels, r["question"]))
            gold.append(r["label"])
            current.append(router.classify_sync(r["question"], turns).type)
    finally:
        router.combiner = saved
    return feats, gold, current


def fit_combiner(router: Any, data: str | Path = HELDOUT_FILE, *, c: float = DEFAULT_C, folds: int = 5,
                 languages: tuple[str, ...] = ("en", "zh")) -> dict:
    """Fit on the rows of ``data`` in ``languages``; return the weights and the cross-validated accuracy
    against the current decision on those rows (the combiner then decides only those languages)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict

    from core.models.router_combiner import Combiner

    from core.models.router_combiner import question_lang

    rows = [r for r in read_jsonl(data) if question_lang(r["question"]) in languages]
    if not rows:
        raise ValueError(f"{data}: no rows in {', '.join(languages)}")
    feats, gold, current = combiner_rows(router, rows)
    x, y = np.array(feats, dtype=float), np.array(gold)
    clf = LogisticRegression(C=c, max_iter=5000)
    cv_pred = cross_val_predict(clf, x, y, cv=folds)
    clf.fit(x, y)
    combiner = Combiner.from_dict({"classes": [str(k) for k in clf.classes_], "coef": clf.coef_.tolist(),
                                   "intercept": clf.intercept_.tolist(), "languages": list(languages)})
    n = len(rows)
    return {"data": str(data), "n": n, "C": c, "folds": folds,
            "cv_accuracy": round(float(np.mean(cv_pred == y)), 4),
            "threshold_accuracy": round(sum(p == g for p, g in zip(current, gold)) / n, 4),
            "combiner": combiner.to_dict()}


def write_combiner(adapter_dir: str | Path, result: dict) -> None:
    """Store the fitted weights (and where they were fitted) in the adapter's ``label_map.json``."""
    from core.models.router import LABEL_MAP_FILE

    path = Path(adapter_dir) / LABEL_MAP_FILE
    meta = json.loads(path.read_text(encoding="utf-8"))
    meta["combiner"] = {**result["combiner"], "fitted_on": Path(result["data"]).name, "C": result["C"],
                        "cv_accuracy": result["cv_accuracy"]}
    path.write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fit the router's learned decision on the held-out split")
    parser.add_argument("--model", default=None, help="adapter folder (default: the shipped router)")
    parser.add_argument("--data", default=str(HELDOUT_FILE), help="labelled JSONL (the held-out split)")
    parser.add_argument("--c", type=float, default=DEFAULT_C, help="inverse L2 strength")
    parser.add_argument("--lang", choices=("en", "zh", "both"), default=DEFAULT_LANG,
                        help="fit on (and decide) these questions only; the others keep the threshold fallback")
    parser.add_argument("--write", action="store_true", help="store the weights in the adapter")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from core.models.manager import SHIPPED_ROUTER
    from core.models.router import load_router_dir

    model_dir = args.model or SHIPPED_ROUTER
    if not Path(args.data).is_file():
        print(f"error: no such data file: {args.data}", file=sys.stderr)
        return 2
    languages = ("en", "zh") if args.lang == "both" else (args.lang,)
    result = fit_combiner(load_router_dir(model_dir), args.data, c=args.c, languages=languages)
    if args.write:
        write_combiner(model_dir, result)
    summary = {k: v for k, v in result.items() if k != "combiner"}
    print(json.dumps(result if args.json else summary, indent=None if not args.json else 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
