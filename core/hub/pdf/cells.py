"""A table row's cells: the words of a positioned line with their extents, numbers told from
words, and several numbers set close together split into cells of their own ("0.31 0.24"),
while a number keeps its deviation ("0.93 ± 0.02", "0.91 (39%)"), ratio ("54 / 59 = 91.5%") or
unit ("634 secs")."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.hub.pdf.clean import normalize, rejoin_small_caps
from core.hub.pdf.layout import SOFT_HYPHEN, Line

_VALUE = re.compile(r"[\d\s.,%±()\[\]/=+\-−–—@†‡*∗§¶<>~≈×xeEKMGTBkmb$#^]+")
_MISSING = {"-", "–", "—", "n/a", "N/A", "NA", "–/–"}
_UNIT = re.compile(r"(?<=\d)\s+[A-Za-z]{1,5}$")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([kKmMBG]?)")
_GLUE = {"±", "/", "=", "+", "×", "−", "-", "–"}


@dataclass
class Unit:
    """One cell's text and horizontal extent."""

    text: str
    x0: float
    x1: float
    line: Line


def row_line_cells(line: str) -> list[str]:
    """The cells of one ``| label | column: value |`` line, as the reader writes a table row."""
    return line.strip()[2:].rstrip(" |").split(" | ")


def is_value(text: str) -> bool:
    """A number-like cell: digits with signs, deviations, ratios, marks, or a unit word ("634 secs",
    "3,288 TB"); or a missing-value dash."""
    t = _UNIT.sub("", text.strip())
    return bool(t) and (t in _MISSING or (any(c.isdigit() for c in t) and _VALUE.fullmatch(t) is not None))


def names_columns(cells: list[str], below: list[str]) -> bool:
    """Value-like cells that name columns: sizes, rising, with a magnitude suffix ("10k 20k 1m"),
    or whole numbers over a row of fractions ("1 2 5 10" over "3.2 4.2 4.1 4.2")."""
    nums = [_SIZE.fullmatch(c.strip()) for c in cells]
    fractions = any(re.search(r"\d\.\d|%|\dK", c) for c in below)
    if len(nums) < 2 or not all(nums) or not any(m.group(2) or (fractions and "." not in m.group(1)) for m in nums):
        return False
    if not any(m.group(2) for m in nums) and any("." in m.group(1) for m in nums):
        return False
    scale = {"": 1, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "B": 1e9, "G": 1e9}
    sizes = [float(m.group(1)) * scale[m.group(2)] for m in nums]
    return all(a < b for a, b in zip(sizes, sizes[1:]))


def words(ln: Line) -> list[tuple[str, float, float]]:
    """The line's space-separated words with their extents (the whole line when boxes are missing)."""
    if len(ln.xs) != len(ln.text):
        return [(ln.text, ln.x0, ln.x1)]
    out, start = [], None
    for i, ch in enumerate(ln.text + " "):
        if ch.strip():
            start = i if start is None else start
        elif start is not None:
            out.append((_marked(ln, start, i), ln.xs[start][0], ln.xs[i - 1][1]))
            start = None
    return out


def _marked(ln: Line, start: int, end: int) -> str:
    """A word, with the marks a number carries set smaller after it (significance daggers and
    digits in superscript: "28.81" + "123") apart as ``28.81 ^123``, so the value reads whole."""
    text = ln.text[start:end]
    sizes = ln.sizes[start:end] if len(ln.sizes) == len(ln.text) else []
    if not sizes:
        return text
    k = len(text)
    while k > 0 and sizes[k - 1] < 0.8 * max(sizes):
        k -= 1
    if 0 < k < len(text) and text[k - 1].isdigit() and any(c.isdigit() for c in text[:k]):
        return f"{text[:k]} ^{text[k:]}"
    return text


def _values(words: list[tuple[str, float, float]]) -> list[tuple[str, float, float]]:
    """Words grouped into values: an operator, a deviation "(…)" or a mark "@…" joins its neighbour."""
    groups: list[list[tuple[str, float, float]]] = []
    for w in words:
        t = w[0]
        glued = groups and (t in _GLUE or t.startswith(("(", "±", "@", "^")) or groups[-1][-1][0] in _GLUE
                            or groups[-1][-1][0].endswith("±"))
        if glued:
            groups[-1].append(w)
        else:
            groups.append([w])
    return [(" ".join(x[0] for x in g), g[0][1], g[-1][2]) for g in groups]


def units(ln: Line) -> list[Unit]:
    """A line as cells: several values set close together are separate cells, anything else one."""
    groups = _values(words(ln))
    if groups and all(is_value(g[0]) for g in groups):
        return [Unit(normalize(t), a, b, ln) for t, a, b in groups]
    text = normalize(rejoin_small_caps(ln)).replace(SOFT_HYPHEN, "-").strip()
    return [Unit(text, ln.x0, ln.x1, ln)] if text else []


def merge_rows(rows: list[list[Line]]) -> list[list[Line]]:
    """Rows that share a baseline (one row read in two pieces) made one, cells left to right."""
    out: list[list[Line]] = []
    for row in rows:
        if out:
            prev = out[-1]
            base, pbase = row[0].base or row[0].bottom, prev[0].base or prev[0].bottom
            apart = all(ln.x1 <= p.x0 or ln.x0 >= p.x1 for ln in row for p in prev)
            if abs(base - pbase) <= 0.35 * row[0].size and apart:
                prev.extend(row)
                continue
        out.append(list(row))
    return [sorted(r, key=lambda ln: ln.x0) for r in out]
