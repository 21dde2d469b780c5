"""A PostgreSQL server that dies under the hub is an error, in one line, never "no evidence" or a traceback
(issue 26 items 6 and 11).

A cluster of its own (the shared ``pg_cluster`` must outlive this module): SIGKILL every PostgreSQL
process under an HTTP hub that is serving from it, then ``ask`` → exit 3, one line naming the backend's
failure; a fast shutdown (sessions end with ``AdminShutdown``) while ``ingest`` writes → exit 1, one
line naming the database and what to do.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from core.hub import auth
from tests.hub.conftest import _indexed_home, new_database, start_cluster
from tests.hub.helpers import REPO, server_env
from tests.hub.test_deadlines import free_port, stop, wait_port

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="SIGKILL and /proc")


@pytest.fixture
def cluster():
    cluster, root = start_cluster("pp-pgkill-")  # its own: the test kills it
    yield cluster
    _kill(cluster)
    shutil.rmtree(root, ignore_errors=True)


def _kill(cluster) -> int:
    """SIGKILL the postmaster and every server process under it; how many there were."""
    pid = cluster.running_pid()
    if pid is None:
        return 0
    procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    for p in procs:
        try:
            p.send_signal(signal.SIGKILL)
        except psutil.Error:
            pass
    psutil.wait_procs(procs, timeout=10)
    return len(procs)


def _pg_env(home: Path, dsn: str) -> dict[str, str]:
    return server_env(home) | {"PAPERPILOT_HUB_BACKEND": "postgres", "PAPERPILOT_HUB_DSN": dsn,
                               "PAPERPILOT_HUB_SYNC": "0"}


def _one_line(run: subprocess.CompletedProcess) -> str:
    lines = [ln for ln in run.stderr.splitlines() if ln.strip() and "warning:" not in ln]
    assert "Traceback" not in run.stderr and len(lines) == 1, run.stderr
    return lines[0]


def test_postgres_killed_under_a_serving_hub_fails_ask_with_one_line(cluster, tmp_path):
    dsn = new_database(cluster)
    hub_home = _indexed_home(tmp_path / "hub-home", dsn)
    port = free_port()
    hub = subprocess.Popen([sys.executable, "-m", "core.hub", "serve", "--transport", "http", "--port", str(port)],
                           cwd=REPO, env=_pg_env(hub_home, dsn), stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    config = tmp_path / "settings.yaml"
    config.write_text("agent:\n  router: rules\n  critic: rules\nmemory:\n  enabled: false\n"
                      f"mcp:\n  connection: remote\n  call_timeout: 60\n  token: {auth.ensure_token(hub_home)}\n"
                      f"  connections:\n    remote: {{transport: streamable_http, url: 'http://127.0.0.1:{port}/mcp'}}\n")
    ask = ["ask", "--config", str(config), "--llm", "offline", "What does DPO optimize?"]
    try:
        wait_port(port, hub)
        served = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", *ask], cwd=REPO,
                                env=server_env(home), capture_output=True, text=True, timeout=300)
        assert served.returncode == 0, served.stderr  # the hub's connections to PostgreSQL are open
        assert _kill(cluster) >= 2
        t0 = time.monotonic()
        run = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", *ask], cwd=REPO,
                             env=server_env(home), capture_output=True, text=True, timeout=300)
        elapsed = time.monotonic() - t0
    finally:
        stop(hub)
    assert run.returncode == 3, (run.returncode, run.stdout, run.stderr)
    assert "no evidence" not in run.stdout
    line = _one_line(run)
    assert "backend failed" in line, line  # OperationalError or its AdminShutdown, by timing
    assert elapsed < 60, elapsed


def test_postgres_shut_down_mid_ingest_ends_it_with_one_line(cluster, tmp_path):
    dsn = new_database(cluster)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(64):
        sections = "".join(f"## Part {j}\n\nAdapters of rank {i * 4 + j} update attention weights in paper {i}; "
                           f"section {j} reports its ablations in words of its own: {'lorem ' * 60}\n\n"
                           for j in range(4))
        (docs / f"paper{i:02d}.md").write_text(f"# Paper {i}\n\n{sections}")
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    proc = subprocess.Popen([sys.executable, "-m", "paperpilot_tui.cli.main", "--offline", "ingest", str(docs)],
                            cwd=REPO, env=_pg_env(home, dsn), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    import psycopg

    deadline = time.monotonic() + 240
    written = 0
    while written == 0:  # the first batch is in: the server goes down under the rest of the run
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "ingest wrote nothing"
        time.sleep(0.1)
        try:
            with psycopg.connect(dsn, autocommit=True) as db:
                written = db.execute("SELECT count(*) FROM documents").fetchone()[0]
        except psycopg.Error:  # its tables are not there yet
            pass
    cluster.stop()  # fast shutdown: the ingest's session ends with AdminShutdown
    out, err = proc.communicate(timeout=120)
    run = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    assert run.returncode == 1, (run.returncode, out, err)
    line = _one_line(run)
    assert "hub.dsn" in line and "PostgreSQL server failed" in line and "run ingest again" in line, line
