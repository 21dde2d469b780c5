"""Suite-wide hygiene: an isolated data home, offline model loading, no stray LLM credentials."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

# Set before any test module imports core: every test sees a private PAPERPILOT_HOME unless it
# sets its own, the encoder never reaches for a model hub, and a developer's OpenAI variables
# cannot switch the suite to the LLM brain.
_HOME = tempfile.mkdtemp(prefix="paperpilot-test-home-")
os.environ["PAPERPILOT_HOME"] = _HOME
# One ONNX export cache for the whole run, also for tests (and hub child processes) that point
# PAPERPILOT_HOME elsewhere: the encoder and router graphs are exported once per run, not per home.
os.environ["PAPERPILOT_ONNX_CACHE"] = os.path.join(_HOME, "models", "onnx")
# No per-user index of the bundled notes: each test's fresh hub indexes them itself (as a user's first
# data dir does) and none writes to the user's cache; tests/hub/test_bundled_cache.py sets its own.
os.environ["PAPERPILOT_INDEX_CACHE"] = "off"
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"
for _var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PAPERPILOT_LLM_MODEL", "PAPERPILOT_LLM_PROVIDER"):
    os.environ.pop(_var, None)


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config, items):
    """Mark ``slow`` what starts hubs, processes or the app (tests/support/lanes.py): the fast lane is
    ``pytest -m "not slow"``, the full suite runs everything."""
    from tests.support.lanes import SlowCalls, is_slow

    calls = SlowCalls()
    for item in items:
        if is_slow(item, calls):
            item.add_marker(pytest.mark.slow)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    """Leave nothing in $TMPDIR: the suite-wide home (its databases and the ONNX graph cache, about
    90 MB) goes once every session fixture has been torn down. pytest's own ``tmp_path`` folders are
    kept only for failed tests (``tmp_path_retention_policy`` in pyproject.toml).
    ``PAPERPILOT_KEEP_TEST_HOME=1`` keeps the home to look at."""
    if os.environ.get("PAPERPILOT_KEEP_TEST_HOME") != "1":
        shutil.rmtree(_HOME, ignore_errors=True)


@pytest.fixture(scope="session")
def hub_db(tmp_path_factory) -> Path:
    """A hub.sqlite3 already holding the bundled corpus with vectors, indexed once per run and shared
    by every test that starts real hubs (``ask`` subprocesses, bench/faults.py): each starts in seconds."""
    from core.hub.service import Hub

    db = tmp_path_factory.mktemp("indexed-hub") / "hub.sqlite3"
    hub = Hub(db)
    hub.start(background=False)
    hub.wait_ready()
    assert hub.store.stats("default")["embedded_chunks"] > 0
    hub.store.close()
    return db


@pytest.fixture(scope="session", autouse=True)
def _shared_home_databases_stay_intact():
    """After the whole run, every database in the suite-wide home passes SQLite's own check: many
    tests and their subprocesses share it, so a lock or WAL defect shows up here as corruption
    (it once did: a second connection dropped the first one's POSIX locks)."""
    yield
    import sqlite3

    bad = {}
    for db in sorted(Path(_HOME).glob("*.sqlite3")):
        conn = sqlite3.connect(str(db), timeout=60)
        try:
            result = [row[0] for row in conn.execute("PRAGMA quick_check")]
        except sqlite3.DatabaseError as exc:
            result = [str(exc)]
        finally:
            conn.close()
        if result != ["ok"]:
            bad[db.name] = result[:5]
    assert not bad, f"databases in the suite-wide test home are damaged: {bad}"
