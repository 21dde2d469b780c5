"""Kinds of lines a paper sets by their form alone: numbered and named section headings, the
reference list's heading, appendix headings, captions, the abstract's label, footnote markers and
mathematical symbols (a displayed equation set in pieces)."""

from __future__ import annotations

import re

NUMBERED = re.compile(r"^((?:\d{1,2}|[A-H])(?:\.\d{1,2}){0,3})\.?\s+([A-Z][^.]{1,90})$")
NAMED = re.compile(r"^(?:abstract|introduction|related work|background|preliminaries|conclusions?|discussion|"
                   r"acknowledge?ments?|references|bibliography|literature cited|experiments?|results|"
                   r"evaluation|methods?|methodology|limitations|ethic(?:s|al considerations)(?: statement)?|"
                   r"future work|conclusions? and future work|summary|appendix(?:\s+[A-Z0-9]+)?.*|"
                   r"supplementary material.*)$", re.I)
REFS = re.compile(r"^(?:\d{1,2}\.?\s+)?(?:references|bibliography|literature cited|works cited)$", re.I)
APPENDIX = re.compile(r"^(?:appendix|supplementary)\b|^[A-H](?:\.\d)*\.?\s+[A-Z]", re.I)
CAPTION = re.compile(r"^(figure|fig\.|table|tab\.)\s*(\d{1,2}|[IVX]{1,4})([a-z]?)\s*[:.|]\s*(.*)$", re.I)
ABSTRACT = re.compile(r"^abstract\b[\s.:—–-]*", re.I)
MARKER = re.compile(r"^[\d*†‡§¶∗]")
MATH = re.compile(r"[∑∏∫∝←→∂∇∈∀∃≤≥≈≠ΓΘΣΦΨΩαβγδθλμσφψω=|]|^\(\d{1,3}\)$")
