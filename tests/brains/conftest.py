"""The offline brain's tests run over the bundled collection: its vocabulary is the active one."""

from __future__ import annotations

import pytest

from core.vocabulary import active
from tests.support.vocab import bundled_vocabulary


@pytest.fixture(autouse=True)
def _bundled_vocabulary():
    with active(bundled_vocabulary()):
        yield
