"""The direct answer's length share is calibrated on the scorer's researcher-style training groups (the
questions a small instruct model wrote, both splits), and the shipped value is what the calibration gives."""

from __future__ import annotations

import json

import numpy as np

from core.brains.offline import scorer
from training.data.generate_scorer import build
from training.scorer_lead import GRID, MIN_GAIN, calibrate, calibration_groups, choose, curve


def test_the_share_stops_where_a_longer_lead_buys_too_little_recall() -> None:
    points = [(1.0, 0.70, 1.0), (0.95, 0.80, 1.3), (0.9, 0.85, 1.5), (0.85, 0.86, 1.7), (0.8, 0.95, 2.6)]
    # 0.95: +0.10 for +0.3 sentences, 0.9: +0.05 for +0.2; 0.85: +0.01 for +0.2 is below MIN_GAIN
    assert choose(points) == (0.9, 0.85, 1.5)
    assert choose([(1.0, 0.7, 1.0), (0.95, 0.7, 1.0), (0.9, 0.8, 1.2)]) == (0.9, 0.8, 1.2)  # a free step is taken
    assert choose(points, min_gain=10.0) == (1.0, 0.70, 1.0)
    assert MIN_GAIN > 0 and GRID[0] == 1.0


def test_the_shipped_share_is_the_calibration_of_the_shipped_weights() -> None:
    data = json.loads(scorer.WEIGHTS_FILE.read_text(encoding="utf-8"))
    groups = calibration_groups(*build())
    assert groups and all(g["source"] == "llm" for g in groups)
    lead = calibrate(groups, dict(data))
    assert lead["calibrated_on"]["source"] == "llm" and lead["calibrated_on"]["groups"] == len(groups)
    assert lead["share"] == data["lead"]["share"]
    assert lead["heldout_recall"] == data["lead"]["heldout_recall"]
    # a longer lead than one sentence holds the answering sentence more often, at a bounded length
    assert lead["heldout_recall"] > lead["one_sentence_recall"] and lead["heldout_mean_sentences"] <= 2.0


def test_a_near_tie_from_another_paper_ends_the_lead() -> None:
    y = np.array([0, 1, 0])
    same = [(np.array([0.95, 0.94, 0.1]), y, ["a", "a", "b"])]
    other = [(np.array([0.95, 0.94, 0.1]), y, ["a", "b", "b"])]
    assert curve(same)[2][1:] == (1.0, 2.0)  # share 0.9: the runner-up of the same paper joins
    assert curve(other)[2][1:] == (0.0, 1.0)  # another paper's runner-up does not
