"""Sentence-respecting chunking and offline summaries.

A chunk never crosses a section or a page, never cuts a sentence (unless one sentence alone is
longer than the limit), and aims at ``target`` characters so a hit reads as a coherent passage. A
``verbatim`` block (a spreadsheet's table, already cut into header-led groups of rows) is one chunk.
A paper's reference list (blocks of kind ``references``) is never chunked: an entry of it is not
evidence for an answer (the parsed entries stay on :attr:`ParsedDoc.references`).
"""

from __future__ import annotations

import re

from core.hub.readers import Block
from core.hub.store import NewChunk
from core.text import CHUNK_ABBREVIATION, CHUNK_SENTENCE_END, split_sentences

TARGET_CHARS = 700
MAX_CHARS = 1100

_PARAGRAPH = re.compile(r"\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.|\|)\s)")


def block_sentences(text: str) -> list[str]:
    """A block's sentences, its paragraphs' white space folded; list items and lines of a table
    count as sentences too (see :data:`core.text.CHUNK_SENTENCE_END`)."""
    out: list[str] = []
    for para in _PARAGRAPH.split(text):
        para = " ".join(para.split())
        if para:
            out += split_sentences(para, end=CHUNK_SENTENCE_END, abbreviation=CHUNK_ABBREVIATION, rejoin=" ")
    return out


def _hard_split(sentence: str, limit: int) -> list[str]:
    words, parts, cur = sentence.split(), [], ""
    for w in words:
        if cur and len(cur) + 1 + len(w) > limit:
            parts.append(cur)
            cur = w
        else:
            cur = f"{cur} {w}" if cur else w
    return parts + ([cur] if cur else [])


def chunk_blocks(blocks: list[Block], target: int = TARGET_CHARS, limit: int = MAX_CHARS) -> list[NewChunk]:
    """Group each block's sentences into chunks of about ``target`` characters."""
    chunks: list[NewChunk] = []
    for block in blocks:
        if block.kind == "references":
            continue
        if block.verbatim:
            chunks.append(NewChunk(list(block.path), block.text, block.page))
            continue
        cur: list[str] = []
        size = 0
        for sent in block_sentences(block.text):
            for piece in (_hard_split(sent, limit) if len(sent) > limit else [sent]):
                if cur and size + 1 + len(piece) > target and size >= target // 3:
                    chunks.append(NewChunk(list(block.path), " ".join(cur), block.page))
                    cur, size = [], 0
                cur.append(piece)
                size += len(piece) + 1
        if cur:
            chunks.append(NewChunk(list(block.path), " ".join(cur), block.page))
    return _merge_tiny(chunks)


def _merge_tiny(chunks: list[NewChunk], floor: int = 60) -> list[NewChunk]:
    """Fold very short chunks into the previous chunk of the same section and page."""
    out: list[NewChunk] = []
    for ch in chunks:
        prev = out[-1] if out else None
        if (prev and len(ch.text) < floor and prev.section_path == ch.section_path and prev.page == ch.page
                and not ch.text.startswith("| ") and not prev.text.startswith("| ")
                and len(prev.text) + len(ch.text) < MAX_CHARS):
            prev.text = f"{prev.text} {ch.text}"
        else:
            out.append(ch)
    return out


_SUMMARY_HEADS = re.compile(r"\b(abstract|summary|tl;?dr|overview|at a glance|in brief)\b", re.I)


_NOT_SUMMARY = {"front", "references", "caption", "footnote", "figure", "table", "equation"}


def offline_summary(blocks: list[Block], max_sentences: int = 3, max_chars: int = 600) -> str:
    """Leading sentences of the abstract/summary section, else of the document's body (never a
    paper's author block, captions, footnotes, figure text, tables, equations or reference list)."""
    body = [b for b in blocks if b.kind not in _NOT_SUMMARY] or blocks
    chosen = next((b for b in body if b.kind == "abstract"), None) or next(
        (b for b in body if len(b.path) > 1 and _SUMMARY_HEADS.search(b.path[-1])), None)
    pool = block_sentences(chosen.text) if chosen else [s for b in body for s in block_sentences(b.text)]
    out: list[str] = []
    for s in pool:
        if s.startswith("|") or len(s) < 20:
            continue
        if out and len(" ".join(out)) + len(s) > max_chars:
            break
        out.append(s)
        if len(out) >= max_sentences:
            break
    return " ".join(out)[:max_chars]
