"""A sentence that runs on from one piece of a paper's text into the next: a PDF paragraph broken over a
page, a column or a float (a table or figure set inside it) leaves a piece that stops inside a sentence,
and the next piece carries it on. The hub serves a chunk with its sentence whole by these tests
(:meth:`core.hub.service.HubService._whole`), and the PDF reader quotes the text that refers to a figure or
table with its sentences whole by them (:func:`core.hub.pdf._link_mentions`)."""

from __future__ import annotations

import re

from core.text import CHUNK_ABBREVIATION, CHUNK_SENTENCE_END, split_sentences

# a chunk's text that ends so has its last sentence whole (a closing bracket or quote may follow the mark)
SENTENCE_DONE = (".", "!", "?", ":", ";", ".)", ".]", ".\"", ".”", "?\"", "?”", "。", "！", "？")
MAX_TAIL = 400  # characters of the next chunk a sentence's end is looked for in


# A sentence left unfinished that reads as prose: it opens with a capital, is mostly words, and most of
# them are lower case (not a figure's labels, "Relation Phrase Not Between Arguments"). A chunk
# that ends in a table's cells, a plot's labels or a formula read into the running text ("… 4 – – –",
# "c=0.8 c=0.8") also "stops inside a sentence", and the text after a float is no end of it.
_WORD = re.compile(r"^[(\"“‘']?[A-Za-z][a-z’'-]*[),;:\"”’']*$")


def prose_tail(text: str) -> bool:
    """Whether the unfinished last sentence of ``text`` reads as prose (see :data:`_WORD`): four words at
    least, or three that break off after a word no sentence ends with ("As described in")."""
    words = _tail_words(text)
    return len(words) >= (3 if OPEN_END.search(text) else 4) and words[0][:1].isupper() and _prose(words)


def labels_tail(text: str) -> bool:
    """Whether the unfinished last sentence of ``text`` is a run of a table's or a chart's labels read into
    the running text ("Binary Verbal Relation Phrases 85% Satisfy Constraints"): four words or more that do
    not read as prose. A short start ("… of Section 4. The") is no such run."""
    words = _tail_words(text)
    return len(words) >= 4 and not _prose(words)


def _tail_words(text: str) -> list[str]:
    tail = split_sentences(text[-MAX_TAIL:], end=CHUNK_SENTENCE_END, abbreviation=CHUNK_ABBREVIATION)
    return tail[-1].split() if tail else []


def _prose(words: list[str]) -> bool:
    """Mostly words, and most of them after the first in lower case: no run of labels."""
    return (sum(bool(_WORD.match(w)) for w in words) >= 0.7 * len(words)
            and sum(w[:1].islower() for w in words[1:]) >= 0.5 * (len(words) - 1))


# a sentence broken off after a word no sentence ends with ("… has much lower precision than REVERB and",
# "As described in")
OPEN_END = re.compile(r"\b(?:and|or|but|nor|than|of|the|a|an|to|in|on|at|by|for|from|with|into|over|under|as|"
                      r"that|which|whose|who|is|are|was|were|be|been|has|have|had|its|their|our|this|these|"
                      r"those|between|against|without|via|per|versus|vs\.)$")
_PANEL = re.compile(r"\([a-z0-9]\)[,;:]?")  # a panel's or an item's label, "(b)"


def continues(head: str, before: str, *, pdf: bool, past_float: bool) -> bool:
    """Whether the text ``head`` opens with carries on the unfinished last sentence of ``before``: it opens
    in lower case; or, in a PDF (a Markdown chunk that opens with a capital starts its own sentence), it
    opens with a capital, ``before`` reads as prose (:func:`prose_tail`) and broke off after a word no
    sentence ends with (:data:`OPEN_END`), and ``head`` reads as prose too (:func:`_prose_head`). Past a
    float (``past_float``: a table, figure or equation set at the break) the capital must be a name's
    ("REVERB¬lex at all levels …") or a reference's ("Section 2.3, REALM employs …"): a sentence whose
    own end went into the float ("… are described in" [Table 2]) is not carried on by the next one ("We
    train all models …")."""
    if head[:1].islower():
        return True
    if not pdf or not (OPEN_END.search(before) and prose_tail(before) and _prose_head(head)):
        return False
    return not past_float or bool(_NAMED_HEAD.match(head))


# a text that opens with a name in capitals ("REVERB¬lex", "GPT-3") or a reference ("Section 2.3", "Table 4")
_NAMED_HEAD = re.compile(r"(?:[A-Z][^\s]*[A-Z0-9]|(?:Section|Sections|Table|Figure|Fig\.|Eq\.|Equation|Appendix|Algorithm)"
                         r"\s+[A-Z0-9])")


def _prose_head(head: str) -> bool:
    """Whether the text ``head`` opens with reads as prose: of its first sentence's first twelve words, most
    are words (:data:`_WORD`) and most after the first are in lower case. A table's or a chart's labels read
    into the running text ("Binary Verbal Relation Phrases 85% Satisfy Constraints", "(b) No backup tasks
    (a) Normal execution") carry on no sentence."""
    first = split_sentences(head[:MAX_TAIL], end=CHUNK_SENTENCE_END, abbreviation=CHUNK_ABBREVIATION)
    words = first[0].rstrip(".!?").split()[:12] if first else []
    prose = sum(bool(_WORD.match(w)) and not _PANEL.fullmatch(w) for w in words)
    return len(words) >= 2 and prose >= 0.7 * len(words) and sum(w[:1].islower() for w in words[1:]) >= 0.5 * (len(words) - 1)
