"""`paperpilot ingest sheet.xlsx scan.pdf` then `paperpilot ask` (offline brain), as a user runs them:
each answer cites [1], the spreadsheet's sheet or the scanned page's OCR chunk."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from openpyxl import Workbook

pytest.importorskip("rapidocr_onnxruntime")

from tests.hub.test_formats_ocr import scanned_pdf

pytestmark = pytest.mark.slow


def paperpilot(*args: str, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", *args], capture_output=True,
                          text=True, timeout=600, env={**os.environ, **env})


def test_ingest_a_sheet_and_a_scan_then_ask_about_each(tmp_path, hub_db):
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(hub_db, home / "hub.sqlite3")  # the bundled notes already indexed
    env = {"PAPERPILOT_HOME": str(home), "PAPERPILOT_NO_WARM": "1"}
    wb = Workbook()
    ws = wb.active
    ws.title = "Results"
    ws.append(["Model", "Dataset", "Accuracy", "Notes"])
    for i in range(40):
        ws.append([f"model-{i}", "GSM8K" if i % 2 else "MMLU", round(0.5 + i / 200, 3), "baseline run"])
    ws.append(["Falcon-Gamma", "ARC", 0.913, "best run"])
    wb.save(tmp_path / "sheet.xlsx")
    scanned_pdf(tmp_path / "scan.pdf")

    out = paperpilot("ingest", str(tmp_path / "sheet.xlsx"), str(tmp_path / "scan.pdf"), "--collection", "t", env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("collection 't': 2 added, 0 updated, 0 unchanged, 0 failed")

    sheet = json.loads(paperpilot("--offline", "ask", "--json", "--collection", "t",
                                  "What was the accuracy of Falcon-Gamma on ARC?", env=env).stdout)
    assert sheet["final_answer"] == "Model: Falcon-Gamma; Dataset: ARC; Accuracy: 0.913; Notes: best run [1]."
    first = sheet["sources"][0]
    assert first["breadcrumb"] == "sheet > Results" and first["doc_id"] == "sheet"

    scan = json.loads(paperpilot("--offline", "ask", "--json", "--collection", "t",
                                 "Which corpus was the tokenizer trained on?", env=env).stdout)
    assert "Pelican corpus [1]" in scan["final_answer"]
    first = scan["sources"][0]
    assert first["breadcrumb"] == "scan > p. 1 > OCR" and first["page"] == 1
