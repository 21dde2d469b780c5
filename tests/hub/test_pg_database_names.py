"""Each test database has a name no other copy of the fixtures can hand out again.

``tests/hub/conftest.py`` is loaded twice in one run: pytest imports it as a conftest, and modules
that need a database outside a fixture import it again as ``tests.hub.conftest``. With a counter
kept in the module, both copies named their first database ``hub_test_<pid>_0``; the second copy
then dropped the first one's database while a hub was still connected to it (CI: ``ObjectInUse:
database "hub_test_17861_0" is being accessed by other users``).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path


from tests.support.extras import needs

pytestmark = needs("postgres")


def _fresh_copy(tag: str):
    spec = importlib.util.spec_from_file_location(f"conftest_copy_{tag}", Path(__file__).with_name("conftest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_copies_of_the_fixtures_never_reuse_a_live_database(pg_cluster):
    import psycopg

    first, second = _fresh_copy("a"), _fresh_copy("b")
    dsn = first.new_database(pg_cluster)
    with psycopg.connect(dsn, autocommit=True) as held:  # a hub still connected to its database
        held.execute("CREATE TABLE kept (x int)")
        other = second.new_database(pg_cluster)
        assert other != dsn
        assert held.execute("SELECT count(*) FROM kept").fetchone() == (0,)
