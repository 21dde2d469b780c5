"""Text primitives the offline brain reasons with: tokens, light stemming, sentences, markers.

Everything here is pure and deterministic. Tokens are lower-cased, lightly stemmed English words
(so "models"/"model" and "tuned"/"tuning" meet) and character bigrams for Chinese runs, which is
enough for lexical coverage and support checks without any model.
"""

from __future__ import annotations

import re
from functools import lru_cache

WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z0-9]|[\u4e00-\u9fff]+")
MARKER_RE = re.compile(r"\[(\d+)\]")
CJK_RE = re.compile(r"[\u4e00-\u9fff]")
_INLINE_TEXT = ("text", "code_inline", "softbreak", "hardbreak")

STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto over under about as is
    are was were be been being am do does did done doing have has had having can could will would shall
    should may might must it its it's this that these those they them their there here he she his her we
    our you your i me my mine what which who whom whose when where why how than so such not no nor too
    very just also only both each either neither any all some most more less much many few other another
    same one ones own via per up down out off again further once while during before after between through
    against among upon within without yes s t let lets use used using uses make makes made get gets got
    like e g i.e eg ie etc et al vs versus""".split()
)

# Words that frame a question rather than name its subject; ignored when measuring coverage.
FRAME_WORDS = frozenset(
    """compare comparison compared contrast difference differences differ different explain describe
    tell trace traced overview summary summarize summarise discuss show give list outline explore
    question answer way ways thing things kind kinds type types work works working happen happens
    relate related relation relationship please role main key important exactly really
    best better worse good bad new old first second step steps chain method methods approach approaches
    technique techniques evolve evolved evolving evolv evolution develop developed development
    paper papers collection article articles respectively mainly""".split()
)

_ABBREVIATIONS = ("e.g.", "i.e.", "et al.", "vs.", "Fig.", "fig.", "Eq.", "eq.", "approx.", "cf.", "No.")
_SENT_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(\[*\u4e00-\u9fff])|(?<=[。！？])")


@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A very light suffix stripper: enough to match plural/tense variants, never aggressive."""
    w = word.lower()
    if len(w) <= 3 or not w.isascii() or any(c.isdigit() for c in w):
        return w
    if w.endswith("ies") and len(w) > 4:
        return w[:-3] + "y"
    for suf in ("ing", "ed"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)]
            break
    else:
        if w.endswith("es") and w[-3] in "sxz" and len(w) > 4:
            w = w[:-2]
        elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
            w = w[:-1]
    if w.endswith("e") and len(w) > 4:
        w = w[:-1]
    return w


def words(text: str) -> list[str]:
    """Raw word tokens in order (Chinese runs kept whole)."""
    return WORD_RE.findall(text)


def tokens(text: str) -> list[str]:
    """Normalized tokens: stemmed lower-case English words and Chinese character bigrams."""
    out: list[str] = []
    for w in WORD_RE.findall(text):
        if CJK_RE.match(w):
            out.extend(w[i : i + 2] for i in range(max(1, len(w) - 1)))
        else:
            out.append(stem(w))
    return out


def content_terms(text: str, *, drop_frame: bool = False, parts: bool = False) -> list[str]:
    """Tokens without stopwords (and, optionally, question-framing words), in order, unique.

    ``parts`` adds the parts of hyphenated compounds, so a question's "form-understanding" meets
    a document's "form understanding" (one way only: "low-rank" in a text is not "rank").
    """
    seen: dict[str, None] = {}
    for w in WORD_RE.findall(MARKER_RE.sub(" ", text)):
        low = w.lower()
        if low in STOPWORDS or (drop_frame and low in FRAME_WORDS):
            continue
        if CJK_RE.match(w):
            for i in range(max(1, len(w) - 1)):
                seen.setdefault(w[i : i + 2], None)
            continue
        t = stem(w)
        if t in STOPWORDS or (drop_frame and t in FRAME_WORDS) or (len(t) < 2 and not t.isdigit()):
            continue
        seen.setdefault(t, None)
        if parts and "-" in w:
            for part in w.split("-"):
                p = stem(part)
                if len(p) >= 3 and not p.isdigit() and p not in STOPWORDS and not (drop_frame and p in FRAME_WORDS):
                    seen.setdefault(p, None)
    return list(seen)


@lru_cache(maxsize=8192)
def term_set(text: str) -> frozenset[str]:
    return frozenset(content_terms(text))


def covered(term: str, have: set[str] | frozenset[str]) -> bool:
    """A term is covered when present, or when it and a present term share a 5+ letter prefix."""
    if term in have:
        return True
    if len(term) < 5:
        return False
    return any(len(h) >= 5 and (h.startswith(term[:5]) and (term.startswith(h) or h.startswith(term))) for h in have)


# Phrases that only say what kind of answer is wanted ("how long did it take", "according to").
QUESTION_FORMS = re.compile(
    r"\bhow (?:long|many|much|far|big|large|often)\b(?: (?:did|does|do) (?:it|they) (?:take|need))?|"
    r"\baccording to\b|\bwhat (?:is|was) the name of\b|\bby how much\b|\b(?:roughly|approximately|exactly)\b",
    re.I)


def strip_question_form(text: str) -> str:
    """``text`` without phrases that only say what kind of answer is wanted, or its layout."""
    from core.brains.offline.form import FORMAT_INSTRUCTION

    return QUESTION_FORMS.sub(" ", FORMAT_INSTRUCTION.sub(" ", text))


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


