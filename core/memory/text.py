"""Text helpers for facts: normalization (dedup key), keywords and FTS5 queries."""

from __future__ import annotations

import re

from core.text import FACT_STOPWORDS, KEYWORD

_CITATION = re.compile(r"\s*\[(?:\d+(?:\s*[,–-]\s*\d+)*)\]")


def clean_fact(text: str) -> str:
    """A fact as stored: citation markers like ``[1]`` removed, whitespace collapsed."""
    return " ".join(_CITATION.sub("", text).split()).strip()


def normalize(text: str) -> str:
    """The dedup key: lowercase, no citations, no punctuation differences, single spaces."""
    text = clean_fact(text).lower().replace("’", "'").replace("“", '"').replace("”", '"')
    text = re.sub(r"[^\w\s'+-]", " ", text)
    return " ".join(text.split())


def keywords(text: str, limit: int = 16) -> list[str]:
    """Distinct content words, in order of appearance."""
    out: list[str] = []
    for word in KEYWORD.findall(clean_fact(text).lower()):
        word = word.strip(".")
        if len(word) < 2 or word in FACT_STOPWORDS or word in out:
            continue
        out.append(word)
        if len(out) >= limit:
            break
    return out


def fts_terms(text: str) -> list[str]:
    """The text's keywords as FTS5 terms, each quoted so no input is a syntax error."""
    terms: list[str] = []
    for word in keywords(text, limit=24):
        for part in re.split(r"[-+.]", word):
            if len(part) >= 2 and part not in FACT_STOPWORDS and f'"{part}"' not in terms:
                terms.append(f'"{part}"')
    return terms


def fts_query(text: str) -> str:
    """An FTS5 ``OR`` query of the text's keywords."""
    return " OR ".join(fts_terms(text))


def shorten(text: str, limit: int = 60) -> str:
    """One line of at most ``limit`` characters (titles, table cells)."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
