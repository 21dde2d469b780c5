"""Issue 25, build item 8 and its must-show: ingesting PDFs that have a text layer, with default
settings, runs no OCR (their figures are not read unless ``hub.ocr: all``), and the summary gives
pages/s with two decimals. Checked end to end in fresh processes, for ``paperpilot ingest`` and
for the function the app's ``/ingest`` runs (:func:`paperpilot_tui.app_ingest.ingest`): the OCR
engine is never imported, no chunk is an OCR block. The control run with ``hub.ocr: all`` reads the
figures, so the check can fail.

The three PDFs are invented here: two text pages each, with a figure of printed text on a page."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image, ImageDraw, ImageFont

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
OCR_MODULE = "rapidocr_onnxruntime"

CLI = """
import sys
from paperpilot_tui.cli.main import main
code = main(sys.argv[1:])
print("OCR-ENGINE-LOADED" if "{module}" in sys.modules else "NO-OCR-ENGINE", file=sys.stderr)
sys.exit(code)
""".replace("{module}", OCR_MODULE)

APP = """
import json, sys
from core.config import load_settings
from paperpilot_tui.app_ingest import ingest, summary_line
from paperpilot_tui.ingest_meter import IngestMeter
from core.hub.ingest import expand_paths
settings = load_settings(use_user_file=False)
files, _ = expand_paths([sys.argv[1]])
meter = IngestMeter(files)
notes = []
meter.ocr = notes.append
report, _, _ = ingest(settings, sys.argv[2], [sys.argv[1]], "three", meter)
print(json.dumps({"summary": summary_line(report, "three", meter.now().elapsed_s), "notes": notes,
                  "ocr_loaded": "{module}" in sys.modules}))
""".replace("{module}", OCR_MODULE)


def _figure(text: str) -> Image.Image:
    img = Image.new("RGB", (1100, 360), "white")
    ImageDraw.Draw(img).text((60, 140), text, fill="black", font=ImageFont.load_default(size=40))
    return img


@pytest.fixture
def papers(tmp_path) -> Path:
    from fpdf import FPDF

    folder = tmp_path / "papers"
    folder.mkdir()
    for n, topic in enumerate(("sparse routing", "adapter merging", "retrieval fusion")):
        figure = tmp_path / f"figure{n}.png"
        _figure(f"Figure {n + 1}: recall of {topic} rises").save(figure)
        pdf = FPDF()
        for page in range(2):
            pdf.add_page()
            pdf.set_font("Helvetica", size=11)
            pdf.multi_cell(0, 6, f"Section {page + 1}. This paper studies {topic}. " * 12)
            if page == 0:
                pdf.image(str(figure), x=20, y=120, w=160)
        pdf.output(str(folder / f"paper{n}.pdf"))
    return folder


def _ocr_chunks(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM chunks WHERE breadcrumb LIKE '%(OCR)%'").fetchone()[0]


def _env(home: Path, **extra: str) -> dict:
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("PAPERPILOT_")}
    return {**env, "PAPERPILOT_HOME": str(home), "PYTHONPATH": str(ROOT), **extra}


def test_cli_ingest_of_text_pdfs_runs_no_ocr_and_says_pages_per_second_with_two_decimals(papers, tmp_path):
    home = tmp_path / "home"
    proc = subprocess.run([sys.executable, "-c", CLI, "ingest", str(papers), "--collection", "three"],
                          capture_output=True, text=True, timeout=600, env=_env(home), cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "collection 'three': 3 added" in proc.stdout and "(6 pages, " in proc.stdout, proc.stdout
    assert re.search(r", \d+\.\d\d pages/s\)$", proc.stdout.strip()), proc.stdout
    assert "NO-OCR-ENGINE" in proc.stderr, proc.stderr
    assert _ocr_chunks(home / "hub.sqlite3") == 0


def test_app_ingest_of_text_pdfs_runs_no_ocr_but_hub_ocr_all_reads_the_figures(papers, tmp_path):
    runs = {}
    for mode in ("auto", "all"):
        db = tmp_path / mode / "hub.sqlite3"
        db.parent.mkdir()
        config = tmp_path / f"{mode}.yaml"
        config.write_text(f"hub:\n  ocr: {mode}\n", encoding="utf-8")
        env = _env(tmp_path / f"home-{mode}")
        script = APP.replace("load_settings(use_user_file=False)", f"load_settings({str(config)!r}, use_user_file=False)")
        proc = subprocess.run([sys.executable, "-c", script, str(papers), str(db)], capture_output=True, text=True,
                              timeout=600, env=env, cwd=ROOT)
        assert proc.returncode == 0, proc.stderr
        runs[mode] = (json.loads(proc.stdout.strip().splitlines()[-1]), _ocr_chunks(db))
    (auto, auto_chunks), (every, every_chunks) = runs["auto"], runs["all"]
    assert "3 added" in auto["summary"] and re.search(r", \d+\.\d\d pages/s\)$", auto["summary"]), auto
    assert not auto["ocr_loaded"] and auto_chunks == 0 and not any("OCR" in n for n in auto["notes"]), auto
    assert every["ocr_loaded"] and every_chunks == 3, (every, every_chunks)  # one figure per paper
    assert any("OCR" in n for n in every["notes"]), every["notes"]
