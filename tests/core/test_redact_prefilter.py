"""The redactor's pre-check may skip the credential regexes only where none of them could match."""

from __future__ import annotations

import re

import pytest

from core.redact import _PATTERNS, MASK, TRIGGERS, Redactor, could_hold_credential


@pytest.mark.slow  # exhaustive: every Unicode code point through every pattern
def test_the_precheck_folds_every_character_the_patterns_match_case_insensitively():
    # re.IGNORECASE matches more than ASCII case ("ſ" ~ "s", "K" Kelvin sign ~ "k", "ı" ~ "i"); every
    # character that can stand for a trigger letter must fold to it, or a credential would slip past.
    letters = sorted({ch for t in TRIGGERS for ch in t})
    for ch in letters:
        pat = re.compile("(?i)" + re.escape(ch))
        for cp in range(0x110000):
            c = chr(cp)
            if pat.fullmatch(c):
                assert could_hold_credential(t_with(ch, c)), (ch, hex(cp))


def t_with(letter: str, c: str) -> str:
    """A trigger containing ``letter`` with that letter spelled as ``c``."""
    trig = next(t for t in TRIGGERS if letter in t)
    return trig.replace(letter, c, 1)


@pytest.mark.parametrize("text", [
    "Authorization: Bearer abcdefgh12345678", "bearer abcdefgh12345678", "api_key=abcd1234", "X-API-KEY: zzzz9999",
    "access-token=qwerty12", "passwd: hunter22", "secret=s3cr3tvalue", "sk-proj-ABCDEFGHIJKLMNOPQRST",
    "ghp_ABCDEFGHIJKLMNOPQRSTUVWX", "xoxb_ABCDEFGHIJKLMNOPQRSTUV", "AKIAABCDEFGHIJKLMNOP",
    "ſecret=s3cr3tvalue", "apı_key=abcd1234",  # long s and dotless i: matched by the (?i) patterns
])
def test_every_credential_shape_is_still_masked(text):
    assert any(p.search(text) for p in _PATTERNS)  # the shape is one the patterns know
    assert MASK in Redactor().text(text)


def test_ordinary_text_is_returned_untouched_and_configured_secrets_still_go():
    plain = "LoRA freezes the pre-trained weights and trains rank-decomposition matrices [1]."
    assert not could_hold_credential(plain)
    assert Redactor().text(plain) is plain
    assert Redactor(["lemon-tart-99"]).text("the key is lemon-tart-99 today") == f"the key is {MASK} today"


def test_obj_returns_the_same_object_when_nothing_changed_and_scrubs_keys_otherwise():
    clean = {"kind": "node_finished", "data": [1, "LoRA", {"a": None}]}
    assert Redactor().obj(clean) is clean
    dirty = {"kind": "notice", "api_key=abcd1234": ["Bearer abcdefgh12345678", "ok"]}
    out = Redactor().obj(dirty)
    assert out is not dirty and dirty["kind"] == "notice"
    assert list(out) == ["kind", f"api_key={MASK}"] and out[f"api_key={MASK}"] == [f"Bearer {MASK}", "ok"]
