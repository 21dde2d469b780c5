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


def _opens_an_agent():
    from core.agent import open_agent

    return open_agent


def _probe_through_two_helpers():
    return _calls_a_helper_that_opens_an_agent()


def _calls_a_helper_that_opens_an_agent():
    return _opens_an_agent()


def _probe_in_a_nested_function(app):
    async def go():
        async with app.run_test():
            pass
    return go


def _probe_cli_ask(cli, capsys):
    return cli(capsys, "ask", "What is LoRA?")


def _probe_pure():
    return sorted([3, 1, 2])


def test_the_fast_lane_leaves_out_what_reaches_a_slow_call_through_helpers():
    """tests/support/lanes.py reads what a test calls, through the tests' own helpers to any depth.
    (The probes are looked up by name, so this test itself calls nothing slow.)"""
    from tests.support.lanes import SlowCalls

    calls, probes = SlowCalls(), globals()
    assert calls.reaches(probes["_probe_through_two_helpers"], probes)
    assert calls.reaches(probes["_probe_in_a_nested_function"], probes)
    assert calls.reaches(probes["test_a_passing_run_leaves_tmpdir_empty"], probes)  # a child process
    assert calls.reaches(probes["_probe_cli_ask"], probes)  # the in-process CLI opening an agent
    assert not calls.reaches(probes["_probe_pure"], probes)


def test_this_module_is_in_the_right_lanes(request):
    """The hook marked the suite-hygiene run (a child pytest) slow, and this plain test not."""
    child = {i.name: i for i in request.session.items}.get("test_a_passing_run_leaves_tmpdir_empty")
    assert child is None or child.get_closest_marker("slow") is not None  # None: -m "not slow" deselected it
    assert request.node.get_closest_marker("slow") is None
