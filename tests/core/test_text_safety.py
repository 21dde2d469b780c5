"""The one terminal sanitizer (:mod:`core.text_safety`): what it removes, what it keeps."""

from __future__ import annotations

import logging

import pytest

from core.text_safety import SafeFormatter, drop_controls, terminal_safe
from tests.support.escapes import AFTER, BEFORE, assert_inert, payloads, wrapped


@payloads
def test_a_payload_is_removed_whole_and_the_words_kept(payload):
    assert terminal_safe(wrapped(payload)) == f"{BEFORE} {AFTER}"


@payloads
def test_drop_controls_keeps_the_width_and_leaves_nothing_active(payload):
    from rich.cells import cell_len

    kept = drop_controls(wrapped(payload))
    assert cell_len(kept) == cell_len(wrapped(payload))
    assert_inert(kept)


@pytest.mark.parametrize("text, multiline, one_line", [
    ("tab\tand\nnewline ünïcode 中文 📌 a\u00a0b", "tab\tand\nnewline ünïcode 中文 📌 a\u00a0b",
     "tab and newline ünïcode 中文 📌 a\u00a0b"),
    ("crlf\r\nline", "crlf\nline", "crlf line"),
    ("isolates \u2066x\u2069 and \u202ay\u202c", "isolates x and y", "isolates x and y"),
    ("C1 \x85next \x9d8;;evil\x9c ok", "C1 next  ok", "C1 next  ok"),
    ("unterminated \x1b]0;title", "unterminated ]0;title", "unterminated ]0;title"),
    ("charset \x1b(Breset\x1bc done", "charset (Bresetc done", "charset (Bresetc done"),
])
def test_other_controls(text, multiline, one_line):
    assert terminal_safe(text) == multiline
    assert terminal_safe(text, multiline=False) == one_line


def test_safe_formatter_cleans_the_message_and_the_traceback():
    try:
        raise ValueError(wrapped("\x1b]0;pwned\x07"))
    except ValueError:
        record = logging.LogRecord("t", logging.ERROR, __file__, 1, "could not index %s", (wrapped("\x9b2J"),),
                                   exc_info=__import__("sys").exc_info())
    line = SafeFormatter("%(levelname)s %(message)s").format(record)
    assert line.startswith(f"ERROR could not index {BEFORE} {AFTER}\nTraceback")
    assert_inert(line)
