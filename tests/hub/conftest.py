"""Shared fixtures: one indexed hub home (bundled notes + embeddings) per backend, built once per session.

The hub contract tests (the modules in ``CONTRACT``) run once on SQLite and once on PostgreSQL:
every test of theirs that uses ``hub`` or ``hub_home`` is parametrized over ``hub_backend``. The
PostgreSQL leg uses one embedded server for the whole session (a fresh database for each home) and
skips, with the reason, only when no server can be started here. While a PostgreSQL test runs,
``PAPERPILOT_HUB_BACKEND``/``PAPERPILOT_HUB_DSN`` are set, so hub processes it starts use it too.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

from core.hub.service import Hub

CONTRACT = {"test_mcp_tools", "test_retrieval", "test_upstream_and_reconnect", "test_hub_bounds", "test_pg_contract",
            "test_topics"}


def pytest_generate_tests(metafunc):
    module = metafunc.module.__name__.rsplit(".", 1)[-1]
    if module in CONTRACT and {"hub", "hub_home"} & set(metafunc.fixturenames):
        metafunc.parametrize("hub_backend", ["sqlite", "postgres"], indirect=True, scope="session")


@pytest.fixture(scope="session")
def hub_backend(request) -> str:
    """``sqlite`` unless a contract module parametrized it."""
    return getattr(request, "param", "sqlite")


def start_cluster(prefix: str):
    """A running embedded PostgreSQL (pgserver's binaries, pgvector) in a fresh temporary folder, and
    that folder; skips the test if none starts. The caller stops it and removes the folder."""
    from core.hub.pg.embedded import Cluster, EmbeddedError

    root = Path(tempfile.mkdtemp(prefix=prefix))
    root.chmod(0o711)  # as root the server runs as nobody, who must reach its directory
    cluster = Cluster(root / "pg", user="nobody" if os.geteuid() == 0 else None)
    try:
        cluster.ensure_running()
    except (EmbeddedError, ImportError) as exc:
        shutil.rmtree(root, ignore_errors=True)
        pytest.skip(f"no PostgreSQL server could be started here: {exc}")
    return cluster, root


@pytest.fixture(scope="session")
def pg_cluster():
    """One embedded PostgreSQL for the session; skips if none starts."""
    cluster, root = start_cluster("pp-pg-")
    yield cluster
    cluster.stop()
    shutil.rmtree(root, ignore_errors=True)


def new_database(cluster) -> str:
    """A fresh, empty database on ``cluster``; its DSN."""
    import psycopg

    # a name no copy of this module can hand out again: pytest loads this file as a conftest and
    # test modules import it again as ``tests.hub.conftest``, so a module-level counter repeats
    name = f"hub_test_{os.getpid()}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(cluster.dsn("postgres"), autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    return cluster.dsn(name)


@pytest.fixture
def pg_dsn(pg_cluster) -> str:
    """An empty PostgreSQL hub database for one test."""
    return new_database(pg_cluster)


def _indexed_home(home: Path, dsn: str | None) -> Path:
    hub = Hub(home / "hub.sqlite3", dsn=dsn)
    hub.start(background=False)
    hub.wait_ready()
    assert hub.store.stats("default")["embedded_chunks"] > 0
    hub.store.close()
    return home


@pytest.fixture(scope="session")
def sqlite_hub_home(tmp_path_factory) -> Path:
    """A PAPERPILOT_HOME whose hub.sqlite3 already holds the bundled corpus with vectors."""
    return _indexed_home(tmp_path_factory.mktemp("hub-home"), None)


@pytest.fixture(scope="session")
def pg_hub(pg_cluster, tmp_path_factory) -> tuple[Path, str]:
    """(home, dsn): a PostgreSQL hub database holding the bundled corpus with vectors."""
    dsn = new_database(pg_cluster)
    return _indexed_home(tmp_path_factory.mktemp("hub-home-pg"), dsn), dsn


@pytest.fixture(scope="session")
def hub_dsn(request, hub_backend) -> str | None:
    """The DSN of the indexed PostgreSQL hub on the postgres leg; None on SQLite."""
    return request.getfixturevalue("pg_hub")[1] if hub_backend == "postgres" else None


@pytest.fixture(scope="session")
def hub_home(request, hub_backend) -> Path:
    """The indexed home of the backend under test (SQLite unless parametrized)."""
    return request.getfixturevalue("pg_hub")[0] if hub_backend == "postgres" else request.getfixturevalue(
        "sqlite_hub_home")


@pytest.fixture(scope="session")
def hub(hub_home, hub_dsn) -> Hub:
    """An in-process hub over the shared home (no sync: the home is already indexed)."""
    h = Hub(hub_home / "hub.sqlite3", sync=False, dsn=hub_dsn)
    h.start(background=False)
    return h


@pytest.fixture(autouse=True)
def _hub_backend_env(request, monkeypatch):
    """Hub processes started by a postgres-leg test (stdio servers, the CLI) use its database."""
    if "hub_backend" in request.fixturenames and (dsn := request.getfixturevalue("hub_dsn")):
        monkeypatch.setenv("PAPERPILOT_HUB_BACKEND", "postgres")
        monkeypatch.setenv("PAPERPILOT_HUB_DSN", dsn)
