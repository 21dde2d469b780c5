"""Record the bundled corpus's ``list_topics`` answer for the Topics screen's tests.

    python -m tests.support.record_topics [HUB_DB]

Indexes the bundled notes (or reads HUB_DB) and writes the tool's structured content, without the
machine-specific source paths, to ``tests/data/topics_default.json``.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "data" / "topics_default.json"


def main(argv: list[str] | None = None) -> int:
    from core.hub.service import Hub

    args = sys.argv[1:] if argv is None else argv
    db = Path(args[0]) if args else Path(tempfile.mkdtemp(prefix="topics-")) / "hub.sqlite3"
    hub = Hub(db, sync=not args)
    hub.start(background=False)
    data = hub.list_topics("default").model_dump(mode="json")
    for t in data["topics"]:
        for d in t["documents"]:
            d.pop("source", None)
    OUT.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(data['topics'])} topics → {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
