"""Errors that cross module boundaries, below everything (standard library only).

Brains, the MCP client and the agent raise them; the CLI and the app catch them to print one line.
"""

from __future__ import annotations


class BrainError(Exception):
    """A brain could not produce a judgement (e.g. the LLM endpoint is unreachable)."""


class BackendUnavailable(BrainError):
    """An external backend (LLM endpoint, MCP server) cannot be reached; one user-facing line."""


# How the knowledge hub words a tool error that is its own store's fault (a database that failed
# mid-query), unlike a bad request: the client raises BackendUnavailable for it, never "no evidence".
BACKEND_FAULT = "the knowledge hub's backend failed"


class StoreUnreadable(Exception):
    """A data file is not a readable SQLite database; the message names it and what to do."""

    @classmethod
    def of(cls, path: object, exc: BaseException) -> StoreUnreadable:
        return cls(f"{path} is not a readable database ({exc}); move it aside (mv {path} {path}.bad) "
                   "to start it afresh, or restore it from a backup")


class LLMUnavailable(BackendUnavailable):
    """The configured LLM endpoint cannot be reached (the knowledge hub may be fine)."""


class UnsafePath(StoreUnreadable):
    """A data path that is not ours to use: a directory where a file belongs, another user's file
    or folder, one others can write to. The message names the path (and its settings key) and what
    to do; every handler of :class:`StoreUnreadable` prints it as one line."""
