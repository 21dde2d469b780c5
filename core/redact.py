"""Scrub secrets from anything we persist or export: traces, facts, checkpoints, session titles, exports.

Two layers: the literal secrets the settings know about (API key, MCP auth headers, secret-looking
env values, ``tracing.redact``), and patterns for credentials nobody configured but that still
leak into error messages (``Authorization: Bearer …``, ``sk-…`` keys, ``api_key=…``).
:meth:`Redactor.obj` walks dicts and lists recursively and rewrites every string, keys included;
:meth:`Redactor.value` walks a live object graph (Pydantic models such as LangChain messages, dicts,
lists) and returns a copy with the string *values* scrubbed, leaving keys and untouched parts as they are
(the checkpoint serializer uses it, so a secret never reaches the checkpoint database).
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

MASK = "[REDACTED]"
MIN_SECRET_LEN = 4  # shorter "secrets" would shred ordinary text

_PATTERNS = [
    # Authorization / Proxy-Authorization headers, in dict-repr, JSON or header form.
    re.compile(r"(?i)((?:proxy-)?authorization['\"]?\s*[:=]\s*['\"]?)(?:bearer\s+|basic\s+|token\s+)?[^\s'\",}]+"),
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    # key=value / "key": "value" for api keys, tokens, passwords.
    re.compile(
        r"(?i)((?:api[_-]?key|x-api-key|access[_-]?token|auth[_-]?token|secret|password|passwd)"
        r"['\"]?\s*[:=]\s*['\"]?)[^\s'\",}&]{4,}"
    ),
    # Well-known key shapes.
    re.compile(r"()\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}"),
    re.compile(r"()\b(?:ghp|gho|ghs|github_pat|hf|xox[abp])_[A-Za-z0-9_]{16,}"),
    re.compile(r"()\bAKIA[0-9A-Z]{16}\b"),
]
# Every pattern above needs one of these substrings (compared case-folded), so a string with none
# of them skips the regexes: most of what is scrubbed (chunk text, node names, ids) has none, and
# the six scans were most of a turn's redaction cost. "ı" and "İ" (dotless and dotted I) are the
# characters ``re.IGNORECASE`` matches to a trigger letter that ``str.casefold`` does not fold to it
# (a test checks every code point).
TRIGGERS = ("authorization", "bearer", "api_key", "api-key", "apikey", "access_token", "access-token", "accesstoken",
            "auth_token", "auth-token", "authtoken", "secret", "passw", "sk-", "ghp_", "gho_", "ghs_", "github_pat_",
            "hf_", "xox", "akia")
_FOLD = str.maketrans({"ı": "i", "İ": "i"})


def could_hold_credential(value: str) -> bool:
    """False only when no pattern can match ``value`` (a cheap pre-check)."""
    folded = value.translate(_FOLD).casefold()
    return any(t in folded for t in TRIGGERS)


class Redactor:
    """Replace configured secrets and credential-shaped substrings with ``[REDACTED]``."""

    def __init__(self, secrets: list[str] | None = None):
        uniq = {s for s in (secrets or []) if isinstance(s, str) and len(s.strip()) >= MIN_SECRET_LEN}
        self.secrets = sorted(uniq, key=len, reverse=True)  # longest first: a key containing another

    def text(self, value: str) -> str:
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, MASK)
        if not could_hold_credential(value):
            return value
        for pat in _PATTERNS:
            value = pat.sub(lambda m: m.group(1) + MASK, value)
        return value

    def obj(self, value: Any) -> Any:
        """A JSON-like value with every string scrubbed, keys included: the very same object where
        nothing changed (so a caller can tell), otherwise a copy (tuples become lists)."""
        if isinstance(value, str):
            new = self.text(value)
            return value if new == value else new
        if isinstance(value, dict):
            items = [(self.obj(k) if isinstance(k, str) else k, self.obj(v)) for k, v in value.items()]
            if all(k2 is k and v2 is v for (k2, v2), (k, v) in zip(items, value.items())):
                return value
            return dict(items)
        if isinstance(value, (list, tuple)):
            seq = [self.obj(v) for v in value]
            return value if all(a is b for a, b in zip(seq, value)) else seq
        return value

    def value(self, value: Any) -> Any:
        """``value`` with every string in it scrubbed; the very same object where nothing changed.

        Pydantic models are copied with only the changed fields replaced (their type is kept, so
        a checkpoint still decodes to the same classes); dict keys are left alone (they are names).
        """
        if isinstance(value, str):
            new = self.text(value)
            return value if new == value else new
        if isinstance(value, BaseModel):
            changed = {}
            for name in type(value).model_fields:
                old = getattr(value, name, None)
                if (new := self.value(old)) is not old:
                    changed[name] = new
            return value.model_copy(update=changed) if changed else value
        if isinstance(value, dict):
            items = {k: self.value(v) for k, v in value.items()}
            return items if any(items[k] is not v for k, v in value.items()) else value
        if isinstance(value, (list, tuple)):
            seq = [self.value(v) for v in value]
            if all(a is b for a, b in zip(seq, value)):
                return value
            return seq if isinstance(value, list) else tuple(seq)
        return value
