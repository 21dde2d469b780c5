"""A rerank step that holds a query open, so a fault test can kill the hub mid-call.

Used as ``--rerank tests.stubs.slow_rerank:rerank`` (or ``PAPERPILOT_HUB_RERANK``). It touches the
file named by ``SLOW_RERANK_MARK`` (when set) as the query enters it, then sleeps
``SLOW_RERANK_S`` seconds (default 3) and returns the hits unchanged.
"""

from __future__ import annotations

import os
import time
from pathlib import Path


def rerank(query: str, hits: list) -> list:
    mark = os.environ.get("SLOW_RERANK_MARK")
    if mark:
        Path(mark).touch()
    time.sleep(float(os.environ.get("SLOW_RERANK_S", "3")))
    return hits
