"""A stdio server's stderr, passed through to ours, held back while the server starts.

A stdio server that cannot start (a corrupt ``hub.sqlite3``, say) prints why on its stderr and exits;
the client then sees only a closed connection. Left on the terminal, that gave two lines for one
fault: the server's, then the client's "unreachable". The child writes into a pipe instead: while
the session opens, its lines are held; once the session is up they are flushed and later ones are
passed through as they come. If the session never opens, :meth:`ChildStderr.failed` hands back the
child's last line, for the client to fold into its one error line, and prints any earlier ones.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import TextIO

MAX_HELD = 200  # lines held while the server starts; older ones are dropped


class ChildStderr:
    """One pipe for one server process's stderr; :attr:`file` is what the child is given."""

    def __init__(self, out: TextIO | None = None) -> None:
        read_fd, write_fd = os.pipe()
        self.file: TextIO = os.fdopen(write_fd, "w", encoding="utf-8", errors="replace")
        self._read = os.fdopen(read_fd, "r", encoding="utf-8", errors="replace")
        self._out = out
        self._held: list[str] | None = []  # None once released: lines pass straight through
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._pump, name="server-stderr", daemon=True)
        self._thread.start()

    def _pump(self) -> None:
        with self._read:
            for line in self._read:
                with self._lock:
                    if self._held is None:
                        self._write(line)
                    else:
                        self._held = [*self._held[-(MAX_HELD - 1):], line]

    def _write(self, line: str) -> None:
        out = self._out or sys.stderr
        try:
            out.write(line if line.endswith("\n") else line + "\n")
            out.flush()
        except (OSError, ValueError):  # our stderr is gone: the child's lines have nowhere to go
            pass

    def release(self) -> None:
        """The server is up: print what it said while starting, pass later lines through."""
        with self._lock:
            held, self._held = self._held or [], None
            for line in held:
                self._write(line)

    def failed(self, wait_s: float = 2.0) -> str:
        """The server did not start (and has been stopped): its last non-blank line, stripped ("" if
        it said nothing); the lines before it are printed as they would have been."""
        self.close(wait_s)
        with self._lock:
            held, self._held = self._held or [], None
        lines = [ln.strip() for ln in held if ln.strip()]
        for line in lines[:-1]:
            self._write(line)
        return lines[-1] if lines else ""

    def close(self, wait_s: float = 2.0) -> None:
        """Close our end of the pipe; the pump ends when every server holding it has exited."""
        if not self.file.closed:
            self.file.close()
        self._thread.join(wait_s)
