"""The router's learned decision over the adapter and the rule router: features, weights, fitting, loading."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import numpy as np
import pytest

from core.models.manager import SHIPPED_ROUTER, ModelNotAvailable
from core.models.router_combiner import Combiner, features
from training.data.generate_router import HELDOUT_FILE, read_jsonl, write_jsonl
from tests.support.extras import needs

LABELS = ["factual", "comparative", "multi_hop", "exploratory", "follow_up"]
MODEL = {"factual": 0.5, "comparative": 0.1, "multi_hop": 0.3, "exploratory": 0.05, "follow_up": 0.05}
RULES = {"factual": 0.6, "comparative": 0.2, "multi_hop": 0.1, "exploratory": 0.1, "follow_up": 0.0}


def test_features_keep_follow_up_out_of_the_rules_and_split_them_by_language():
    en = features(MODEL, RULES, LABELS, "Which optimizer did the invented Zephyrine model use?")
    zh = features(MODEL, RULES, LABELS, "虚构的 Zephyrine 模型用了什么优化器？")
    assert len(en) == len(zh) == 5 + 4 + 4 + 1
    assert en[:5] == zh[:5] == pytest.approx([np.log(MODEL[k]) for k in LABELS])
    rule_part = np.exp(en[5:9])  # renormalised over the four content labels, with a floor for "no cue"
    assert rule_part.sum() == pytest.approx(1.0) and rule_part[0] == pytest.approx(max(rule_part))
    assert en[9:13] == [0.0] * 4 and en[13] == 0.0
    assert zh[5:9] == [0.0] * 4 and zh[9:13] == en[5:9] and zh[13] == 1.0


@needs("train")  # scikit-learn is the reference
def test_weights_round_trip_and_score_like_scikit_learn():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    x = rng.normal(size=(200, 14))
    y = np.array(LABELS)[np.argmax(x[:, :5] + 0.5 * rng.normal(size=(200, 5)), axis=1)]
    clf = LogisticRegression(C=1.0, max_iter=2000).fit(x, y)
    combiner = Combiner.from_dict(json.loads(json.dumps(Combiner.from_dict(
        {"classes": list(clf.classes_), "coef": clf.coef_.tolist(), "intercept": clf.intercept_.tolist()}).to_dict())))
    expected = clf.predict_proba(x[:20])
    for row, want in zip(x[:20], expected):
        got = combiner.scores(list(row), LABELS)
        assert [got[c] for c in clf.classes_] == pytest.approx(list(want), abs=2e-4)
    assert combiner.languages == ("en", "zh") and combiner.decides("什么是 Zephyrine？")
    english_only = Combiner.from_dict({**combiner.to_dict(), "languages": ["en"]})
    assert english_only.decides("What is Zephyrine?") and not english_only.decides("什么是 Zephyrine？")
    with pytest.raises(ValueError, match="features"):
        combiner.scores([0.0] * 3, LABELS)
    with pytest.raises(ValueError, match="shape"):
        Combiner.from_dict({"classes": ["factual"], "coef": [[1.0], [2.0]], "intercept": [0.0]})


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """A copy of the shipped adapter with a combiner fitted on 100 held-out rows (20 a label)."""
    from training.router_combiner import fit_combiner, write_combiner
    from core.models.router import load_router_dir

    tmp = tmp_path_factory.mktemp("combiner")
    adapter = tmp / "router"
    shutil.copytree(SHIPPED_ROUTER, adapter)
    meta = json.loads((adapter / "label_map.json").read_text(encoding="utf-8"))
    meta.pop("combiner", None)
    (adapter / "label_map.json").write_text(json.dumps(meta), encoding="utf-8")
    rows, per = [], {}
    for row in read_jsonl(HELDOUT_FILE):
        if per.get(row["label"], 0) < 20:
            per[row["label"]] = per.get(row["label"], 0) + 1
            rows.append(row)
    data = tmp / "few.jsonl"
    write_jsonl(data, rows)
    result = fit_combiner(load_router_dir(adapter), data, folds=3)
    write_combiner(adapter, result)
    return adapter, result


@pytest.mark.slow
def test_a_fitted_combiner_decides_and_the_conversation_signals_still_apply(fitted):
    from core.brains.base import Turn
    from core.models.router import load_router_dir

    adapter, result = fitted
    assert result["n"] == 100 and 0.0 <= result["cv_accuracy"] <= 1.0
    stored = json.loads((adapter / "label_map.json").read_text(encoding="utf-8"))["combiner"]
    assert stored["fitted_on"] == "few.jsonl" and len(stored["classes"]) == 5
    router = load_router_dir(adapter)
    assert router.combiner is not None
    first = router.classify_sync("Compare Zephyrine and Quillfeather in memory use and accuracy", [])
    assert first.router.startswith("lora:minilm+rules") and "→" not in first.router
    assert first.type == "comparative" and sum(first.scores.values()) == pytest.approx(1.0, abs=1e-3)
    assert router.classify_sync("And its memory?", []).type != "follow_up"  # a first turn continues nothing
    after = router.classify_sync("Who proposed that?", [Turn(question="What is Zephyrine?", answer="A model [1].")])
    assert after.type == "follow_up"
    router.combiner = type(router.combiner).from_dict({**router.combiner.to_dict(), "languages": ["en"]})
    zh = router.classify_sync("对比 Zephyrine 和 Quillfeather 的显存占用", [])
    assert "+rules" not in zh.router and zh.type == "comparative"  # not fitted on Chinese: the threshold path


@pytest.mark.slow
def test_an_unreadable_combiner_is_one_clear_error(fitted, tmp_path):
    from core.models.router import load_router_dir

    adapter = tmp_path / "broken"
    shutil.copytree(fitted[0], adapter)
    meta = json.loads((adapter / "label_map.json").read_text(encoding="utf-8"))
    meta["combiner"]["coef"] = meta["combiner"]["coef"][:2]
    (adapter / "label_map.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ModelNotAvailable, match="unreadable combiner"):
        load_router_dir(adapter)


def test_fitting_on_a_missing_file_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "training.router_combiner", "--data", str(tmp_path / "none.jsonl")],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0 and "none.jsonl" in proc.stderr
