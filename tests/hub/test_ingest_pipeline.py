"""The ingestion pipeline: embedding batched across files, parse workers, atomic documents, resume."""

from __future__ import annotations

import re

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import core.embeddings
from core.hub.ingest import Ingestor
from core.hub.search import Searcher
from core.hub.store import HubStore

from tests.hub.helpers import REPO, server_env
from tests.hub.test_pdf_ingest import make_pdf

DEV_DOCS = Path("/work/shared/eval/realpapers/dev/docs")


def _notes(folder: Path, n: int) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"note{i:02d}.md").write_text(
            f"# Note {i}\n\n## Abstract\n\nThe adapter number {i} trains a low-rank update. "
            f"It keeps the base model frozen and uses rank {i + 4}.\n", encoding="utf-8")
    return folder


class CountingEmbed:
    """Stands in for the encoder: deterministic unit vectors, and a record of every call."""

    def __init__(self):
        self.calls: list[int] = []

    def __call__(self, texts, batch_size: int = 64):
        self.calls.append(len(texts))
        rng = np.random.default_rng(len(texts))
        v = rng.standard_normal((len(texts), 384)).astype(np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_small_files_are_embedded_in_one_batch(tmp_path, monkeypatch):
    fake = CountingEmbed()
    monkeypatch.setattr(core.embeddings, "embed", fake)
    store = HubStore(tmp_path / "hub.sqlite3")
    rep = Ingestor(store).ingest([_notes(tmp_path / "notes", 6)], "c")
    assert rep.ok and len(rep.added) == 6
    assert fake.calls == [rep.chunks]  # one call for six files, not six tiny ones
    st = store.stats("c")
    assert st["chunk_count"] == st["embedded_chunks"] == rep.chunks


def test_pipeline_matches_the_serial_path_and_workers(tmp_path, monkeypatch):
    monkeypatch.setattr(core.embeddings, "embed", CountingEmbed())
    folder = _notes(tmp_path / "docs", 3)
    make_pdf(folder / "study.pdf")
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4 not really")

    def index(name: str, **kw):
        store = HubStore(tmp_path / f"{name}.sqlite3")
        rep = Ingestor(store, embed=False).ingest([folder], "c", **kw)
        chunks = [(c.doc_id, c.position, c.page, c.breadcrumb, c.text)
                  for d in store.documents("c") for c in store.doc_chunks(d["doc_id"])]
        return rep, chunks, [(d["doc_id"], d["title"], d["pages"], d["summary"]) for d in store.documents("c")]

    serial = index("serial", pipeline=False)
    for rep, chunks, docs in (index("inline", workers=0), index("workers", workers=2)):
        assert (sorted(rep.added), rep.pages, rep.chunks) == (sorted(serial[0].added), serial[0].pages,
                                                              serial[0].chunks)
        assert [f for f, _ in rep.failed] == [f for f, _ in serial[0].failed] == [str(folder / "broken.pdf")]
        assert (chunks, docs) == (serial[1], serial[2])


def test_progress_reports_every_file_with_pages(tmp_path):
    folder = _notes(tmp_path / "docs", 2)
    make_pdf(folder / "study.pdf")
    seen = []
    ing = Ingestor(HubStore(tmp_path / "hub.sqlite3"), embed=False)
    ing.ingest([folder], "c", progress=lambda p, status, pages: seen.append((p.name, status, pages)))
    assert sorted(seen) == [("note00.md", "added", 1), ("note01.md", "added", 1), ("study.pdf", "added", 3)]
    seen.clear()
    ing.ingest([folder], "c", progress=lambda p, status, pages: seen.append((p.name, status, pages)))
    assert {s for _, s, _ in seen} == {"skipped"}


def _corpus(folder: Path) -> Path:
    """The real dev abstracts (or generated notes) plus multi-page PDFs: ~20 s of embedding."""
    folder.mkdir()
    if DEV_DOCS.is_dir():
        for f in sorted(DEV_DOCS.glob("*.md")):
            (folder / f.name).write_bytes(f.read_bytes())
    else:
        _notes(folder, 45)
    sections = [(f"{k} Part {k}", "Low-rank adapters keep the base model frozen and train a small update. " * 6)
                for k in range(1, 7)]
    for k in range(8):
        make_pdf(folder / f"zz-study{k}.pdf", title=f"Adapter Study {k}", sections=sections)
    return folder


def test_killed_ingest_leaves_no_half_document_and_resumes(tmp_path, monkeypatch):
    home = tmp_path / "home"
    docs = _corpus(tmp_path / "docs")
    n_files = len(list(docs.iterdir()))
    db_path = home / "hub.sqlite3"
    env = server_env(home)
    env.pop("PAPERPILOT_INGEST_WORKERS", None)
    code = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
    proc = subprocess.Popen([sys.executable, "-c", code, "ingest", str(docs), "--collection", "papers"],
                            env=env, cwd=str(REPO), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        done = 0
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None:
            if db_path.exists():
                try:
                    with sqlite3.connect(db_path, timeout=5) as db:
                        done = db.execute("SELECT count(*) FROM documents").fetchone()[0]
                except sqlite3.OperationalError:
                    done = 0  # schema not created yet
            if done:
                break
            time.sleep(0.02)
        assert proc.poll() is None, "ingest finished before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()

    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    store = HubStore(db_path)
    complete = {d["path"]: d["doc_id"] for d in store.documents("papers")}
    assert 0 < len(complete) < n_files
    st = store.stats("papers")
    per_doc = {doc_id: len(store.doc_chunks(doc_id)) for doc_id in complete.values()}
    assert st["document_count"] == len(complete)
    assert st["chunk_count"] == st["embedded_chunks"] == sum(per_doc.values())  # no orphan, no unembedded
    assert all(n > 0 for n in per_doc.values())
    orphans = store.conn().execute("SELECT count(*) FROM chunks_fts WHERE rowid NOT IN (SELECT id FROM chunks)")
    assert orphans.fetchone()[0] == 0
    searcher = Searcher(store, embed_query=lambda q: np.ones(384, np.float32) / np.sqrt(384))
    missing = [f for f in sorted(docs.iterdir()) if str(f.resolve()) not in complete]
    for f in missing[:5]:
        hits = searcher.search("papers", f.stem.replace("-", " "), top_k=20)
        assert all(h.chunk.doc_id in complete.values() for h in hits)
    before = {row[0]: row[1] for row in store.conn().execute("SELECT chunk_rowid, vector FROM embeddings")}

    counter = CountingEmbed()
    monkeypatch.setattr(core.embeddings, "embed", counter)
    rep = Ingestor(store).ingest([docs], "papers")
    assert rep.ok and sorted(rep.skipped) == sorted(complete.values())
    assert len(rep.added) == n_files - len(complete)
    assert sum(counter.calls) == rep.chunks  # only the unfinished documents were embedded
    after = {row[0]: row[1] for row in store.conn().execute("SELECT chunk_rowid, vector FROM embeddings")}
    assert all(after[k] == v for k, v in before.items())
    st = store.stats("papers")
    assert st["document_count"] == n_files and st["chunk_count"] == st["embedded_chunks"]


def _cli(home: Path, *args: str, stderr=subprocess.PIPE):
    code = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, "ingest", *args], env=server_env(home), cwd=str(REPO),
                          stdout=subprocess.PIPE, stderr=stderr, text=True, timeout=120)


def test_cli_summary_without_a_terminal_and_a_bar_with_one(tmp_path):
    import pty
    import threading

    folder = _notes(tmp_path / "docs", 3)
    make_pdf(folder / "study.pdf")
    out = _cli(tmp_path / "home", str(folder), "--no-embed")
    assert out.returncode == 0
    assert "4 added" in out.stdout and "(6 pages, " in out.stdout and " pages/s)" in out.stdout
    assert re.search(r"\d\.\d\d pages/s\)", out.stdout)  # two decimals: a slow ingest is not "0.0 pages/s"
    assert "ETA" not in out.stderr and "files" not in out.stderr  # no bar when stderr is not a terminal

    master, slave = pty.openpty()
    seen = bytearray()

    def drain():
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            seen.extend(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    out = _cli(tmp_path / "home2", str(folder), "--no-embed", stderr=slave)
    os.close(slave)
    reader.join(5)
    os.close(master)
    assert out.returncode == 0 and "4 added" in out.stdout
    text = seen.decode(errors="replace")
    assert "pages/s" in text and "/4 files" in text and "ETA" in text
