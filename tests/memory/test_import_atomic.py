"""``paperpilot memory import`` is one transaction: a SIGKILL mid-import leaves all of the file or none.

Real ``paperpilot memory import`` processes on a real SQLite state database, killed at spread-out
moments while they write; after each kill the database is opened again and the facts counted.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

N = 4000  # under memory.max_facts (5000), so every line is a new fact kept


def _count(db) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as conn:
        try:
            return conn.execute("SELECT COUNT(*) FROM facts").fetchone()[0]
        except sqlite3.OperationalError:  # killed before the schema was written
            return 0


def test_a_killed_import_leaves_all_facts_or_none(tmp_path):
    src = tmp_path / "facts.jsonl"
    src.write_text("".join(json.dumps({"content": f"imported fact number {i} about adapters"}) + "\n"
                           for i in range(N)))
    counts = []
    for attempt in range(6):
        home = tmp_path / f"home{attempt}"
        env = {**os.environ, "PAPERPILOT_HOME": str(home)}
        proc = subprocess.Popen([sys.executable, "-c", "import sys; from paperpilot_tui.cli.main import main; "
                                 "sys.exit(main())", "memory", "import", str(src)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        db = home / "paperpilot.sqlite3"
        # wait until the process has the database open, then kill it a little later each attempt
        deadline = time.monotonic() + 60
        while not db.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.05 * attempt)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        counts.append(_count(db))
    assert all(c in (0, N) for c in counts), counts
    # and an import that is not killed imports everything
    home = tmp_path / "whole"
    done = subprocess.run([sys.executable, "-c", "import sys; from paperpilot_tui.cli.main import main; "
                           "sys.exit(main())", "memory", "import", str(src)],
                          env={**os.environ, "PAPERPILOT_HOME": str(home)}, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert _count(home / "paperpilot.sqlite3") == N
