"""A test run leaves nothing behind in $TMPDIR (it once left a 90–170 MB home per run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_a_passing_run_leaves_tmpdir_empty(tmp_path):
    tmp = tmp_path / "tmpdir"
    tmp.mkdir()
    env = {**os.environ, "TMPDIR": str(tmp)}
    env.pop("PAPERPILOT_HOME", None)
    env.pop("PAPERPILOT_ONNX_CACHE", None)
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "tests/core/test_onnx_export_lock.py"], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-2000:]
    left = [p.relative_to(tmp) for p in tmp.rglob("*") if not p.is_dir() or p.is_symlink()]
    assert left == []  # nothing but pytest's own, now empty, per-user folder
