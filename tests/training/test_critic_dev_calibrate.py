"""The direct-answer critic's threshold calibrated on a tuning set's delivered answers: only direct
answers count, the rule is the training one (the highest threshold passing a share of right answers),
and the weights file records where the threshold came from."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from training.critic_dev_calibrate import direct_answers, threshold


def row(score: float, hit: bool, **kw) -> dict:
    return {"answerable": True, "abstained": False, "strategy": "simple", "predicted": "factual",
            "critic_score": score, "gold_hit": hit, "critic_feedback": "", **kw}


HITS = [row(5.0 + 0.2 * k, True) for k in range(20)]  # 5.0 .. 8.8
OTHERS = [row(1.0, True, strategy="comparative", predicted="comparative"),  # judged row by row
          row(1.5, True, strategy="multi_hop", predicted="multi_hop"),  # judged on its prose
          row(2.0, True, abstained=True),  # declined
          row(2.5, False, answerable=False)]  # an unanswerable question


def test_only_direct_answers_count_and_a_taken_point_is_given_back() -> None:
    scored = direct_answers(HITS + OTHERS + [row(6.0, False, critic_feedback="Fix: no retrieved source names X; …")])
    assert len(scored) == 21 and (0.7, False) in scored


def test_the_threshold_passes_the_share_of_right_answers_asked_for() -> None:
    scored = direct_answers(HITS + OTHERS)
    assert threshold(scored, 0.95) == 0.52  # one of 20 may fail: the second lowest passes
    assert threshold(scored, 1.0) == 0.5
    assert threshold(scored, 0.90) == 0.54
    with pytest.raises(ValueError):
        threshold(direct_answers([row(7.0, False)]), 0.95)


def test_write_stores_the_threshold_and_its_origin(tmp_path) -> None:
    weights = tmp_path / "critic_verdict.json"
    weights.write_text(json.dumps({"direct_pass_threshold": 0.78, "other": 1}), encoding="utf-8")
    result = tmp_path / "abs.json"
    result.write_text(json.dumps({"rows": HITS + OTHERS + [row(5.3, False)]}), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "training.critic_dev_calibrate", str(result), "--write",
                          "--weights", str(weights)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    data = json.loads(weights.read_text(encoding="utf-8"))
    assert data["direct_pass_threshold"] == 0.52 and data["other"] == 1
    cal = data["direct_dev_calibration"]
    assert cal["before"] == 0.78 and cal["hits"] == 20 and cal["misses"] == 1 and cal["pass_on_misses"] == 1.0
    assert cal["pass_on_hits"] == 0.95 and cal["set"] == "realpapers/dev"


def test_a_result_without_rows_is_one_line_and_nothing_is_written(tmp_path) -> None:
    weights = tmp_path / "critic_verdict.json"
    weights.write_text(json.dumps({"direct_pass_threshold": 0.78}), encoding="utf-8")
    before = weights.read_bytes()
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "training.critic_dev_calibrate", str(bad), "--write",
                          "--weights", str(weights)], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0 and out.stderr.strip().count("\n") == 0 and "cannot calibrate" in out.stderr
    assert weights.read_bytes() == before
