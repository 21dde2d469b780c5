"""Scrub secrets from anything we persist or export (traces, fact exports).

Two layers: the literal secrets the settings know about (API key, MCP auth headers, secret-looking
env values, ``tracing.redact``), and patterns for credentials nobody configured but that still
leak into error messages (``Authorization: Bearer …``, ``sk-…`` keys, ``api_key=…``).
:meth:`Redactor.obj` walks dicts and lists recursively and rewrites every string, keys included.
"""

from __future__ import annotations

import re
from typing import Any

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


class Redactor:
    """Replace configured secrets and credential-shaped substrings with ``[REDACTED]``."""

    def __init__(self, secrets: list[str] | None = None):
        uniq = {s for s in (secrets or []) if isinstance(s, str) and len(s.strip()) >= MIN_SECRET_LEN}
        self.secrets = sorted(uniq, key=len, reverse=True)  # longest first: a key containing another

    def text(self, value: str) -> str:
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, MASK)
        for pat in _PATTERNS:
            value = pat.sub(lambda m: m.group(1) + MASK, value)
        return value

    def obj(self, value: Any) -> Any:
        """A copy of a JSON-like value with every string scrubbed."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.obj(k) if isinstance(k, str) else k: self.obj(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.obj(v) for v in value]
        return value