_ROW_BREAK = re.compile(r"(?<=\|)\s+(?=\|)")  # "| a | b | | c | d |": rows a chunk joined on one line
_TABLE_CRUMB = re.compile(r"^(Table\s*[\dIVX]+[a-z]?)\s*[:.]\s*(.+)$|^Table, (p\. \d+)$", re.I)


def _cells(line: str) -> list[str]:
    return [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line[1:-1])]


def _is_rule(line: str) -> bool:
    return line.startswith("|") and all(set(c) <= set("-: ") for c in _cells(line))


def table_label(breadcrumb: str) -> str:
    """The table a chunk's rows belong to, named from the breadcrumb's last part: the PDF reader
    files a table's rows under its caption ("Table 2: Runtime of …" → "Table 2 (Runtime of …)"),
    or under "Table, p. 3" when it found none; "" for a chunk that is not a table's."""
    m = _TABLE_CRUMB.match(breadcrumb.rsplit(" > ", 1)[-1].strip())
    if not m:
        return ""
    return f"{m.group(1)} ({m.group(2).strip()})" if m.group(1) else f"the table on {m.group(3)}"


def row_sentence(cells: list[str], table: str = "") -> str:
    """A table row without a header row as one sentence: its label, then its cells (a cell the
    reader named after its column reads ``column value``), prefixed with the table it sits in,
    so the row carries the words of its label, its columns and its caption
    (``In Table 2 (Runtime …), Add Highway: Logistic 4.177, MaxEnt 3.093.``)."""
    cells = [c for c in cells if c]
    if not cells:
        return ""
    rest = [re.sub(r"^([^:]{1,60}):\s+", r"\1 ", c) for c in cells[1:]]
    body = f"{cells[0]}: {', '.join(rest)}" if rest else cells[0]
    body = body.rstrip(" .;,")
    return f"In {table}, {body}." if table else f"{body}."


def split_sentences(text: str, *, table: str = "") -> list[str]:
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
                rows = [_cells(r) for r in _ROW_BREAK.split(line) if r.startswith("|") and r.endswith("|") and len(r) > 1]
                out += [s for s in (row_sentence(r, table) for r in rows) if s]
            continue
        header = None
        if not line or line.startswith("#") or set(line) <= set("|-: "):
            continue
        line = re.sub(r"^(?:[-*+•]|\d+[.)])\s+", "", line)
        for part in caption_parts(line):
            protected = part
            for i, abbr in enumerate(_ABBREVIATIONS):
                protected = protected.replace(abbr, abbr.replace(".", f"\x00{i}\x00"))
            protected = re.sub(r"(\d)\.(\d)", "\\1\x01\\2", protected)
            for piece in _SENT_END.split(protected):
                piece = re.sub(r"\x00\d+\x00", ".", piece).replace("\x01", ".").strip()
                if piece:
                    out.append(piece)
    return out


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


def strip_markers(text: str) -> str:
    """Remove ``[n]`` markers and tidy the spacing they leave behind."""
    text = MARKER_RE.sub("", text)
    text = re.sub(r"\s+([.,;:!?。])", r"\1", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def markers(text: str) -> list[int]:
    return [int(m) for m in MARKER_RE.findall(text)]


def has_cjk(text: str) -> bool:
    return bool(CJK_RE.search(text))


def clip_words(text: str, max_words: int) -> str:
    ws = text.split()
    if len(ws) <= max_words:
        return text
    return " ".join(ws[:max_words]).rstrip(",;:") + "…"


def numbers_with_units(text: str) -> list[tuple[str, str]]:
    """``(value, unit)`` pairs such as ("8", "rank"), ("48", "gb"), ("99.3", "%")."""
    found = []
    for m in re.finditer(r"(\d+(?:\.\d+)?)\s?(%|gb|GB|B\b|M\b|x\b|×|-bit|bit\b)", text):
        found.append((m.group(1), m.group(2).lower().lstrip("-")))
    return found


# A reference to a part of the document ("Table 2", "Fig. 3", "Section 4.1", "Eq. (5)"): a label, not a value.
_PART_REF = re.compile(r"\b(?:tables?|tab\.|fig(?:ure)?s?\.?|sections?|sec\.|eqs?\.|equations?|appendix|"
                       r"algorithms?|chapters?)\s*\(?\d+(?:\.\d+)*[a-z]?\)?", re.I)


def numbers(text: str) -> set[str]:
    """The values a text states, normalized ("1,000" → "1000", "0.50" → "0.5"); references to parts of
    the document ("Table 2") and number words ("two") are not read."""
    out = set()
    for m in re.finditer(r"(?<![\w.])\d+(?:,\d{3})*(?:\.\d+)?", _PART_REF.sub(" ", text)):
        v = m.group(0).replace(",", "")
        out.add(v.rstrip("0").rstrip(".") if "." in v else v)
    return out


@lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark")


def plain_text(markdown: str) -> str:
    """One line of Markdown as plain text: emphasis, strong and code spans lose their markers,
    while characters that are part of words stay (``lora_alpha`` keeps its underscore, as in CommonMark)."""
    parts = []
    for block in _markdown().parseInline(markdown):
        for tok in block.children or []:
            if tok.type in _INLINE_TEXT:
                parts.append(tok.content if tok.type in ("text", "code_inline") else " ")
    return "".join(parts)
