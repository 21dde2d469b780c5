"""Dates for lists (local time, minute precision: stable enough for snapshots under a fixed TZ)."""

from __future__ import annotations

import time


def fmt_time(ts: float | None) -> str:
    if not ts:
        return "—"
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))
