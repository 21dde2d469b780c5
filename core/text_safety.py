"""The one sanitizer for text that reaches a terminal.

Stored and third-party text (paper titles and bodies, facts, session titles, topic names, file names,
hub and LLM output) must never drive the terminal it is shown on: an OSC 0/2 sequence retitles the
window, OSC 52 writes the clipboard, CSI sequences clear or move the screen, DCS/APC/PM/SOS strings
reach terminal extensions, and bidi overrides make displayed text read differently from what it is.

What is removed (dropped, not replaced: nothing in it is readable text, and a placeholder would make
the same string display differently in the app, whose layout is fixed before the text is drawn):

- whole escape sequences, 7-bit and 8-bit: CSI and the strings OSC, DCS, SOS, PM and APC (their
  bodies are parameters, never text); any other ESC loses only the ESC, so the letter after it (in
  ``ESC c`` or a lone ESC before a word) stays, inert;
- every other C0 control but newline and tab (those two become a space where one line is expected),
  DEL, and the C1 controls U+0080–U+009F;
- the bidi embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069.

Printable text, including the printable remainder of an unterminated sequence, is kept.
:func:`terminal_safe` is for text before it is laid out (CLI lines, log records);
:func:`drop_controls` removes the same characters one by one and nothing else, for text whose
on-screen width is already fixed (the app's rendered lines: every character it drops is zero-width).
"""

from __future__ import annotations

import logging
import re
import sys

# Characters that are never shown: C0 but \t \n, DEL, C1, bidi embeddings/overrides/isolates.
_UNSAFE_CHARS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069"
_UNSAFE_CHAR = re.compile(f"[{_UNSAFE_CHARS}]")
_LINE_BREAKS = re.compile(r"[\t\n]")

# String sequences end at BEL or ST (ESC \ or 8-bit \x9c); an unterminated one loses only its ESC or C1.
_STRING_END = r"(?:\x07|\x1b\\|\x9c)"
_SEQUENCE = re.compile(
    r"(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"                       # CSI (7- and 8-bit)
    rf"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c]*{_STRING_END}"  # OSC, DCS, SOS, PM, APC
)


def terminal_safe(text: str, *, multiline: bool = True) -> str:
    """``text`` without escape sequences, control characters or bidi overrides.

    With ``multiline`` false, newlines and tabs become spaces too, so that a stored value shown inside
    a one-line message cannot start a line of its own.
    """
    if text.isprintable():  # the common case, checked at C speed (no control is printable)
        return text
    text = _UNSAFE_CHAR.sub("", _SEQUENCE.sub("", text))
    return text if multiline else _LINE_BREAKS.sub(" ", text)


def drop_controls(text: str) -> str:
    """``text`` without the zero-width characters :func:`terminal_safe` removes (its width unchanged)."""
    return text if text.isprintable() else _UNSAFE_CHAR.sub("", text)


class SafeFormatter(logging.Formatter):
    """A log formatter whose lines are :func:`terminal_safe`: a log line quotes stored text too."""

    def format(self, record: logging.LogRecord) -> str:
        return terminal_safe(super().format(record))


class SafeLastResort(logging.Handler):
    """What Python logs with when a logger has no handler (warnings, to the current ``sys.stderr``),
    through :class:`SafeFormatter`; install it as ``logging.lastResort``."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.setFormatter(SafeFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        try:
            sys.stderr.write(self.format(record) + "\n")
        except Exception:  # noqa: BLE001 - logging never raises into the caller
            self.handleError(record)
