"""A reader that stops early (``| head -1``) ends a command quietly with exit 0."""

from __future__ import annotations

import subprocess
import sys

from tests.support.recorded import demo_settings, demo_stores, recorded_events


def test_traces_export_into_a_closed_pipe_exits_quietly(tmp_path):
    settings = demo_settings(tmp_path)
    demo_stores(settings).close()
    trace_id = recorded_events("compare")[0].turn_id
    for action in ("export", "show"):
        # `paperpilot traces ACTION ID | head -1`, with a reader that reads nothing and hangs up
        cmd = [sys.executable, "-m", "paperpilot_tui.cli.main", "traces", action, trace_id]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={"PAPERPILOT_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(60) == 0, err
        assert err == ""
