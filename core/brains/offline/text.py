"""How the offline brain reads a chunk: its sentences (table rows and figure captions included),
question forms, and Markdown as plain text.

The text primitives themselves (tokens, stems, stop words, numbers) live in :mod:`core.text`; they are
re-exported here under the names the brain's modules import.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core import text as _text
from core.text import (BOLD_LABEL, BOLD_LEAD, CJK_RE, FRAME_WORDS, LIST_ITEM, MARKER_RE, STOPWORDS, content_terms, content_words, covered, has_cjk,  # noqa: F401
                       jaccard, markers, numbers, numbers_with_units, stem, strip_markers, term_set, tokens, words)
from core.text import WORD as WORD_RE  # noqa: F401

_INLINE_TEXT = ("text", "code_inline", "softbreak", "hardbreak")


# Phrases that only say what kind of answer is wanted ("how long did it take", "according to").
QUESTION_FORMS = re.compile(
    r"\bhow (?:long|many|much|far|big|large|often)\b(?: (?:did|does|do) (?:it|they) (?:take|need))?|"
    r"\baccording to\b|\bwhat (?:is|was) the name of\b|\bby how much\b|\b(?:roughly|approximately|exactly)\b",
    re.I)


def strip_question_form(text: str) -> str:
    """``text`` without phrases that only say what kind of answer is wanted, or its layout."""
    from core.brains.offline.form import FORMAT_INSTRUCTION

    return QUESTION_FORMS.sub(" ", FORMAT_INSTRUCTION.sub(" ", text))


_ROW_BREAK = re.compile(r"(?<=\|)\s+(?=\|)")  # "| a | b | | c | d |": rows a chunk joined on one line
_TABLE_CRUMB = re.compile(r"^(Table\s*[\dIVX]+[a-z]?)\s*[:.]\s*(.+)$|^Table, p\. (\d+)$", re.I)


def _cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line[1:-1])]


def row_cells(line: str) -> list[list[str]]:
    """The cells of each PDF table row on a ``| label | column: value |`` line (a chunk may join
    several rows on one line: ``| a | b | | c | d |``)."""
    return [_cells(r) for r in _ROW_BREAK.split(line) if r.startswith("|") and r.endswith("|") and len(r) > 1]


def _is_rule(line: str) -> bool:
    return line.startswith("|") and all(set(c) <= set("-: ") for c in _cells(line))


def table_label(breadcrumb: str) -> str:
    """The table a chunk's rows belong to, named from the breadcrumb's last part: the PDF reader
    files a table's rows under its caption ("Table 2: Runtime of …" → "Table 2 (Runtime of …)"),
    or under "Table, p. 3" when it found none ("the table on page 3": an abbreviation's full stop
    would cut each row sentence in two); "" for a chunk that is not a table's."""
    m = _TABLE_CRUMB.match(breadcrumb.rsplit(" > ", 1)[-1].strip())
    if not m:
        return ""
    if not m.group(1):
        return f"the table on page {m.group(3)}"
    # the caption's first sentence names the table; what follows explains it (and the reader may have
    # cut it: "… (e.g. those…"), and a full stop inside a row sentence would split it as a claim
    name = _text.split_sentences(m.group(2).strip())[0].rstrip(" .;:")
    return f"{m.group(1)} ({name})"


def row_sentence(cells: list[str], table: str = "") -> str:
    """A table row without a header row as one sentence: its label, then its cells (a cell the
    reader named after its column reads ``column value``), prefixed with the table it sits in,
    so the row carries the words of its label, its columns and its caption
    (``In Table 2 (Runtime …), Add Highway: Logistic 4.177, MaxEnt 3.093.``)."""
    cells = [c for c in cells if c]
    if not cells:
        return ""
    # a column named by an abbreviation ("Cov.") loses its full stop: before a value ("Cov. 9%") it
    # would end the row's sentence there, and the rest would read as a claim of its own, uncited
    rest = [re.sub(r"^([^:]{1,60}?)\.?:\s+", r"\1 ", c) for c in cells[1:]]
    body = f"{cells[0]}: {', '.join(rest)}" if rest else cells[0]
    body = body.rstrip(" .;,")
    return f"In {table}, {body}." if table else f"{body}."


