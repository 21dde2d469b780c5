"""Start-up path hygiene: `paperpilot --help`, a subcommand's --help and importing the app load none
of the heavy libraries (tests/support/heavy.py; the ask path itself: tests/core/test_no_torch_on_ask_path.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.heavy import STARTUP_HEAVY

PROBE = """
import contextlib, io, json, sys
{code}
print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {heavy!r})))
"""
CLI = """from paperpilot_tui.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    try:
        main({argv!r})
    except SystemExit:
        pass"""


def loaded_after(code: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE.format(code=code, heavy=set(STARTUP_HEAVY))],
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("code", [CLI.format(argv=["--help"]), CLI.format(argv=["ask", "--help"]),
                                  "import paperpilot_tui.app"], ids=["--help", "ask --help", "import app"])
def test_start_up_paths_import_nothing_heavy(code):
    assert loaded_after(code) == []


def test_help_explains_commands():
    out = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "--help"], capture_output=True,
                         text=True, timeout=60, check=True).stdout
    assert "ask" in out and "PAPERPILOT_HOME" in out


# A restarted hub's first query: the store opened, the collection's saved indexes mapped, the query
# embedded by the real encoder and searched. bm25s (whose import pulls in scipy.sparse) only builds
# and writes a BM25 index; pydantic's dataclasses only serve the citation graph's edges.
QUERY_PATH_LAZY = ("bm25s", "scipy", "pydantic")
FIRST_QUERY = f"""
import json, sys
from core.hub.search import Searcher
from core.hub.store import HubStore
hits = Searcher(HubStore(sys.argv[1])).search("c", "adapter rank attention", 5)
print(json.dumps({{"hits": len(hits), "loaded": sorted(m for m in sys.modules if m.split('.')[0] in {set(QUERY_PATH_LAZY)!r})}}))
"""


def test_a_restarted_hubs_first_query_imports_no_bm25s_scipy_or_pydantic(tmp_path):
    import numpy as np

    from core.hub.search import Searcher
    from core.hub.store import HubStore, NewChunk

    rng = np.random.default_rng(0)
    words = "adapter rank matrix attention quantization reward policy retrieval".split()
    store = HubStore(tmp_path / "hub.sqlite3")
    for n in range(4):
        chunks = [NewChunk([f"Doc {n}", f"S{i}"], " ".join(rng.choice(words, 12)),
                           vector=(v := rng.standard_normal(384).astype(np.float32)) / np.linalg.norm(v))
                  for i in range(5)]
        store.put_document({"doc_id": f"d{n}", "collection": "c", "path": f"/n/d{n}.md", "doc_type": "markdown",
                            "file_hash": f"h{n}", "title": f"Doc {n}"}, chunks)
    q = rng.standard_normal(384).astype(np.float32)
    assert Searcher(store, embed_query=lambda _: q / np.linalg.norm(q)).search("c", "adapter", 5)  # writes the files
    store.close()
    assert sorted(p.suffix for p in (tmp_path / "hub-index").iterdir()) == [".bm25", ".npy", ".npy"]

    out = subprocess.run([sys.executable, "-c", FIRST_QUERY, str(tmp_path / "hub.sqlite3")],
                         capture_output=True, text=True, timeout=300, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["hits"] == 5
    assert got["loaded"] == []
