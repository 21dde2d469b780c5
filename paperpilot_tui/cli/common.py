"""Helpers shared by subcommands: settings loading with clean errors, asyncio running."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable
from typing import Any

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BACKEND = 0, 1, 2, 3


def load_settings_or_exit(args: argparse.Namespace) -> Any:
    """Load settings; on a bad file print one line and exit 2."""
    from core.config import ConfigError, load_settings

    try:
        return load_settings(getattr(args, "config", None))
    except ConfigError as exc:
        print(f"paperpilot: config error: {exc}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None


def fail(message: str, code: int) -> int:
    print(f"paperpilot: {message}", file=sys.stderr)
    return code


def run_async(coro: Awaitable[int]) -> int:
    try:
        return asyncio.run(coro)  # type: ignore[arg-type]
    except KeyboardInterrupt:
        return fail("interrupted", 130)
