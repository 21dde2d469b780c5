"""With the ONNX runtime (the default), answering a question never imports torch: not the encoder,
not the hub's search, not fact memory, not the router, and not the hub's child process either.

The graphs are built in this test process first, into the run's shared cache; the subprocesses then get a ``torch`` package that records the attempt in a marker file and raises, placed
first on PYTHONPATH so that the hub child, which inherits the environment, gets it too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from core import onnx_runtime
from core.models.manager import SHIPPED_ROUTER
from tests.support.heavy import TRAIN_STACK

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
HEAVY = set(TRAIN_STACK)

IN_PROCESS = """
import asyncio, json, sys
from pathlib import Path
from core import embeddings
from core.config import Settings
from core.hub.ingest import CORPUS_DIR, Ingestor
from core.hub.search import Searcher
from core.hub.store import HubStore
from core.memory.facts import FactStore
from core.models.router import load_router

home = Path(sys.argv[1])
store = HubStore(home / "hub.sqlite3")
Ingestor(store).ingest([CORPUS_DIR / "lora.md", CORPUS_DIR / "qlora.md"], "c")
hits = Searcher(store).search("c", "What rank does LoRA use by default?", 5)
facts = FactStore(home / "facts.sqlite3")
facts.add("LoRA adapts the attention projections with rank r = 8 by default.")
recalled = facts.search_sync("default LoRA rank", 1)
route = load_router(Settings()).classify_sync("Compare LoRA and QLoRA in memory use", [])
print(json.dumps({"backend": embeddings.backend(), "hits": [h.chunk.doc_id for h in hits],
                  "recalled": len(recalled), "route": route.type, "router": type(load_router(Settings())).__name__,
                  "heavy": sorted(m for m in sys.modules if m.split(".")[0] in HEAVY)}))
"""


@pytest.fixture(scope="module")
def poisoned_env(tmp_path_factory) -> tuple[dict[str, str], Path]:
    onnx_runtime.encoder_file()
    onnx_runtime.router_file(SHIPPED_ROUTER)
    root = tmp_path_factory.mktemp("poison")
    marker = root / "torch-imported"
    (root / "torch").mkdir()
    (root / "torch" / "__init__.py").write_text(
        "import traceback\n"
        f"open({str(marker)!r}, 'a').write(''.join(traceback.format_stack()) + '\\n')\n"
        "raise ImportError('torch is not allowed on the ONNX ask path')\n")
    env = {**os.environ, "PAPERPILOT_ENCODER": "onnx", "PAPERPILOT_HOME": str(root / "home"),
           "PYTHONPATH": os.pathsep.join([str(root), str(REPO), os.environ.get("PYTHONPATH", "")])}
    return env, marker


def test_embed_search_memory_and_router_import_no_torch(poisoned_env):
    env, marker = poisoned_env
    home = Path(env["PAPERPILOT_HOME"]) / "inproc"
    home.mkdir(parents=True)
    out = subprocess.run([sys.executable, "-c", f"HEAVY = {HEAVY!r}\n" + IN_PROCESS, str(home)], cwd=REPO, env=env,
                         capture_output=True, text=True, timeout=240)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert not marker.exists(), marker.read_text()[-3000:]
    assert got["heavy"] == []
    assert got["backend"] == "onnx" and got["router"] == "OnnxLoRARouter"
    assert got["hits"][0] == "lora" and got["recalled"] == 1 and got["route"] == "comparative"


def test_paperpilot_ask_imports_no_torch_in_either_process(poisoned_env):
    env, marker = poisoned_env
    probe = ("import json, sys\nfrom paperpilot_tui.cli.main import main\n"
             "code = main(['ask', 'What rank does LoRA use by default?'])\n"
             f"print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r})))\n"
             "sys.exit(code or 0)\n")
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-3000:]
    assert not marker.exists(), marker.read_text()[-3000:]
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
    assert "r = 8" in out.stdout or "rank" in out.stdout
