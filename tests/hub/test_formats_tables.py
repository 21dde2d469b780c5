"""XLSX and CSV ingestion on files written here: sheets are sections, every chunk is a Markdown table
that starts with the header row, bad files fail alone, and the hub's structure/summary show the sheets."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from openpyxl import Workbook

import core

from core.brains.offline.text import passage_sentences
from core.hub.chunking import TARGET_CHARS, chunk_blocks
from core.hub.ingest import Ingestor
from core.hub.readers import ReadError, read_document
from core.hub.service import Hub
from core.hub.store import HubStore

HEADER = "| Model | Dataset | Accuracy | Released | Notes |"


def _workbook(path, rows: int = 80):
    wb = Workbook()
    ws = wb.active
    ws.title = "Results"
    ws.append(["Model", "Dataset", "Accuracy", "Released", "Notes"])
    for i in range(rows):
        ws.append([f"model-{i:03d}", "GSM8K" if i % 2 else "MMLU", 0.5 + i / 1000,
                   dt.datetime(2024, 1 + i % 12, 1), "baseline run" if i % 3 else None])
    ws.append(["Falcon-Gamma", "ARC", 0.913, dt.datetime(2025, 6, 30), "best run | tuned"])
    costs = wb.create_sheet("Costs")
    costs.append(["Item", "USD"])
    costs.append(["GPU hours", 1200])
    wb.create_sheet("Empty")
    wb.save(path)
    return path


def test_each_sheet_is_a_section_and_every_chunk_repeats_the_header(tmp_path):
    doc = read_document(_workbook(tmp_path / "results.xlsx"))
    assert doc.doc_type == "xlsx" and doc.title == "results"
    chunks = chunk_blocks(doc.blocks)
    by_crumb: dict[str, list[str]] = {}
    for ch in chunks:
        by_crumb.setdefault(ch.breadcrumb, []).append(ch.text)
    assert list(by_crumb) == ["results", "results > Results", "results > Costs"]  # the empty sheet adds nothing
    assert by_crumb["results"] == ["Workbook with 2 sheets: Results (81 rows; columns Model, Dataset, Accuracy, "
                                   "Released, Notes); Costs (1 row; columns Item, USD)."]
    results = by_crumb["results > Results"]
    assert len(results) >= 4  # a long sheet is cut into several chunks of rows
    rows_seen = []
    for text in results:
        lines = text.split("\n")
        assert lines[0] == HEADER and lines[1] == "| --- | --- | --- | --- | --- |"
        assert all(line.startswith("| ") and line.endswith(" |") for line in lines[2:]) and len(lines) > 2
        assert len(text) <= TARGET_CHARS + 120  # about the target, never a row cut in two
        rows_seen += lines[2:]
    assert len(rows_seen) == 81 and len(set(rows_seen)) == 81  # every row exactly once
    assert rows_seen[0] == "| model-000 | MMLU | 0.5 | 2024-01-01 |  |"
    assert rows_seen[-1] == "| Falcon-Gamma | ARC | 0.913 | 2025-06-30 | best run \\| tuned |"
    assert by_crumb["results > Costs"] == ["| Item | USD |\n| --- | --- |\n| GPU hours | 1200 |"]


def test_csv_delimiter_is_sniffed_and_quoted_newlines_stay_in_their_cell(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text('name;score;comment\nalpha;1;"two\nlines"\nbeta;2;plain\n', encoding="utf-8-sig")
    doc = read_document(path)
    chunks = chunk_blocks(doc.blocks)
    assert doc.doc_type == "csv" and [c.breadcrumb for c in chunks] == ["scores", "scores"]
    assert chunks[1].text == ("| name | score | comment |\n| --- | --- | --- |\n| alpha | 1 | two lines |\n"
                              "| beta | 2 | plain |")


def test_bad_spreadsheets_fail_alone_with_one_line(tmp_path):
    _workbook(tmp_path / "good.xlsx", rows=3)
    (tmp_path / "corrupt.xlsx").write_bytes(b"PK\x03\x04 this is not a workbook")
    (tmp_path / "empty.csv").write_text("\n\n", encoding="utf-8")
    (tmp_path / "binary.csv").write_bytes(b"\x00\x01\x02garbage")
    with pytest.raises(ReadError, match=r"^unreadable XLSX \(BadZipFile\)$"):
        read_document(tmp_path / "corrupt.xlsx")
    store = HubStore(tmp_path / "hub.sqlite3")
    rep = Ingestor(store, embed=False).ingest([tmp_path], "sheets")
    assert rep.added == ["good"]
    failed = dict((p.rsplit("/", 1)[-1], why) for p, why in rep.failed)
    assert failed == {"corrupt.xlsx": "unreadable XLSX (BadZipFile)", "empty.csv": "no extractable text (empty file)",
                      "binary.csv": "unreadable CSV (binary data)"}
    assert all("\n" not in why for why in failed.values())


def test_hub_structure_and_summary_show_the_sheets(tmp_path):
    _workbook(tmp_path / "results.xlsx", rows=30)
    (tmp_path / "runs.csv").write_text("run,loss\nA,0.31\nB,0.29\n", encoding="utf-8")
    db = tmp_path / "hub.sqlite3"
    store = HubStore(db)
    rep = Ingestor(store, embed=False).ingest([tmp_path / "results.xlsx", tmp_path / "runs.csv"], "sheets")
    assert rep.ok and sorted(rep.added) == ["results", "runs"]
    store.close()
    hub = Hub(db, sync=False)
    hub.start(background=False)
    summary = hub.summary("results", "sheets")
    assert summary.sections == ["results", "results > Results", "results > Costs"]
    assert summary.summary.startswith("Workbook with 2 sheets: Results (31 rows")
    tree = hub.structure("results", "sheets")
    assert [(c.title, c.breadcrumb, len(c.chunk_ids)) for c in tree.root.children] == [
        ("Results", "results > Results", len(tree.root.children[0].chunk_ids)),
        ("Costs", "results > Costs", 1)]
    assert len(tree.root.children[0].chunk_ids) >= 2 and len(tree.root.chunk_ids) == 1  # the overview
    hits = hub.keyword(["Falcon-Gamma"], collection="sheets")
    assert hits and hits[0].chunk.breadcrumb == "results > Results"
    assert hits[0].chunk.text.startswith(HEADER) and "| Falcon-Gamma | ARC | 0.913 |" in hits[0].chunk.text
    assert hub.summary("runs", "sheets").summary == "Table with runs.csv (2 rows; columns run, loss)."


def test_offline_brain_reads_a_table_row_with_its_header():
    chunk = f"{HEADER}\n| --- | --- | --- | --- | --- |\n| Falcon-Gamma | ARC | 0.913 | 2025-06-30 | best run \\| tuned |"
    assert passage_sentences(chunk) == [
        "Model: Falcon-Gamma; Dataset: ARC; Accuracy: 0.913; Released: 2025-06-30; Notes: best run | tuned."]
    # prose around a table is unchanged, and a table's header is no sentence of its own
    assert passage_sentences("See the table. It is short.\n| a | b |\n|---|---|\n| 1 | |\nAfter it.") == [
        "See the table.", "It is short.", "a: 1.", "After it."]


def test_ocr_settings_are_documented_defaults():
    from core.config import Settings, load_settings

    hub = Settings().hub
    assert (hub.ocr, hub.ocr_min_page_chars, hub.ocr_min_image_px) == ("auto", 50, 200)
    documented = yaml.safe_load((Path(core.__file__).parent.parent / "config" / "settings.yaml").read_text("utf-8"))
    assert {k: documented["hub"][k] for k in ("ocr", "ocr_min_page_chars", "ocr_min_image_px")} == {
        "ocr": "auto", "ocr_min_page_chars": 50, "ocr_min_image_px": 200}
    assert load_settings().hub == hub