def passage_sentences(text: str, *, table: str = "") -> list[str]:
    """Sentences of a chunk; Markdown headings and table rules are dropped, bullets unwrapped.

    A Markdown table (a header row, then a rule) reads one sentence a row with its header
    (``Model: X; Accuracy: 0.91.``). Table rows without a rule under a header (a PDF table's
    ``| label | column: value |`` rows, several to a line once chunked) read one sentence a row
    by :func:`row_sentence`, named after ``table`` (see :func:`table_label`).
    """
    out: list[str] = []
    header: list[str] | None = None
    lines = [ln.strip() for ln in text.splitlines()]
    for n, line in enumerate(lines):
        if line.startswith("|") and line.endswith("|") and len(line) > 1:
            if _is_rule(line):
                continue
            if header is None and n + 1 < len(lines) and _is_rule(lines[n + 1]):
                header = _cells(line)
            elif header is not None:
                cells = _cells(line)
                if any(cells):
                    out.append("; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells) if c) + ".")
            else:
                out += [s for s in (row_sentence(r, table) for r in row_cells(line)) if s]
            continue
        header = None
        if not line or line.startswith("#") or set(line) <= set("|-: "):
            continue
        line = LIST_ITEM.sub("", line)
        for part in caption_parts(line):
            # a PDF list run into one paragraph ("… computers. • Unknown. We were …") ends a sentence
            # at each bullet (:data:`core.text.SENTENCE_END`); the bullet itself is no part of one
            out += [_unmatched(_BULLET.sub("", s)) for s in _text.split_sentences(part)]
    return out


_BULLET = re.compile(r"^[•▪◦‣]\s*")
_CLOSE_AFTER_END = re.compile(r"([.!?])\s*[)\]]$")


def _unmatched(sentence: str) -> str:
    """``sentence`` without the bracket of a parenthesis of several sentences that opens or closes
    outside it ("(Ledgers of the north wing … room." and "We count them apart.)" of "(Ledgers … room. We
    count them apart.)"): quoted alone, each read with a bracket that pairs with nothing."""
    opens, closes = sentence.count("(") + sentence.count("["), sentence.count(")") + sentence.count("]")
    if sentence[:1] in "([" and opens > closes:
        return sentence[1:].lstrip()
    if (m := _CLOSE_AFTER_END.search(sentence)) and closes > opens:
        return sentence[:m.start()] + m.group(1)
    return sentence


_IN_FIGURE, _IN_TEXT = "(In the figure: ", "(In the text: "


def caption_parts(line: str) -> list[str]:
    """A caption line as the PDF reader writes it — ``Figure 3: caption (In the figure: drawn
    labels) (In the text: sentences that discuss it)`` — as its parts to read as sentences: the
    caption, ended as a sentence, then the discussing sentences. The figure's drawn labels are
    not statements, so they are no candidate sentence (they stay in the chunk for retrieval and
    support). Any other line is returned whole."""
    fig, txt = line.find(_IN_FIGURE), line.find(_IN_TEXT)
    if fig < 0 and txt < 0:
        return [line]
    cut = min(i for i in (fig, txt) if i >= 0)
    caption = line[:cut].rstrip()
    parts = [caption if caption.endswith((".", "!", "?")) else caption + "."] if caption else []
    if txt >= 0:
        said = line[txt + len(_IN_TEXT):].rstrip()
        parts.append(said[:-1] if said.endswith(")") else said)
    return parts


def clip_words(text: str, max_words: int) -> str:
    ws = text.split()
    if len(ws) <= max_words:
        return text
    return " ".join(ws[:max_words]).rstrip(",;:") + "…"


@lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def unlabelled(line: str, *, colon: bool = True) -> str:
    """One answer line without its list marker and bold lead label ("- **Kestrel:** It reads …"
    gives "It reads …"): the claim the line makes, not the name it is filed under. A label ends in a
    colon; with ``colon=False`` any bold opening goes (a chain step's restated question, "**LoRA**")."""
    return (BOLD_LABEL if colon else BOLD_LEAD).sub("", LIST_ITEM.sub("", line.strip())).strip()


def plain_text(markdown: str) -> str:
    """One line of Markdown as plain text: emphasis, strong and code spans lose their markers,
    while characters that are part of words stay (``lora_alpha`` keeps its underscore, as in CommonMark)."""
    parts = []
    for block in _markdown().parseInline(markdown):
        for tok in block.children or []:
            if tok.type in _INLINE_TEXT:
                parts.append(tok.content if tok.type in ("text", "code_inline") else " ")
    return "".join(parts)


_STEP_ASKS = re.compile(r"[?？]\s*$|^\s*(?:what|which|who|whom|whose|when|where|why|how|is|are|does|do|did|can|"
                        r"could|should|was|were|has|have)\b|什么|哪|多少|如何|怎么|为什么|是否|吗"
                        # a request is an ask too: "(then) give the hours …", "List the datasets", "请给出…"
                        r"|^\s*(?:(?:then|and|also|finally)\s+)?(?:give|list|find|name|state|report|describe|explain|"
                        r"tell|show|summari[sz]e|compare|identify)\b|^\s*(?:然后|再)?(?:请|给出|列出|说明|解释|描述|比较)", re.I)


def step_asks(step: str) -> bool:
    """Whether a chain's step asks something: a question or a request ("then give the hours …"), not a
    context clause ("REALM takes its candidates from an Open IE system") or a keyword search ("teacher
    model", "HERON: conclude training")."""
    return bool(_STEP_ASKS.search(step))
