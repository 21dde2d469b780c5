"""Provenance of cited sentences in full-text answers: text a paper's reader should have kept out.

A cited claim (the text a ``[n]`` closes, :func:`core.citations.claims`) is flagged when it comes from

- **references**: half or more of its word 4-grams (a claim of at least 4 words) occur in the cited
  paper's reference list, as the project's PDF reader parsed it;
- **furniture**: it contains a running header or footer of the cited paper (a line of at least 3 words
  that :func:`core.hub.pdf.clean.drop_furniture` removes);
- **glued heading**: one of the cited paper's section headings followed by a word that starts with
  a capital letter: the heading's text glued to the body. At the claim's opening the heading may lack
  its number ("Experimental Setup We train…"); inside the claim it must carry it ("…on the Web
  4 HERON This section…": the paragraph before a heading, the heading and the next section's first
  sentence read as one), and not be a cross-reference ("see Section 4 HERON").

Only PDFs have a profile (:func:`pdf_profile`); :func:`flags` is pure, so the rules are tested on
invented profiles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from core.citations import claims

_WORD = re.compile(r"\w+(?:[-.']\w+)*")
_NUMBERING = re.compile(r"^(?:\d{1,2}|[A-H])(?:\.\d{1,2}){0,3}\.?\s+")
_CROSS_REF = re.compile(r"(?:\b(?:sections?|sec\.|chapters?|appendix|appendices|and|or|to)|§)\s*$", re.I)  # "Sections 3 and 4 …"
_LABELLED = {"caption", "table", "figure", "footnote"}  # blocks whose last crumb is a label, not a heading
MIN_FURNITURE_WORDS = 3
GRAM = 4


@dataclass
class Profile:
    """What a PDF's reader set apart: reference entries, page furniture and section headings."""

    references: list[str] = field(default_factory=list)
    furniture: list[str] = field(default_factory=list)
    headings: list[str] = field(default_factory=list)


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _grams(words: list[str], n: int = GRAM) -> set[tuple[str, ...]]:
    return {tuple(words[i:i + n]) for i in range(len(words) - n + 1)}


def _contains(words: list[str], part: list[str]) -> bool:
    k = len(part)
    return k > 0 and any(words[i:i + k] == part for i in range(len(words) - k + 1))


def claim_flags(claim: str, profile: Profile) -> list[str]:
    """Which kinds of set-apart text ``claim`` comes from ("references", "furniture", "glued heading")."""
    out: list[str] = []
    words = _words(claim)
    grams = _grams(words)
    if len(words) >= GRAM and profile.references:
        ref_grams = set().union(*(_grams(_words(r)) for r in profile.references))
        if len(grams & ref_grams) * 2 >= len(grams):
            out.append("references")
    if any(_contains(words, fw) for fw in (_words(f) for f in profile.furniture) if len(fw) >= MIN_FURNITURE_WORDS):
        out.append("furniture")
    if _glued_heading(" ".join(claim.split()).lstrip("-*•> "), profile.headings):
        out.append("glued heading")
    return out


def _glued_heading(text: str, headings: list[str]) -> bool:
    """Whether ``text`` holds a heading glued to the next sentence (see the module's docstring)."""
    for heading in headings:
        numbered = " ".join(heading.split())
        for h in {numbered, _NUMBERING.sub("", numbered)}:
            if h and text.lower().startswith(h.lower() + " ") and text[len(h) + 1:][:1].isupper():
                return True
        if not _NUMBERING.match(numbered):
            continue
        for m in re.finditer(rf"(?<![\w.,]){re.escape(numbered)} ", text, re.I):
            if m.start() > 0 and text[m.end():][:1].isupper() and not _CROSS_REF.search(text[:m.start()]):
                return True
    return False


def flags(answer: str, source_docs: dict[int, str], profiles: dict[str, Profile]) -> list[str]:
    """Each offending citation of ``answer`` as "kind: claim" (the cited paper's profile decides)."""
    out: list[str] = []
    for c in claims(answer):
        for n in c.numbers:
            prof = profiles.get(source_docs.get(n, ""))
            if prof is None:
                continue
            out += [f"{kind}: {' '.join(c.text.split())[:120]}" for kind in claim_flags(c.text, prof)]
    return list(dict.fromkeys(out))


def pdf_profile(path: Path) -> Profile:
    """A PDF's reference entries, dropped running headers/footers and section headings, as the
    project's reader (:mod:`core.hub.pdf`) finds them."""
    from core.hub.pdf import clean, read_pdf
    from core.hub.pdf.layout import read_pages

    pages, _ = read_pages(str(path))
    before = [[ln.text for ln in p.lines] for p in pages]
    clean.drop_furniture(pages)
    furniture: list[str] = []
    for texts, page in zip(before, pages):
        kept = [ln.text for ln in page.lines]
        for t in texts:
            if t in kept:
                kept.remove(t)
            elif len(_words(t)) >= MIN_FURNITURE_WORDS:
                furniture.append(clean.normalize(t))
    doc = read_pdf(path)
    headings: list[str] = []
    for block in doc.blocks:
        crumbs = block.path[1:-1] if block.kind in _LABELLED else block.path[1:]
        headings += [c for c in crumbs if c]
    return Profile(references=[r.text for r in doc.references], furniture=list(dict.fromkeys(furniture)),
                   headings=sorted(set(headings), key=len, reverse=True))


def corpus_profiles(corpus: Path, slug) -> dict[str, Profile]:
    """A profile for every PDF under ``corpus``, by document slug (``slug(path)``); an unreadable one is skipped."""
    from core.hub.readers import ReadError

    out: dict[str, Profile] = {}
    for path in sorted(corpus.rglob("*.pdf")):
        try:
            out[slug(str(path))] = pdf_profile(path)
        except (ReadError, OSError, ValueError):
            continue
    return out
