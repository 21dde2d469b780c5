"""The bundled collection's vocabulary, built the way the hub builds it, for tests that call the
offline brain directly (outside a turn, where the agent would activate it)."""

from __future__ import annotations

import tempfile
from functools import lru_cache
from pathlib import Path

from core.vocabulary import Vocabulary


@lru_cache(maxsize=1)
def bundled_vocabulary() -> Vocabulary:
    from core.hub.ingest import sync_bundled
    from core.hub.service import build_vocabulary
    from core.hub.store import HubStore

    with tempfile.TemporaryDirectory(prefix="paperpilot-vocab-") as tmp:
        store = HubStore(Path(tmp) / "hub.sqlite3")
        try:
            sync_bundled(store, embed=False)
            return build_vocabulary(store, "default", store.revision("default"))
        finally:
            store.close()
