"""The critic verdict's trainer: composed drafts weigh more in the fit, and ``--keep-gate`` keeps the
shipped evidence gate while the verdict is refitted."""

from __future__ import annotations

import json

import numpy as np

from core.brains.offline import verdict
from training import critic_verdict_train as train


def test_keep_gate_takes_the_shipped_gate_and_the_new_verdict() -> None:
    shipped = json.loads(verdict.WEIGHTS_FILE.read_text(encoding="utf-8"))
    n = len(verdict.FEATURES)
    new = {"features": list(verdict.FEATURES), "weights": [1.0] * n, "bias": 0.5, "mean": [0.0] * n,
           "scale": [1.0] * n, "pass_threshold": 0.4, "gate_threshold": 0.9, "gate_pass_threshold": 0.9,
           "gate_model": {"weights": [9.0] * n, "bias": 9.0, "mean": [0.0] * n, "scale": [1.0] * n},
           "trained_on": {"generator": "x", "gate_rows": [1, 1]}, "heldout": {"heldout_all": {}, "gate_heldout": {}}}
    kept = train._with_shipped_gate(new)
    assert kept["gate_model"] == shipped["gate_model"]
    assert (kept["gate_threshold"], kept["gate_pass_threshold"]) == (shipped["gate_threshold"], shipped["gate_pass_threshold"])
    assert kept["weights"] == [1.0] * n and kept["pass_threshold"] == 0.4  # the verdict is the new one
    assert kept["trained_on"]["gate_rows"] == shipped["trained_on"]["gate_rows"]
    assert kept["heldout"]["gate_heldout"] == shipped["heldout"]["gate_heldout"]


def test_composed_drafts_weigh_more_in_the_fit() -> None:
    """Two kinds of rows disagree on one feature; the fit follows the kind that carries more weight."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 1))
    kinds = ["composed"] * 200 + ["answer"] * 200
    y = np.concatenate([(x[:200, 0] > 0), (x[200:, 0] < 0)]).astype(int)  # opposite signs by kind
    heavy = np.where(train.composed_mask(kinds), 10.0, 1.0)
    m = train.fit(x, y, x, y, 1.0, heavy, train.composed_mask(kinds).astype(float))
    assert m["weights"][0] > 0  # the composed drafts' direction wins
    p = train.predict(m, x)
    assert train.auc(p[:200], y[:200]) > 0.9
