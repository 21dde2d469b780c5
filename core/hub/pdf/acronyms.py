"""Acronyms a paper defines, spelled out where its tables use them.

A paper writes "Alignment Error Rate (AER)" once in its prose and then labels a table's row or
column "AER"; a question names the measure in words. Each table row's label and column names get
the paper's own long form after the acronym's first use on the row (``| AER (Alignment Error
Rate) | L12: 11.58% |``), so the row holds the words the question asks with. Definitions come from
the paper's text only (:func:`core.vocabulary.definitions`, the form "Long Form (ACR)").
"""

from __future__ import annotations

import re

from core.hub.pdf.cells import row_line_cells
from core.vocabulary import definitions

_PROSE = ("body", "abstract", "caption", "footnote")


def defined(blocks) -> dict[str, str]:
    """The paper's acronyms with their long forms (the first definition of each)."""
    out: dict[str, str] = {}
    for block in blocks:
        if block.kind in _PROSE:
            for acr, long in definitions(block.text):
                if len(acr) >= 2 and acr.lower() != long.lower():
                    out.setdefault(acr, long)
                    if len(acr) >= 3 and acr.endswith("s") and acr[-2].isupper():  # "WCNs" names "WCN" too
                        out.setdefault(acr[:-1], long)
    return out


def spell_out(line: str, longs: dict[str, str]) -> str:
    """One ``| label | column: value |`` line with each acronym of its label and column names
    followed by its long form, once a line (values are never touched)."""
    if not line.startswith("| ") or not longs:
        return line
    cells = row_line_cells(line)
    done: set[str] = set()

    def expand(text: str) -> str:
        for acr, long in longs.items():
            if acr in done or long.lower() in line.lower():
                continue
            pattern = re.compile(rf"(?<![\w(-]){re.escape(acr)}(?![\w-])")
            if pattern.search(text):
                text = pattern.sub(f"{acr} ({long})", text, count=1)
                done.add(acr)
        return text

    out = []
    for k, cell in enumerate(cells):
        name, sep, value = cell.partition(": ")
        if k == 0 and not sep:
            out.append(expand(cell))
        elif sep:
            out.append(f"{expand(name)}{sep}{value}")
        else:
            out.append(cell)
    return "| " + " | ".join(out) + " |"


def expand_tables(blocks) -> None:
    """Spell out the paper's acronyms in its table blocks' rows, in place."""
    longs = defined(blocks)
    if not longs:
        return
    for block in blocks:
        if block.kind == "table":
            block.text = "\n".join(spell_out(line, longs) for line in block.text.split("\n"))
