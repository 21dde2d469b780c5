"""A paper's title, authors, year and venue, read from its first page's layout.

The title is the largest text in the upper half of page 1 (consecutive lines of that size joined),
when it is clearly larger than the body text. The PDF's metadata title is used only when it looks
like a title (not a file name such as "acl07.dvi" or "Microsoft Word - x.doc", not a proceedings
name) and the layout gave none. Authors are the name-shaped pieces of the lines between the
title and the abstract; the year is the latest plausible year printed on page 1 outside the body
text (a venue line, a copyright notice), else the file's creation date. The venue is the
"Proceedings of …" or "To appear in …" line of page 1, else a venue the metadata's subject names.
"""

from __future__ import annotations

import re

from core.hub.pdf.clean import BAND, join_lines, normalize
from core.hub.pdf.layout import SOFT_HYPHEN, Line

_JUNK_TITLE = re.compile(r"\.(?:dvi|docx?|pdf|tex|ps|eps|indd|rtf)\b|^microsoft\s|^untitled|^proceedings\b"
                         r"|^(?:paper|document|main|template|draft)\s*\d*$|^[\w-]+$", re.I)
_NOT_NAME = re.compile(r"@|\d|\b(?:univ|universit\w*|institut\w*|department|dept|school|college|labs?|"
                       r"laborator\w*|research|center|centre|division|inc|corp\w*|ltd|gmbh|faculty|abstract|"
                       r"proceedings|conference|journal|email|street|road|avenue)\b", re.I)
_YEAR = re.compile(r"(?<!\d)(19[5-9]\d|20[0-4]\d)(?!\d)")
_NUMBER_RANGE = re.compile(r"\d+\s*[-\u2013]\s*\d+")
_ABSTRACT = re.compile(r"^\s*abstract\b", re.I)
# A section's own name, exactly ("Supplementary Material for X" and "50 Years of Data Science" are titles)
_SECTION_NAME = re.compile(r"^(?:(?:table of )?contents|preface|foreword|abstract|introduction|references|bibliography|"
                           r"acknowledge?ments?|appendix(?:\s+[A-Z0-9]{1,2})?)$", re.I)
# The first section's heading: numbered 0 or 1 ("1 Your Chapter", "1.1 Setup"), a few words ("2 OLMo 2 Furious" is a title)
_FIRST_HEADING = re.compile(r"^[01](?:\.\d{1,2})*\.?\s+[A-Z][^\s.:]*(?:\s+[^\s.:]+){0,3}$")


def looks_like_title(text: str) -> bool:
    text = " ".join(text.split())
    return 10 <= len(text) <= 250 and len(text.split()) >= 2 and not _JUNK_TITLE.search(text)


def title_lines(first_page: list[Line], body: float, height: float) -> list[Line]:
    """The title's lines: the largest size in the upper half of page 1, larger than the body."""
    upper = [ln for ln in first_page if ln.top < height * 0.5 and sum(c.isalpha() for c in ln.text) >= 3]
    if not upper:
        return []
    big = max(ln.size for ln in upper)
    if big < body * 1.15:
        return []
    start = next(i for i, ln in enumerate(first_page) if ln in upper and abs(ln.size - big) <= 0.6)
    out = [first_page[start]]
    for ln in first_page[start + 1:]:
        if abs(ln.size - big) > 0.6 or ln.top - out[-1].bottom > 1.5 * big:
            break
        out.append(ln)
    return out


def title(first_page: list[Line], body: float, height: float, meta_title: str, fallback: str) -> str:
    """The layout's title, else the metadata's when it looks like one, else the layout's largest
    text, else ``fallback`` (the file name). Text shaped as a section heading ("Contents",
    "1 Your Chapter": a document that opens with its table of contents or a chapter) is no title
    (:func:`_section_name`)."""
    lines = title_lines(first_page, body, height)
    found = normalize(" ".join(ln.text.strip() for ln in lines)).strip()
    if _section_name(found):
        found = ""
    if looks_like_title(found):
        return found[:300]
    meta_title = normalize(meta_title or "").strip()
    return meta_title if looks_like_title(meta_title) else (found or fallback)


def _section_name(text: str) -> bool:
    """Whether ``text`` reads as a section heading: a section's own name ("Contents", "Introduction")
    or the first section's numbered heading ("1 Your Chapter", "1.1 Setup")."""
    return bool(_SECTION_NAME.match(text) or _FIRST_HEADING.match(text))


_MARKS = "*†‡§¶∗◦⋆"
# an affiliation line opens with its mark glued to its first word ("1Brain & Cognitive Sciences", "†Center for …")
_MARKED_LINE = re.compile(rf"^[\d{_MARKS}]+(?=[A-Z])")


