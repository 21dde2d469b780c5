"""The repository's own top-level packages win over test packages of the same name.

tests/training was a package called ``training`` while pytest put tests/ on ``sys.path`` first, so a
test under tests/models (``pytest -m gpu tests/models``, the README's GPU check) imported tests/training
for ``training`` and failed with "No module named 'training.router_sft'" on an H200."""

from __future__ import annotations

from pathlib import Path

import training

REPO = Path(__file__).resolve().parents[2]


def test_training_is_the_repository_package():
    assert Path(training.__file__).resolve().parent == REPO / "training"
    from training.router_sft import CausalRouter

    assert CausalRouter.__module__ == "training.router_sft"
