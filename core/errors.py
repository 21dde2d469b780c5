"""Errors that cross module boundaries, below everything (standard library only).

Brains, the MCP client and the agent raise them; the CLI and the app catch them to print one line.
"""

from __future__ import annotations


class BrainError(Exception):
    """A brain could not produce a judgement (e.g. the LLM endpoint is unreachable)."""


class BackendUnavailable(BrainError):
    """An external backend (LLM endpoint, MCP server) cannot be reached; one user-facing line."""


class LLMUnavailable(BackendUnavailable):
    """The configured LLM endpoint cannot be reached (the knowledge hub may be fine)."""
