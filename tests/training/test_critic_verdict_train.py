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


def test_prose_only_adds_the_prose_model_and_keeps_the_verdict_and_gate() -> None:
    """``--prose-only`` writes the shipped file with a prose model added: the critic's scores of
    one-paragraph drafts, comparisons and the evidence gate stay what they were."""
    shipped = json.loads(verdict.WEIGHTS_FILE.read_text(encoding="utf-8"))
    n = len(verdict.FEATURES)
    m = {"weights": np.ones(n), "bias": 0.25, "mean": np.zeros(n), "scale": np.ones(n)}
    out = train._with_prose(json.loads(json.dumps(shipped)), m, 0.4, {"prose_rows": [3, 1], "prose_heldout": {"n": 1}}, 0.95)
    for key in ("weights", "bias", "mean", "scale", "pass_threshold", "gate_model", "gate_threshold", "gate_pass_threshold"):
        assert out[key] == shipped[key], key
    assert out["prose_model"]["weights"] == [1.0] * n and out["prose_pass_threshold"] == 0.4
    assert out["trained_on"]["prose_rows"] == [3, 1] and out["heldout"]["prose_heldout"] == {"n": 1}


def test_the_shipped_file_judges_prose_with_its_own_model_and_threshold() -> None:
    data = json.loads(verdict.WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert data["trained_on"]["prose_drafts"] == ["composed_overview", "composed_chain"]
    x = [0.9, 0.2, 0.7, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.9, 0.0]
    rest = [0.0] * (len(verdict.FEATURES) - len(x) - 1)  # the features after ``prose``
    assert len(rest) == len(verdict.FEATURES) - verdict.FEATURES.index("prose") - 1
    one_paragraph, prose = verdict.probability([*x, 0.0, *rest]), verdict.probability([*x, 1.0, *rest])
    row = verdict.probability([*x, 0.0, *rest], judged="row")
    assert one_paragraph == verdict._logistic(data["direct_model"], [*x, 0.0, *rest])
    assert row == verdict._logistic(data, [*x, 0.0, *rest])  # a comparison row: the shared verdict block
    assert prose == verdict._logistic(data["prose_model"], [*x, 1.0, *rest]) and len({prose, one_paragraph, row}) == 3
    assert verdict.pass_threshold("prose") == data["prose_pass_threshold"]
    assert verdict.pass_threshold("direct") == data["direct_pass_threshold"]
    assert verdict.pass_threshold("row") == data["pass_threshold"]


def test_direct_only_adds_the_direct_model_and_keeps_the_rest() -> None:
    """``--direct-only`` writes the shipped file with a direct-answer model added: comparison rows,
    prose and the evidence gate keep their weights and thresholds."""
    shipped = json.loads(verdict.WEIGHTS_FILE.read_text(encoding="utf-8"))
    n = len(verdict.FEATURES)
    m = {"weights": np.ones(n), "bias": 0.25, "mean": np.zeros(n), "scale": np.ones(n)}
    calibrated = {**json.loads(json.dumps(shipped)), "direct_dev_calibration": {"threshold": 0.6}}
    out = train._with_direct(calibrated, m, 0.3, {"direct_rows": [5, 2], "direct_heldout": {"n": 2}}, 0.95, 5.0)
    for key in ("weights", "bias", "pass_threshold", "prose_model", "prose_pass_threshold", "gate_model",
                "gate_threshold", "gate_pass_threshold"):
        assert out[key] == shipped[key], key
    assert out["direct_model"]["weights"] == [1.0] * n and out["direct_pass_threshold"] == 0.3
    assert out["trained_on"]["direct_rows"] == [5, 2] and out["heldout"]["direct_heldout"] == {"n": 2}
    # a threshold calibrated on the tuning set (training.critic_dev_calibrate) belonged to the old model
    assert "direct_dev_calibration" not in out
