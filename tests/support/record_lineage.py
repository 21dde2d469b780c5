"""Record a real ``get_lineage`` answer for the Lineage screen's tests.

    python -m tests.support.record_lineage

Draws the four invented quokka-attention papers (:mod:`tests.hub.lineage_papers`), ingests them into
a fresh hub and writes the tool's structured content for "how did quokka attention evolve", without
the machine-specific source paths, to ``tests/data/lineage_quokka.json``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "data" / "lineage_quokka.json"
TOPIC = "how did quokka attention evolve"


def main() -> int:
    from core.hub.ingest import Ingestor
    from core.hub.service import Hub
    from core.hub.store import HubStore
    from tests.hub.lineage_papers import ARXIV_2014, draw_all

    home = Path(tempfile.mkdtemp(prefix="lineage-"))
    files = draw_all(home / "papers")
    store = HubStore(home / "hub.sqlite3")
    Ingestor(store).ingest(files, "quokkas", meta={str(files[0].resolve()): {"url": f"https://arxiv.org/abs/{ARXIV_2014}"}})
    store.close()
    hub = Hub(home / "hub.sqlite3", sync=False)
    hub.start(background=False)
    data = hub.lineage(TOPIC, collection="quokkas").model_dump(mode="json")
    for p in data["papers"]:
        p["source"] = Path(p["source"]).name
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(data['papers'])} papers, {len(data['edges'])} edges → {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
