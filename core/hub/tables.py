"""Spreadsheets: XLSX workbooks (openpyxl) and CSV/TSV files become sections of Markdown tables.

Each sheet is a section (breadcrumb ``"results > Sheet1"``; a CSV file is one section named after
the file). Its first non-empty row is the header; the rows after it are cut into groups of about
:data:`core.hub.chunking.TARGET_CHARS` characters, and every group is a complete Markdown table that
starts with the header row, so each chunk can be read (and cited) on its own. A first block lists
the sheets with their sizes and columns: it is the document's summary. Formula cells give the value
the file last saved (an XLSX written by a program that never calculated it has none: blank).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from pathlib import Path

from core.hub.chunking import MAX_CHARS, TARGET_CHARS
from core.hub.readers import Block, ParsedDoc, ReadError

CELL_CHARS = 300  # a longer cell is cut (with "…"): a chunk is for finding a row, not for a whole essay


def cell(value: object) -> str:
    """One cell as Markdown table text: numbers without float noise, dates as ISO, pipes escaped."""
    if value is None:
        return ""
    if isinstance(value, bool):
        text = "TRUE" if value else "FALSE"
    elif isinstance(value, float):
        text = f"{value:.6g}" if abs(value) >= 1e-4 or value == 0 else f"{value:.3e}"
    elif isinstance(value, dt.datetime):
        text = value.date().isoformat() if value.time() == dt.time() else value.isoformat(sep=" ")
    elif isinstance(value, (dt.date, dt.time)):
        text = value.isoformat()
    else:
        text = str(value)
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= CELL_CHARS else text[: CELL_CHARS - 1] + "…"


def _trim(rows: list[list[str]]) -> list[list[str]]:
    """Rows without empty rows and without the columns that are empty in every row."""
    rows = [r for r in rows if any(c for c in r)]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    keep = [j for j in range(width) if any(r[j] for r in rows)]
    return [[r[j] for j in keep] for r in rows]


def _line(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def table_blocks(path: list[str], rows: list[list[str]], target: int = TARGET_CHARS,
                 limit: int = MAX_CHARS) -> list[Block]:
    """Markdown tables of about ``target`` characters, each repeating the header row.

    A group takes at least one row; it stops before the row that would pass ``target`` (or
    ``limit``), so a chunk is a whole table and never splits a row."""
    rows = _trim(rows)
    if not rows:
        return []
    header = [h or f"column {j + 1}" for j, h in enumerate(rows[0])]
    head = _line(header) + "\n" + _line(["---"] * len(header))
    if len(rows) == 1:
        return [Block(list(path), head, None, verbatim=True)]
    out: list[Block] = []
    group: list[str] = []
    size = len(head)
    for r in rows[1:]:
        line = _line(r)
        if group and (size + 1 + len(line) > target or size + 1 + len(line) > limit):
            out.append(Block(list(path), head + "\n" + "\n".join(group), None, verbatim=True))
            group, size = [], len(head)
        group.append(line)
        size += 1 + len(line)
    out.append(Block(list(path), head + "\n" + "\n".join(group), None, verbatim=True))
    return out


def _overview(kind: str, sheets: list[tuple[str, list[list[str]]]]) -> str:
    parts = []
    for name, rows in sheets:
        rows = _trim(rows)
        if not rows:
            continue
        cols = ", ".join(h for h in rows[0] if h)[:200]
        n = len(rows) - 1
        parts.append(f"{name} ({n} row{'' if n == 1 else 's'}; columns {cols})")
    if not parts:
        return ""
    if kind == "csv":
        return f"Table with {parts[0]}."
    return f"Workbook with {len(parts)} sheet{'s' if len(parts) != 1 else ''}: " + "; ".join(parts) + "."


def _doc(title: str, kind: str, sheets: list[tuple[str, list[list[str]]]], single: bool) -> ParsedDoc:
    doc = ParsedDoc(title=title, doc_type=kind)
    overview = _overview(kind, sheets)
    if overview:
        doc.blocks.append(Block([title], overview))
    for name, rows in sheets:
        doc.blocks += table_blocks([title] if single else [title, name], rows)
    if len(doc.blocks) <= (1 if overview else 0):
        raise ReadError("no extractable text (empty spreadsheet)")
    return doc


def read_xlsx(path: Path) -> ParsedDoc:
    """Every visible or hidden worksheet of an XLSX/XLSM workbook, in order (chart sheets have no cells)."""
    try:
        from openpyxl import load_workbook

        wb = load_workbook(str(path), read_only=True, data_only=True)
    except Exception as exc:  # noqa: BLE001 - openpyxl raises zipfile, KeyError, XML and its own errors
        raise ReadError(f"unreadable XLSX ({type(exc).__name__})") from None
    try:
        sheets = [(ws.title, [[cell(v) for v in row] for row in ws.iter_rows(values_only=True)])
                  for ws in wb.worksheets]
        title = (wb.properties.title or "").strip() if wb.properties else ""
    except Exception as exc:  # noqa: BLE001 - a damaged sheet part shows only when its rows are read
        raise ReadError(f"unreadable XLSX ({type(exc).__name__})") from None
    finally:
        wb.close()
    return _doc(title or path.stem, "xlsx", sheets, single=False)


def read_csv(path: Path) -> ParsedDoc:
    """A CSV or TSV file (delimiter sniffed among , ; tab |), UTF-8 with or without BOM, else Latin-1."""
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise ReadError("unreadable CSV (binary data)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    if not text.strip():
        raise ReadError("no extractable text (empty file)")
    default = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        dialect = csv.Sniffer().sniff(text[:8192], delimiters=",;\t|")
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = default
    try:
        rows = [[cell(c) for c in row] for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)]
    except csv.Error as exc:
        raise ReadError(f"unreadable CSV ({str(exc).splitlines()[0]})") from None
    return _doc(path.stem, "csv", [(path.name, rows)], single=True)
