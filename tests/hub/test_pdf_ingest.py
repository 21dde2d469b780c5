"""PDF ingestion on PDFs generated here: pages kept, running headers dropped, bad files skipped."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from fpdf import FPDF

from core.hub.ingest import Ingestor
from core.hub.store import HubStore

from tests.hub.helpers import REPO, server_env

SECTIONS = [
    ("1 Introduction", "Sparse adapters reduce the memory of fine-tuning. The adapter rank controls capacity."),
    ("2 Method", "We freeze the base weights and train a low-rank update. Zebra gradients are clipped at 1.0."),
    ("3 Results", "The method matches full fine-tuning on five benchmarks. Training is 3x faster."),
]


def make_pdf(path: Path, title: str = "Sparse Adapter Study", sections=SECTIONS, password: str | None = None) -> Path:
    pdf = FPDF()
    pdf.set_title(title)
    pdf.set_auto_page_break(False)
    if password:
        pdf.set_encryption(owner_password="owner", user_password=password)
    for n, (head, body) in enumerate(sections, start=1):
        pdf.add_page()
        pdf.set_font("Helvetica", size=9)
        pdf.text(10, 10, "Journal of Synthetic Results")  # running header
        pdf.set_font("Helvetica", size=12)
        pdf.set_xy(10, 30)
        pdf.cell(0, 10, head)
        pdf.set_xy(10, 45)
        pdf.multi_cell(180, 7, " ".join([body] * 3))
        pdf.set_font("Helvetica", size=9)
        pdf.text(100, 285, f"Page {n}")  # running footer
    pdf.output(str(path))
    return path


def test_pdf_pages_sections_and_versions(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    ing = Ingestor(store, embed=False)
    pdf = make_pdf(tmp_path / "study.pdf")
    rep = ing.ingest([pdf], "papers")
    assert rep.ok and rep.added == ["study"] and rep.pages == 3
    chunks = store.doc_chunks("study")
    assert {c.page for c in chunks} == {1, 2, 3}
    by_page = {c.page: c for c in chunks}
    assert by_page[2].breadcrumb == "Sparse Adapter Study > 2 Method"
    assert "Zebra gradients" in by_page[2].text
    assert not any("Journal of Synthetic" in c.text or "Page " in c.text for c in chunks)
    assert store.document("study")["pages"] == 3

    assert ing.ingest([pdf], "papers").skipped == ["study"]  # unchanged: hash skip
    make_pdf(pdf, sections=SECTIONS[:2] + [("3 Results", "Now the results changed completely.")])
    rep = ing.ingest([pdf], "papers")
    assert rep.updated == ["study"]
    doc = store.document("study")
    assert doc["version"] == 2
    texts = " ".join(c.text for c in store.doc_chunks("study"))
    assert "changed completely" in texts and "five benchmarks" not in texts  # the current version is the new text
    assert "five benchmarks" in " ".join(c.text for c in store.doc_chunks("study", version=1))  # the old one is kept
    hits = store.conn().execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'benchmarks'").fetchone()
    assert hits[0] == 0  # the keyword index holds the current version only


def test_cli_skips_corrupt_empty_and_encrypted_pdfs(tmp_path):
    good = make_pdf(tmp_path / "good.pdf")
    (tmp_path / "corrupt.pdf").write_bytes(b"%PDF-1.4\n this is not really a pdf \x00\x01")
    empty = FPDF()
    empty.add_page()
    empty.output(str(tmp_path / "blank.pdf"))
    make_pdf(tmp_path / "locked.pdf", password="secret")
    home = tmp_path / "home"
    env = server_env(home)
    proc = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "ingest", str(tmp_path),
                           "--collection", "mine", "--no-embed"],
                          capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert proc.returncode == 1, proc.stderr
    err = proc.stderr
    assert "corrupt.pdf" in err and "blank.pdf" in err and "locked.pdf" in err
    assert "good.pdf" not in err and "Traceback" not in err
    assert "1 added" in proc.stdout and "3 failed" in proc.stdout
    store = HubStore(home / "hub.sqlite3")
    assert [d["path"] for d in store.documents("mine")] == [str(good.resolve())]

    status = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "hub", "rm", "good"],
                            capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
    assert status.returncode == 0 and store.documents("mine") == []
    again = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "hub", "rm", "good"],
                           capture_output=True, text=True, env=env, cwd=REPO, timeout=60)
    assert again.returncode == 1 and again.stderr.count("\n") == 1
