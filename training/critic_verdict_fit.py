"""The numerics of the critic verdict's trainer (:mod:`training.critic_verdict_train`): its data rows
as arrays, a weighted logistic fit with Platt calibration folded into the weights, and the held-out
measures it reports (AUC, ECE, pass rates at a threshold, the threshold that passes a share of answers)."""

from __future__ import annotations

import json

import numpy as np

from training.data import generate_verdict

def load(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


GATE_KINDS = ("gate_own", "gate_other")
# The drafts the offline brain composes itself (a direct answer, an overview, a chain): what the critic
# judges in use. The other kinds are constructed contrasts (the answer first, a topical miss, ...).
COMPOSED_PREFIX = "composed"
COMPOSED_WEIGHT = 5.0


def composed_mask(kinds: list[str]) -> np.ndarray:
    return np.array([k.startswith(COMPOSED_PREFIX) for k in kinds])


def auc(p: np.ndarray, y: np.ndarray) -> float | None:
    """The probability that a random answering draft scores above a random miss."""
    pos, neg = p[y == 1], p[y == 0]
    if not len(pos) or not len(neg):
        return None
    return round(float((pos[:, None] > neg[None, :]).mean() + 0.5 * (pos[:, None] == neg[None, :]).mean()), 4)


def split(rows: list[dict], task: str, gate: bool | None = None,
          prose: bool | None = None) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The rows of ``task`` as arrays; for verdict rows, ``gate`` keeps only the gate's drafts (True)
    or only the critic's (False), ``prose`` only the overviews and chains (True) or only the others."""
    sub = [r for r in rows if r["task"] == task
           and (gate is None or (r.get("kind") in GATE_KINDS) == gate)
           and (prose is None or (r.get("kind") in generate_verdict.PROSE_DRAFTS) == prose)]
    return (np.array([r["x"] for r in sub], dtype=np.float64), np.array([r["label"] for r in sub]),
            [r.get("kind", "") for r in sub])


def fit(x: np.ndarray, y: np.ndarray, xc: np.ndarray, yc: np.ndarray, c: float = 1.0,
        weight: np.ndarray | None = None, weight_c: np.ndarray | None = None) -> dict:
    """Logistic weights on ``x`` (standardized; ``weight`` per row), Platt-calibrated on the held-out
    ``xc`` (``weight_c`` per row)."""
    from sklearn.linear_model import LogisticRegression

    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    clf = LogisticRegression(C=c, max_iter=4000).fit((x - mean) / scale, y, sample_weight=weight)
    w, b = clf.coef_[0], float(clf.intercept_[0])
    z = ((xc - mean) / scale) @ w + b
    platt = LogisticRegression(C=1e6, max_iter=4000).fit(z.reshape(-1, 1), yc, sample_weight=weight_c)
    a, b2 = float(platt.coef_[0][0]), float(platt.intercept_[0])
    return {"weights": a * w, "bias": a * b + b2, "mean": mean, "scale": scale}


def predict(m: dict, x: np.ndarray) -> np.ndarray:
    z = ((x - m["mean"]) / m["scale"]) @ m["weights"] + m["bias"]
    return 1.0 / (1.0 + np.exp(-np.clip(z, -30, 30)))


def ece(p: np.ndarray, y: np.ndarray, bins: int = 10) -> float:
    total = 0.0
    for k in range(bins):
        idx = (p > k / bins) & (p <= (k + 1) / bins) if k else (p <= 1 / bins)
        if idx.any():
            total += idx.mean() * abs(y[idx].mean() - p[idx].mean())
    return round(float(total), 4)


def pass_threshold(p: np.ndarray, y: np.ndarray, hit_pass: float) -> float:
    """The highest threshold that passes at least ``hit_pass`` of the positives."""
    pos = np.sort(p[y == 1])
    return float(pos[int(np.floor((1 - hit_pass) * len(pos)))]) if len(pos) else 0.5


def rates(p: np.ndarray, y: np.ndarray, t: float) -> dict:
    return {"pass_on_answers": round(float((p[y == 1] >= t).mean()), 4) if (y == 1).any() else None,
            "pass_on_misses": round(float((p[y == 0] >= t).mean()), 4) if (y == 0).any() else None,
            "n": int(len(y)), "answers": int((y == 1).sum())}



def as_model(m: dict) -> dict:
    return {"weights": [round(float(w), 6) for w in m["weights"]], "bias": round(float(m["bias"]), 6),
            "mean": [round(float(v), 6) for v in m["mean"]], "scale": [round(float(v), 6) for v in m["scale"]]}
