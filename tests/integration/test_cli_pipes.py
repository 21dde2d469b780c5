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


def test_a_question_that_is_not_utf8_gets_one_line_and_exit_2(tmp_path):
    """Issue 17 point 6: bytes that are not UTF-8 in a question gave a traceback."""
    cmd = [sys.executable, "-m", "paperpilot_tui.cli.main", "ask", b"What is \xff\xfe LoRA?"]
    proc = subprocess.run(cmd, capture_output=True, env={"PAPERPILOT_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    err = proc.stderr.decode()
    assert proc.returncode == 2 and "Traceback" not in err
    assert err.strip() == "paperpilot: argument 2 is not valid UTF-8 text; check the terminal's encoding"
