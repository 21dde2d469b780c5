"""The knowledge hub on PostgreSQL + pgvector (``hub.backend: postgres``).

:func:`resolve_dsn` turns settings into the DSN to use (``None`` for SQLite), starting the
embedded server when ``hub.dsn`` is empty; :func:`open_store` opens the store the settings name;
:func:`open_backend` gives the service its store and searcher. Importing this package is light:
psycopg and pgvector load only when a PostgreSQL store is opened.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


class BackendError(RuntimeError):
    """The PostgreSQL hub cannot be opened (missing extra, server down, bad DSN); one readable line."""


@contextmanager
def _clear_errors(dsn: str | None = None) -> Iterator[None]:
    from core.hub.pg.embedded import EmbeddedError

    try:
        yield
    except EmbeddedError as exc:
        raise BackendError(f"hub.backend postgres: {exc}") from None
    except ImportError as exc:
        raise BackendError(f"hub.backend postgres needs the postgres extra ({exc.name} is missing): "
                           "pip install 'paperpilot-agent[postgres]'") from None
    except Exception as exc:
        if type(exc).__module__.split(".")[0] != "psycopg":
            raise
        from core.hub.pg.store import redact

        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BackendError(f"hub.dsn {redact(dsn or '')}: {first}") from None


def store_fault(exc: BaseException, store: Any) -> BackendError | None:
    """A PostgreSQL failure met while using an open store (the server killed or shut down, its
    connection lost) as one readable line naming the database; None for any other exception."""
    if getattr(store, "backend", "") != "postgres" or type(exc).__module__.split(".")[0] != "psycopg":
        return None
    first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return BackendError(f"hub.dsn {getattr(store, 'path', '')}: the PostgreSQL server failed "
                        f"({type(exc).__name__}: {first})")


def export_settings(settings: Any) -> None:
    """Pass ``hub.backend: postgres`` (and ``hub.dsn``) from a ``--config`` file on to the hub processes
    this one starts (stdio hubs, the daemon): they read the user settings file and the environment,
    not the parent's ``--config``. Values already in the environment are left alone."""
    import os

    if settings.hub.backend == "postgres":
        os.environ.setdefault("PAPERPILOT_HUB_BACKEND", "postgres")
        if settings.hub.dsn:
            os.environ.setdefault("PAPERPILOT_HUB_DSN", settings.hub.dsn)


def resolve_dsn(settings: Any) -> str | None:
    """``hub.dsn``, the embedded server's DSN (started if needed) when it is empty, or ``None`` on SQLite."""
    if settings.hub.backend != "postgres":
        return None
    if settings.hub.dsn:
        return settings.hub.dsn
    from core.hub.pg.embedded import Cluster

    with _clear_errors():
        return Cluster.for_home(settings.paths.home_dir()).ensure_running()


def open_store(settings: Any):
    """The hub store the settings name: :class:`~core.hub.store.HubStore` or :class:`~core.hub.pg.store.PgStore`."""
    dsn = resolve_dsn(settings)
    if dsn is None:
        from core.hub.store import HubStore

        return HubStore(settings.paths.file("hub_db"))
    from core.hub.pg.store import PgStore

    with _clear_errors(dsn):
        return PgStore(dsn)


def open_backend(dsn: str, reranker: Any = None):
    """(store, searcher) of the hub on the PostgreSQL database at ``dsn``."""
    from core.hub.pg.search import PgSearcher
    from core.hub.pg.store import PgStore

    with _clear_errors(dsn):
        store = PgStore(dsn)
    import logging

    logging.getLogger("paperpilot.hub").info("index: postgres at %s", store.path)
    return store, PgSearcher(store, reranker=reranker)
