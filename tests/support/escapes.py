"""Terminal-control payloads for the escape-safety tests, and the check each sink must pass.

Every sink that shows stored or third-party text gets the same payloads, each wrapped in readable
text (:func:`wrapped`): the output must hold no ESC, C1, BEL or bidi override character, and the
readable words around the payload must survive.
"""

from __future__ import annotations

import re

import pytest

PAYLOADS = {
    "osc0-title": "\x1b]0;pwned\x07",
    "osc52-clipboard": "\x1b]52;c;cHduZWQ=\x07",
    "csi-clear": "\x1b[2J",
    "csi8-clear": "\x9b2J",
    "dcs": "\x1bP1$qm\x1b\\",
    "bidi-override": "\u202e",
    "lone-esc": "\x1b",
    "bel": "\x07",
}
ALL = "".join(PAYLOADS.values())
BEFORE, AFTER = "Orrery", "gears turn"  # readable words on either side of the payload

payloads = pytest.mark.parametrize("payload", list(PAYLOADS.values()), ids=list(PAYLOADS))

UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def wrapped(payload: str) -> str:
    return f"{BEFORE} {payload}{AFTER}"


def assert_inert(output: str) -> None:
    """``output`` (text a terminal would receive) holds no control character and keeps the words."""
    found = sorted({repr(c) for c in UNSAFE.findall(output)})
    assert not found, f"control characters reach the terminal: {found}"
    assert BEFORE in output and AFTER in output, output[-2000:]
