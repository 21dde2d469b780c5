"""Commands that need an optional extra say which one, in one line, when it is not installed."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PROBE = """
import sys
from paperpilot_tui.cli.common import TRAIN_EXTRA
for name in TRAIN_EXTRA:
    sys.modules[name] = None  # as on the default install: importing any of them fails
from paperpilot_tui.cli.main import main
sys.exit(main({argv!r}))
"""


@pytest.mark.parametrize("argv, what", [(["train", "router", "--max-steps", "1"], "training"),
                                        (["train", "critic", "--max-steps", "1"], "training")])
def test_without_the_train_extra_a_training_command_says_what_to_install(tmp_path, argv, what):
    env = {**os.environ, "PAPERPILOT_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv)], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 1, out.stderr[-2000:]
    assert re.fullmatch(rf"paperpilot: {what} needs the train extra \((\w+) is not installed\): "
                        r"pip install -e '\.\[train\]'", out.stderr.strip()), out.stderr[-2000:]