def authors(first_page: list[Line], after: list[Line], body: float) -> list[str]:
    """Name-shaped pieces of the byline lines between the title and the abstract or first heading.

    A byline sets its names apart from the affiliations under them: when some of its lines are bold,
    names come only from those; else, when its lines differ in size, only from the largest. A line
    that opens with an affiliation mark ("1Brain …", "†Center …") is an affiliation; a mark glued to a
    name ("Jain1", "Seung1,2", "Lehr†") is not part of it."""
    start = first_page.index(after[-1]) + 1 if after and after[-1] in first_page else 0
    byline: list[Line] = []
    for ln in first_page[start:]:
        text = normalize(ln.text).strip()
        if _ABSTRACT.match(text) or _heading(text):
            break
        if ln.size >= body * 0.85 and not _MARKED_LINE.match(text):
            byline.append(ln)
    if any(ln.bold for ln in byline):
        byline = [ln for ln in byline if ln.bold]
    elif byline:
        top = max(round(ln.size, 1) for ln in byline)
        byline = [ln for ln in byline if round(ln.size, 1) >= top - 0.3]
    names: list[str] = []
    for ln in byline:
        if len(names) >= 12:
            break
        for piece in re.split(r",|;|\band\b|&|\s{2,}", normalize(ln.text).strip()):
            name = re.sub(rf"[{_MARKS}]+|(?<=[a-z’'])\d+(?:,\d+)*$|\s+\d+(?:,\d+)*$", "", piece).strip(" .")
            words = name.split()
            if (2 <= len(words) <= 4 and not _NOT_NAME.search(name)
                    and all(w[:1].isupper() for w in words) and name not in names):
                names.append(name)
    return names


def _heading(text: str) -> bool:
    """A numbered section heading ("1 Introduction"), which ends the byline; an address line that
    opens with a number has more numbers ("1 University Station C0500") or a longer one (a postcode)
    (bold says nothing: some papers set the whole byline bold)."""
    m = re.match(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+[A-Z]", text)  # "69120 Heidelberg, Germany" is a postcode
    return bool(m) and not re.search(r"\d", text[m.end():])


# Where page 1 says where the paper appeared, in a line set apart from the body text (a header, a
# footer, a first-page notice): "Proceedings of …" up to its first comma or full stop (after "In",
# "Appearing in"), else what a line opening "To appear in" / "Appeared in" names.
_PROCEEDINGS_OF = re.compile(r"\b((?:Proceedings|PROCEEDINGS)\s+(?:of|OF)\s+.+?)(?:,|\.(?:\s|$)|\s+pp\.|\s+pages\b|$)")
_APPEARS_IN = re.compile(r"^\s*(?:To\s+appear|Appear(?:ed|ing))\s+in\s+(?!Proceedings\b)(.+?)(?:,|\.(?:\s|$)|$)")
# A venue the PDF's metadata names (its Subject, up to a ";"): a name with one of these words, or an
# acronym and a year. A subject that is a category path ("A -> B") names none.
_VENUE_WORD = re.compile(r"\b(?:proceedings|conference|symposium|workshop|journal|transactions|meeting|congress)\b",
                         re.I)
_ACRONYM_YEAR = re.compile(r"^[A-Z][A-Z-]{2,}\s*(?:19|20)\d\d$")
_ORDINAL = re.compile(r"(\d)\s+(st|nd|rd|th)\b")


def venue(first_page: list[Line], body: float, height: float, subject: str = "") -> str | None:
    """Where the paper appeared, as page 1 prints it outside its body-size text ("Proceedings of the
    50th Annual Meeting of …", "To appear in OSDI 2004"; a line broken by a hyphen is read with the
    next), else the PDF's metadata subject when it names a venue ("Proceedings of the International
    Conference on Machine Learning"); None when neither does. The first printed one wins: a copyright
    notice below it names the publisher. Body-size text is read only in the header or footer band
    (a running "To appear in …"), never in the page's body ("… tend to appear in a random order")."""
    def set_apart(ln: Line) -> bool:
        return abs(ln.size - body) > 0.6 or ln.bottom < height * BAND or ln.top > height * (1 - BAND)

    texts = [normalize(ln.text) if set_apart(ln) else "" for ln in first_page]
    for i, text in enumerate(texts):
        if not text:
            continue
        joined = join_lines(texts[i:i + 2]) if text.rstrip().endswith(("-", SOFT_HYPHEN)) else text
        m = _PROCEEDINGS_OF.search(joined) or _APPEARS_IN.match(joined)
        if m and _plausible(name := _tidy(m.group(1))):
            return name
    subject = _tidy(re.sub(r"https?://\S+", "", (subject or "").split(";")[0]))
    if "->" not in subject and _plausible(subject) and (_VENUE_WORD.search(subject) or _ACRONYM_YEAR.match(subject)):
        return subject
    return None


def _tidy(text: str) -> str:
    return _ORDINAL.sub(r"\1\2", " ".join(text.split())).strip(" ,;:")


def _plausible(name: str) -> bool:
    return 4 <= len(name) <= 160 and len(name.split()) >= 2 and bool(re.search(r"[A-Za-z]{3,}", name))


def year(first_page: list[Line], body: float, creation_date: str = "", venue: str | None = None) -> int | None:
    """The latest year printed on page 1 outside body-size text; else the year of the paper's
    ``venue`` line ("To appear in OSDI 2004", which may be a running header in body size); else the
    creation date's year (when the file was made, not the paper)."""
    years = [int(y) for ln in first_page if abs(ln.size - body) > 0.6 for y in _YEAR.findall(ln.text)]
    if years:
        return max(years)
    if venue and (printed := _YEAR.findall(_NUMBER_RANGE.sub(" ", venue))):
        return max(int(y) for y in printed)  # a page range ("1929-1958") is no year
    m = re.match(r"^(?:D:)?(19[5-9]\d|20[0-4]\d)", creation_date or "")
    return int(m.group(1)) if m else None
