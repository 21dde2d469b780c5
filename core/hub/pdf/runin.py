"""Run-in headings: a paragraph that opens with a few words set bold and goes on in regular type
on the same line, without a period between ("Decoding We decode each sentence…", "Ethical
Considerations As a toolkit…"). Read as one line, the heading would open the paragraph's first
sentence; it is the paragraph's breadcrumb instead.

Found by form and type alone: the bold run is one to six words that start with a capital, hold no
digit ("Algorithm 1", "Theorem 2" are labels), hold three letters or more (a bold "Y" is a symbol)
and end without punctuation ("Outline:" already sets itself apart), and the regular text after it
opens a sentence of more than one word (:func:`opens_sentence`: "Mk. First …" after "Optimizing" is
the heading's last word in another font; "Fig. 3 shows …" opens a sentence). A numbered heading set
in mixed type is a heading line (:mod:`.structure`), not this. The same words set bold on a line of
their own after a paragraph's last sentence ("Worker Failure") are a paragraph heading too
(:meth:`core.hub.pdf.structure.Walker._paragraph_heading`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from core.hub.pdf.layout import Line
from core.text import CHUNK_ABBREVIATION

_WORD = re.compile(r"^\(?[^\W\d_]+(?:[-/’'()][^\W\d_]*)*\)?$|^&$")  # "(De)composition", "Adjective-noun"
_SENTENCE = re.compile(r"^[A-Z](?:[a-z]|\s)")
# the rest opens with one word and a full stop ("Optimizing" / "Mk. First we fix …", the heading's last
# word set in another font): the heading runs on, and no sentence is one word long; an abbreviation
# ("Fig. 3 shows …", "Eq. (2) gives …") opens a sentence
_ONE_WORD = re.compile(r"^\S+\.(?=\s|$)")


def opens_sentence(text: str) -> bool:
    """Whether ``text`` opens a sentence of more than one word: a capital, then a lower-case letter or a
    space, and not one word and a full stop unless that word is an abbreviation."""
    text = text.strip()
    one = _ONE_WORD.match(text)
    return bool(_SENTENCE.match(text)) and not (one and not CHUNK_ABBREVIATION.search(one.group(0)))


def heading_form(head: str) -> bool:
    """Whether ``head`` reads as a paragraph's heading: one to six words of letters, the first
    capitalized, no digit and no closing punctuation."""
    words = head.split()
    return (1 <= len(words) <= 6 and all(_WORD.match(w) for w in words) and head.lstrip("(")[:1].isupper()
            and sum(ch.isalpha() for ch in head) >= 3)


def split_run_in(ln: Line) -> tuple[str, Line] | None:
    """``(heading, the rest of the line)`` when ``ln`` opens with a run-in heading, else None."""
    k = ln.lead_bold
    if not k or k >= len(ln.text):
        return None
    head, rest = ln.text[:k].strip(), ln.text[k:]
    if not heading_form(head) or not opens_sentence(rest):
        return None
    start = k + len(rest) - len(rest.lstrip())
    aligned = len(ln.sizes) == len(ln.text)
    x0 = ln.xs[start][0] if len(ln.xs) == len(ln.text) else ln.x0
    return head, replace(ln, text=ln.text[start:], x0=x0, sizes=ln.sizes[start:] if aligned else [],
                         xs=ln.xs[start:] if ln.xs else [], lead_bold=0)
