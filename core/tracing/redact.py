"""Moved to :mod:`core.redact` (checkpoints and sessions use it too); kept so old imports still work."""

from core.redact import MASK, MIN_SECRET_LEN, Redactor  # noqa: F401
