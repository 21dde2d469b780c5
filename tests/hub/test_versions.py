"""Document versions: old chunks kept with retention, search by version / as_of, the summary's
version list, the migration of a hub.sqlite3 from before versions, and kill -9 mid-write."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.hub.ingest import Ingestor
from core.hub.service import Hub, HubError
from core.hub.store import HubStore

from tests.hub.helpers import REPO, server_env

V1 = "# Quokka Adapters\n\nQuokka adapters use a rank of 17. They train on the Glimmer corpus.\n"
V2 = "# Quokka Adapters\n\nQuokka adapters use a rank of 32. They train on the Glimmer corpus. Dropout is 0.3.\n"


def _hub(tmp_path: Path, keep: int = 5) -> tuple[Hub, Ingestor, Path]:
    hub = Hub(tmp_path / "hub.sqlite3", sync=False)
    hub.start(background=False)
    doc = tmp_path / "quokka.md"
    return hub, Ingestor(hub.store, embed=False, keep_versions=keep), doc


def _texts(hits) -> str:
    return " ".join(h.chunk.text for h in hits)


def test_a_changed_file_keeps_its_old_version_and_search_sees_the_current_one(tmp_path):
    hub, ing, doc = _hub(tmp_path)
    doc.write_text(V1)
    ing.ingest([doc], "default")
    doc.write_text(V2)
    assert ing.ingest([doc], "default").updated == ["quokka"]

    current = hub.query("quokka adapters rank", 5, "default")
    assert "rank of 32" in _texts(current) and "rank of 17" not in _texts(current)
    assert all(h.chunk.version == 2 and h.chunk.current for h in current)
    old = hub.query("quokka adapters rank", 5, "default", version=1)
    assert "rank of 17" in _texts(old) and "rank of 32" not in _texts(old)
    assert [h.chunk.chunk_id for h in old] == ["quokka_0000@v1"]
    assert hub.node("quokka_0000@v1").text.startswith("Quokka adapters use a rank of 17")
    assert hub.store.stats("default")["chunk_count"] == 1  # stats count the current version only
    assert [h.chunk.chunk_id for h in hub.keyword(["Dropout"])] == ["quokka_0000"]
    assert hub.keyword(["rank of 17"]) == []  # keyword browsing is the current version too


def test_summary_lists_versions_with_date_chunks_and_hash(tmp_path):
    hub, ing, doc = _hub(tmp_path)
    doc.write_text(V1)
    ing.ingest([doc], "default")
    doc.write_text(V2)
    ing.ingest([doc], "default")
    s = hub.summary("quokka", "default")
    assert [(v.version, v.chunk_count, v.current) for v in s.versions] == [(1, 1, False), (2, 1, True)]
    import hashlib

    assert s.versions[1].content_hash == hashlib.sha256(V2.encode()).hexdigest()
    assert s.versions[0].created_at[:4].isdigit() and "T" in s.versions[0].created_at


def test_as_of_searches_what_was_current_then(tmp_path):
    hub, ing, doc = _hub(tmp_path)
    doc.write_text(V1)
    ing.ingest([doc], "default")
    between = time.time()
    time.sleep(0.05)
    doc.write_text(V2)
    ing.ingest([doc], "default")
    when = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(between)) + f".{int(between % 1 * 1e6):06d}"
    assert "rank of 17" in _texts(hub.query("quokka rank", 5, "default", as_of=when))
    assert "rank of 32" in _texts(hub.query("quokka rank", 5, "default", as_of=time.strftime("%Y-%m-%d")))
    assert hub.query("quokka rank", 5, "default", as_of="2001-01-01") == []
    with pytest.raises(HubError, match="ISO date"):
        hub.query("quokka", 5, "default", as_of="last tuesday")
    with pytest.raises(HubError, match="not both"):
        hub.query("quokka", 5, "default", version=1, as_of="2001-01-01")
    with pytest.raises(HubError, match="no version 7 .kept versions: 1, 2"):
        hub.query("quokka", 5, "default", version=7, doc_id="quokka")


def test_retention_drops_versions_beyond_keep_versions(tmp_path):
    hub, ing, doc = _hub(tmp_path, keep=2)
    for n in range(1, 5):
        doc.write_text(f"# Quokka Adapters\n\nQuokka adapters use a rank of {n}00.\n")
        ing.ingest([doc], "default")
    assert [v["version"] for v in hub.store.versions("quokka")] == [3, 4]
    assert hub.query("quokka rank", 5, "default", version=2) == []
    assert "rank of 300" in _texts(hub.query("quokka rank", 5, "default", version=3))
    rows = hub.store.conn().execute("SELECT count(*) FROM chunks WHERE doc_id='quokka'").fetchone()[0]
    assert rows == 2  # the dropped versions' chunks are gone, not just hidden


def test_an_existing_hub_database_is_migrated_in_place(tmp_path):
    """A hub.sqlite3 written by the schema before versions (no version/current columns, no
    doc_versions) opens, keeps its documents searchable and then versions them."""
    db = tmp_path / "hub.sqlite3"
    old = sqlite3.connect(db)
    old.executescript("""
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE collections(name TEXT PRIMARY KEY, created_at REAL NOT NULL, revision INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE documents(doc_id TEXT PRIMARY KEY, collection TEXT NOT NULL, path TEXT NOT NULL,
          doc_type TEXT NOT NULL, file_hash TEXT NOT NULL, file_size INTEGER, version INTEGER NOT NULL DEFAULT 1,
          title TEXT NOT NULL, authors TEXT, year INTEGER, pages INTEGER, summary TEXT, created_at REAL NOT NULL,
          updated_at REAL NOT NULL, url TEXT, UNIQUE(collection, path));
        CREATE TABLE chunks(id INTEGER PRIMARY KEY, chunk_id TEXT NOT NULL UNIQUE, doc_id TEXT NOT NULL,
          collection TEXT NOT NULL, position INTEGER NOT NULL, section_path TEXT NOT NULL, breadcrumb TEXT NOT NULL,
          page INTEGER, text TEXT NOT NULL);
        CREATE TABLE embeddings(chunk_rowid INTEGER PRIMARY KEY, model TEXT NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL);
        CREATE VIRTUAL TABLE chunks_fts USING fts5(collection UNINDEXED, title, breadcrumb, text, tokenize='porter unicode61');
        INSERT INTO collections VALUES('default', 0, 3);
    """)
    doc = tmp_path / "quokka.md"
    doc.write_text(V1)
    old.execute("INSERT INTO documents VALUES('quokka','default',?,'markdown','h0',10,3,'Quokka Adapters',"
                "'[]',NULL,1,'',1.0,2.0,NULL)", (str(doc.resolve()),))
    old.execute("INSERT INTO chunks VALUES(1,'quokka_0000','quokka','default',0,'[\"Quokka Adapters\"]',"
                "'Quokka Adapters','','Quokka adapters use a rank of 17.')")
    old.execute("INSERT INTO chunks_fts(rowid, collection, title, breadcrumb, text) VALUES(1,'default',"
                "'Quokka Adapters','Quokka Adapters','Quokka adapters use a rank of 17.')")
    old.commit()
    old.close()

    store = HubStore(db)
    assert store.conn().execute("PRAGMA user_version").fetchone()[0] == 2
    assert store.versions("quokka") == [{"version": 3, "created_at": 2.0, "chunk_count": 1, "file_hash": "h0",
                                         "file_size": 10}]
    assert [c.version for c in store.doc_chunks("quokka")] == [3]
    store.close()
    hub = Hub(db, sync=False)
    hub.start(background=False)
    assert "rank of 17" in _texts(hub.query("quokka rank", 5, "default"))
    doc.write_text(V2)
    Ingestor(hub.store, embed=False).ingest([doc], "default")
    assert [v["version"] for v in hub.store.versions("quokka")] == [3, 4]
    assert "rank of 17" in _texts(hub.query("quokka rank", 5, "default", version=3))
    HubStore(db).close()  # opening again is a no-op: already at the current schema


WRITER = """
import sys, time
from pathlib import Path
from core.hub.ingest import Ingestor
from core.hub.store import HubStore
store = HubStore(sys.argv[1])
ing = Ingestor(store, embed=False, keep_versions=3)
doc = Path(sys.argv[2])
n = 0
while True:
    n += 1
    doc.write_text("# Quokka Adapters\\n\\n" + " ".join(f"Sentence {i} of version {n}." for i in range(200)) + "\\n")
    ing.ingest([doc], "default")
    print(n, flush=True)
"""


def test_kill_9_during_version_writes_leaves_a_consistent_store(tmp_path):
    """Versions are written in one transaction: after SIGKILL mid-write the store is intact, every
    acknowledged version is there and the current version is whole."""
    db, doc = tmp_path / "hub.sqlite3", tmp_path / "quokka.md"
    total = 0
    for attempt in range(3):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(db), str(doc)], cwd=REPO, env=server_env(tmp_path),
                                stdout=subprocess.PIPE, text=True)
        acked = 0
        deadline = time.monotonic() + 60
        while acked < 4 + attempt and time.monotonic() < deadline:
            line = proc.stdout.readline()
            acked = int(line) if line.strip() else acked
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        total += acked
        store = HubStore(db)
        assert store.conn().execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        versions = [v["version"] for v in store.versions("quokka")]
        assert versions[-1] >= total and len(versions) <= 3  # every acknowledged write is there
        current = store.doc_chunks("quokka")
        assert current and all(c.version == versions[-1] for c in current)
        assert store.document("quokka")["version"] == versions[-1]
        store.close()


# -- the agent: "what changed between version 1 and 2 of X" ----------------------------------------------

@pytest.mark.parametrize("question, expected", [
    ("What changed between version 1 and 2 of the quokka notes?", ("quokka notes", 1, 2)),
    ("v1 vs v2 of LoRA", ("LoRA", 1, 2)),
    ("What changed in the LoRA notes between v3 and v1?", ("LoRA notes", 1, 3)),
    ("compare version 2 of lora.md and version 1", ("lora.md", 1, 2)),
    ("What is LoRA?", None),
    ("How does Llama 2 compare to Llama 3?", None),
])
def test_version_questions_are_recognised(question, expected):
    from core.doc_versions import split, version_pair, versioned_entities

    assert version_pair(question) == expected
    if expected:
        name, a, b = expected
        assert [split(e) for e in versioned_entities(question)] == [(name, a), (name, b)]


def test_offline_slots_turn_version_questions_into_scoped_entities():
    from core.brains.offline import slots
    from core.vocabulary import Vocabulary

    out = slots.fill("what changed between version 1 and version 2 of quokka adapters?", "comparative", [], [],
                     Vocabulary())
    assert out["entities"] == ["quokka adapters (version 1)", "quokka adapters (version 2)"]


def test_the_offline_diff_lists_changed_added_and_removed_sentences_with_citations():
    from core.brains.offline.diff import version_diff
    from core.types import Intent, RetrievedContext, SynthesisRequest

    e1, e2 = "Quokka (version 1)", "Quokka (version 2)"
    ctx = [RetrievedContext(content="The default rank is 8. Training takes 6 hours on one GPU.", chunk_id="q_0000@v1",
                            title="Quokka", entity=e1, chunk_index=0),
           RetrievedContext(content="The default rank is 16. A dropout of 0.1 is applied.", chunk_id="q_0000",
                            title="Quokka", entity=e2, chunk_index=0)]
    req = SynthesisRequest(kind="comparative", question="v1 vs v2 of Quokka", contexts=ctx,
                           intent=Intent(type="comparative", confidence=1.0, entities=[e1, e2]))
    text = version_diff(req)
    assert text.splitlines()[0] == ("### Quokka: version 1 → version 2 (1 sentence(s) changed, 1 added, 1 removed, "
                                    "0 unchanged)")
    assert "- **Version 1:** The default rank is 8 [1]." in text
    assert "  - **now, in version 2:** The default rank is 16 [2]." in text
    assert "**Added in version 2:**\n- A dropout of 0.1 is applied [2]." in text
    assert "**Removed since version 1:**\n- Training takes 6 hours on one GPU [1]." in text
    plain = req.model_copy(update={"intent": Intent(type="comparative", confidence=1.0, entities=["LoRA", "DPO"])})
    assert version_diff(plain) is None  # an ordinary comparison is left to the comparative composer


def test_ask_what_changed_between_two_versions(hub_home, tmp_path):
    """The real CLI: ingest a note, change it, ingest again, ask; the answer is the cited diff."""
    import json
    import shutil

    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    for name in os.listdir(hub_home):
        if name.startswith("hub.sqlite3"):
            shutil.copy2(hub_home / name, home / name)
    doc = tmp_path / "quokka_adapters.md"
    env = {**server_env(home), "PAPERPILOT_NO_WARM": "1"}

    def cli(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", *args], cwd=REPO, env=env,
                              capture_output=True, text=True, timeout=300)

    doc.write_text("# Quokka Adapters\n\n## Method\nThe default rank is 8. The learning rate is 3e-4.\n\n"
                   "## Results\nTraining takes 6 hours on one GPU.\n")
    assert cli("ingest", str(doc)).returncode == 0
    doc.write_text("# Quokka Adapters\n\n## Method\nThe default rank is 16. The learning rate is 3e-4. "
                   "A dropout of 0.1 is applied.\n\n## Results\nQuokka adapters match full fine-tuning.\n")
    assert cli("ingest", str(doc)).returncode == 0
    out = cli("--offline", "ask", "--json", "What changed between version 1 and 2 of quokka adapters?")
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    answer = res["final_answer"]
    assert "version 1 → version 2" in answer
    assert "The default rank is 8 [" in answer and "The default rank is 16 [" in answer
    assert "A dropout of 0.1 is applied [" in answer and "Training takes 6 hours on one GPU [" in answer
    ids = {s["chunk_id"] for s in res["sources"]}
    assert any(i.endswith("@v1") for i in ids) and any("@" not in i for i in ids)  # cited from both versions
    assert res["critic"]["passed"] and not res["critic"]["forced"]
