"""Text primitives shared by the brain, the hub, citations and memory: tokens, stop words, stems,
sentences, numbers, names and Unicode normalization.

Pure and deterministic; it imports nothing else of ``core``. Each token pattern serves one purpose
and is named for it; a use that drops more or fewer words than :data:`STOPWORDS` states the
difference here, as a set expression over the base list.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# -- tokens ------------------------------------------------------------------------------------------
# The brain's words: letters and digits with inner hyphens ("low-rank", "GPT-3"), a Chinese run whole.
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z0-9]|[\u4e00-\u9fff]+")
# Search terms of the hub's BM25 index and its queries: runs of Unicode word characters, so a hyphen
# splits ("low-rank" is "low" and "rank") and any script is indexed.
SEARCH_TOKEN = re.compile(r"\w+", re.U)
# A fact's keywords: like WORD, with "+" and "." kept inside and "+" at the end ("C++", "GPT-3.5").
KEYWORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9\-+.]*[A-Za-z0-9+]|[A-Za-z0-9]")
# Words that start with a letter (a number is read as a quantity, not a word): claim keys, lineage terms.
LETTER_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]*[A-Za-z0-9]|[A-Za-z]")
# A topic keyphrase's words, read from lower-cased text: "self-attention", "don't", "gpt-3.5".
TOPIC_WORD = re.compile(r"[a-z][a-z0-9]*(?:[-'][a-z0-9]+|\.\d+)*")
# A topic's name as a question types it, any case, digits first allowed, a Chinese run whole.
TOPIC_NAME_WORD = re.compile(r"[a-z0-9\u4e00-\u9fff]+(?:[-.'][a-z0-9]+)*", re.I)
# A question's words as written, names whole ("GPT-3.5", "Llama-2/7B", "don't"): counted by routing.
QUESTION_WORD = re.compile(r"[A-Za-z][\w\-./+']*|\d[\w\-./+']*")

MARKER_RE = re.compile(r"\[(\d+)\]")
CJK_RE = re.compile(r"[\u4e00-\u9fff]")

# -- stop words --------------------------------------------------------------------------------------
# The base list, written once in three tiers by how many uses drop the words: every use drops the
# first, facts drop the second too, the brain drops all three.
_FUNCTION = """a an the and or then of to in on at by for with from into about as is are was be do does
    did have has had can could will would it its this that these they them their there our you your i
    what which who whom whose when where why how than use used using vs versus"""
_COMMON = """but if were been being doing it's those we so such not no very just also only each any more
    much many other while yes uses"""
_OTHER = """else onto over under am done having shall should may might must here he she his her me my mine
    nor too both either neither all some most less few another same one ones own via per up down out off
    again further once during before after between through against among upon within without s t let lets
    make makes made get gets got like e g i.e eg ie etc et al"""
STOPWORDS = frozenset(f"{_FUNCTION} {_COMMON} {_OTHER}".split())
# The hub's BM25 index and query terms drop the function words only: its measured recall was built
# so, and the other words ("not", "more", "between") can tell chunks apart.
SEARCH_STOPWORDS = frozenset(_FUNCTION.split())
# A fact's keywords (FTS5 terms, claim keys): the first two tiers, keeping "whose" out, with "compared".
FACT_STOPWORDS = frozenset(f"{_FUNCTION} {_COMMON}".split()) - {"whose"} | {"compared"}
# Words nearly every paper writes, which name no topic (topic keyphrases drop them too).
PAPER_WORDS = frozenset("""two three new show shows shown propose proposed present presents introduce
    introduced paper papers work approach approaches method methods model models result results task tasks
    based well large small several different various first second significantly however achieve achieves
    achieved compared state-of-the-art art state able see way thus yet across towards toward often i.e. e.g.
    we're cent""".split())
# Topic keyphrases: the base and PAPER_WORDS; a few colloquial words of the base stay (kept as computed).
TOPIC_STOPWORDS = (STOPWORDS - {"doing", "ie", "let", "lets", "mine", "neither", "ones", "s", "t", "yes"}) | PAPER_WORDS
# Words that cannot begin a long form a name abbreviates ("the Low-Rank Adaptation (LoRA)" starts at
# "Low"), nor sit inside a heading phrase taken as a name.
LONG_FORM_STOPWORDS = (STOPWORDS & frozenset("""a an the we our this that these those its their in on of for
    and or with to by as is are than from using via into""".split())) | {"called", "named", "namely", "based"}
# Words that lead a lower-case phrase, so a capitalized word after them is not a proper name.
LOWER_LEAD_WORDS = STOPWORDS & frozenset("""the a an on in of for and or with to by as we our this that these
    its their within over under than from at is are was""".split())

# A question's opening auxiliary or question word, capitalized as its first word, not as part of the name
# after it ("Does PROTO beat SIM?" names PROTO).
OPENING_WORDS = STOPWORDS & frozenset("""does do did is are was were can could should would will has have had
    which what who how when where why the""".split())

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
# Section headings every paper has: they name no topic and no method.
GENERIC_HEADINGS = frozenset({
    "summary", "abstract", "introduction", "problem", "method", "methods", "approach", "results", "key results",
    "evaluation", "experiments", "conclusion", "discussion", "background", "related work", "limitations",
    "overview", "analysis", "setup", "training", "data", "references", "appendix", "ablations", "findings",
    "future work", "key ideas", "main results"})


# -- stems -------------------------------------------------------------------------------------------
@lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A very light suffix stripper: enough to match plural/tense variants, never aggressive.

    The brain's lexical features (and the sentence scorer trained on them) use it; the hub's BM25
    index uses Snowball (:func:`snowball`)."""
    w = word.lower()
    if len(w) <= 3 or not w.isascii() or any(c.isdigit() for c in w):
        return w
    w = noun_lemma(w)  # a plural meets its singular: "sizes" "size", "corpora" "corpus", "embeddings" "embedding"
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


@lru_cache(maxsize=1)
def _lemmas():
    from lemminflect import getLemma

    return getLemma


def noun_lemma(word: str) -> str:
    """``word``'s singular where an English dictionary (LemmInflect's) knows it as a noun's plural
    ("sizes" → "size", "corpora" → "corpus", "matrices" → "matrix", "embeddings" → "embedding");
    else ``word``. The light stemmer's suffix rules cannot tell "siz-es" from "size-s" or read a Latin
    plural, so a plural and its singular stemmed apart; a word the dictionary does not hold as a noun
    (a name, a verb form) is left to those rules."""
    found = _lemmas()(word, "NOUN", lemmatize_oov=False)
    return found[0].lower() if found else word


def singular(word: str) -> str:
    """``word`` lower-cased without a plural "s" ("ranks" → "rank"; "loss" and "gas" stay)."""
    w = word.lower()
    return w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w


@lru_cache(maxsize=1)
def _snowball():
    import Stemmer

    return Stemmer.Stemmer("english")


def snowball(words: list[str]) -> list[str]:
    """English Snowball stems (PyStemmer): the hub's BM25 terms."""
    return _snowball().stemWords(words)


# -- terms -------------------------------------------------------------------------------------------
def words(text: str) -> list[str]:
    """Raw word tokens in order (Chinese runs kept whole)."""
    return WORD.findall(text)


def tokens(text: str) -> list[str]:
    """Normalized tokens: stemmed lower-case English words and Chinese character bigrams."""
    out: list[str] = []
    for w in WORD.findall(text):
        if CJK_RE.match(w):
            out.extend(w[i : i + 2] for i in range(max(1, len(w) - 1)))
        else:
            out.append(stem(w))
    return out


def _content(text: str, drop_frame: bool):
    """(term, word as written) for each content word of ``text``, in order; a Chinese run gives its
    character bigrams as terms."""
    for w in WORD.findall(MARKER_RE.sub(" ", text)):
        low = w.lower()
        if low in STOPWORDS or (drop_frame and low in FRAME_WORDS):
            continue
        if CJK_RE.match(w):
            yield [w[i : i + 2] for i in range(max(1, len(w) - 1))], w
            continue
        t = stem(w)
        if t in STOPWORDS or (drop_frame and t in FRAME_WORDS) or (len(t) < 2 and not t.isdigit()):
            continue
        yield [t], w


def content_terms(text: str, *, drop_frame: bool = False, parts: bool = False) -> list[str]:
    """Tokens without stopwords (and, optionally, question-framing words), in order, unique.

    ``parts`` adds the parts of hyphenated compounds, so a question's "form-understanding" meets
    a document's "form understanding" (one way only: "low-rank" in a text is not "rank").
    """
    seen: dict[str, None] = {}
    for terms, w in _content(text, drop_frame):
        for t in terms:
            seen.setdefault(t, None)
        if parts and "-" in w:
            for part in w.split("-"):
                p = stem(part)
                if len(p) >= 3 and not p.isdigit() and p not in STOPWORDS and not (drop_frame and p in FRAME_WORDS):
                    seen.setdefault(p, None)
    return list(seen)


def content_words(text: str, *, drop_frame: bool = False) -> list[str]:
    """The words of :func:`content_terms` as written, one per term, in order: what a search a person
    reads (a retry's query, a chain's step) is made of ("blocks", not the stem "block")."""
    seen: dict[str, str] = {}
    for terms, w in _content(text, drop_frame):
        seen.setdefault(w if CJK_RE.match(w) else terms[0], w)  # a Chinese run is one word, whole
    return list(seen.values())


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


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def short_title(title: str) -> str:
    """A paper's short name: the part of its title before a colon ("Longformer: The Long-…")."""
    head = title.split(":", 1)[0].strip()
    return head if 0 < len(head) <= 40 else title.strip()


def has_cjk(text: str) -> bool:
    return bool(CJK_RE.search(text))


# -- sentences ---------------------------------------------------------------------------------------
# A Markdown list item's marker ("- ", "* ", "• ", "2. ", "3) "): no part of the sentence after it.
LIST_ITEM = re.compile(r"^(?:[-*+•]|\d+[.)])\s+")
# A sentence ends at ".", "!" or "?" and white space before a capital, digit, quote, bracket, a bullet
# ("*", or a PDF list's "•", "▪", "◦", "‣": a list run into one paragraph) or a Chinese character, and
# right after "。", "！" or "？"; not after an abbreviation. A PDF list's bullet after a colon starts a
# sentence too ("… to evaluate it: • Reputable."); elsewhere "•" and "◦" may be operators ("f ◦ g", "90 ◦").
# (An end mark may have a closing bracket or quote after it: "… the rest.) The next …", "… called “X.” It …".)
SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][)\]\"'”’]))\s+(?=[A-Z0-9\"'(\[*•▪◦‣\u4e00-\u9fff])|(?<=[。！？])|"
                          r"(?<=:)\s+(?=[•▪◦‣]\s)")
ABBREVIATION = re.compile(r"(?:e\.g|i\.e|et al|vs|Fig|fig|Eq|eq|approx|cf|No)\.[)\]\"'”’]?$")
# The hub's chunker reads paragraphs with white space folded: a closing quote or bracket may follow the
# end mark (and is dropped with the space), and a single capital ends an initial ("J. Smith").
CHUNK_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")
CHUNK_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|et al|etc|vs|Fig|Eq|Sec|Tab|approx|cf|No|Dr|Mr|Ms)|\b[A-Z])\.$")
# Any white space after an end mark ends a sentence, whatever follows: a cheap cut for scanning a text's
# values or lines sentence by sentence, where a wrong cut only splits a sentence.
LOOSE_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# A reference entry's parts (authors, title, venue) end at a period before a capital or an identifier.
REFERENCE_PART_END = re.compile(r"(?<=[.?!])\s+(?=[A-Z“\"]|ar[Xx]iv|doi|https?:)")
_LONGEST_ABBREVIATION = 12  # characters before a boundary an abbreviation pattern needs to see


def split_sentences(text: str, *, end: re.Pattern = SENTENCE_END, abbreviation: re.Pattern | None = ABBREVIATION,
                    rejoin: str | None = None) -> list[str]:
    """The sentences of ``text``, stripped, empty ones dropped: it is cut at each match of ``end``
    unless the text before the match ends with ``abbreviation``. A boundary not cut at keeps its
    white space, or is replaced by ``rejoin`` when one is given."""
    out: list[str] = []
    start, held = 0, ""
    for m in end.finditer(text):
        cut = m.start()
        if abbreviation is not None and abbreviation.search(text, max(0, cut - _LONGEST_ABBREVIATION), cut):
            if rejoin is not None:
                held, start = held + text[start:cut] + rejoin, m.end()
            continue
        if piece := (held + text[start:cut]).strip():
            out.append(piece)
        start, held = m.end(), ""
    if piece := (held + text[start:]).strip():
        out.append(piece)
    return out


# Where a cited claim's sentence stops inside an answer: an end mark before white space, a line break or
# a table cell's "|" (no abbreviation check: the span only bounds which words a marker cites).
# A discourse connective that opens a sentence and ties it to the sentence before it in its paragraph ("Second,
# we find …", "As a result, …"): English's closed class of sentence adverbials and linking phrases, with the
# comma that sets it off. Quoted out of its paragraph, the sentence stands alone without it.
LEADING_CONNECTIVE = re.compile(
    r"^(?:first(?:ly)?|second(?:ly)?|third(?:ly)?|finally|lastly|next|then|moreover|furthermore|further|"
    r"additionally|in addition|also|besides|however|nevertheless|nonetheless|still|yet|instead|conversely|"
    r"in contrast|by contrast|on the other hand|thus|therefore|hence|consequently|accordingly|as a result|"
    r"as such|to this end|in this way|similarly|likewise|again|specifically|in particular|notably|"
    r"importantly|crucially|indeed|in fact|of course|interestingly|surprisingly|most surprisingly|"
    r"remarkably|meanwhile|overall|in summary|in short|for example|for instance|here|in practice),\s+",
    re.I)


def standalone(sentence: str) -> str:
    """``sentence`` without the connective that tied it to its paragraph's sentence before
    (:data:`LEADING_CONNECTIVE`), its next word capitalised when written in lower-case letters only (a name
    such as "pLSA" stays as it is); as it is when fewer than three words would be left."""
    m = LEADING_CONNECTIVE.match(sentence)
    rest = sentence[m.end():] if m else ""
    if not m or len(rest.split()) < 3:
        return sentence
    first = rest.split(maxsplit=1)[0]
    return rest[:1].upper() + rest[1:] if re.fullmatch(r"[a-z]+[,;:]?", first) else rest


CLAIM_BOUNDARY = re.compile(r"(?:[.!?。！？](?=\s)|\n|\|)")


def sentence_start(text: str, pos: int) -> int:
    """Where the sentence holding ``pos`` starts: just after the last :data:`CLAIM_BOUNDARY` before it."""
    last = 0
    for b in CLAIM_BOUNDARY.finditer(text, 0, pos):
        last = b.end()
    return last


def sentence_end(text: str, pos: int) -> int:
    """Where the sentence holding ``pos`` ends: at the next :data:`CLAIM_BOUNDARY`, else the text's end."""
    b = CLAIM_BOUNDARY.search(text, pos)
    return b.start() if b else len(text)


def line_sentences(text: str, *, end: re.Pattern = SENTENCE_END,
                   abbreviation: re.Pattern | None = ABBREVIATION) -> list[str]:
    """The sentences of each line of ``text`` (see :func:`split_sentences`): a line break always ends one."""
    return [s for line in text.splitlines() for s in split_sentences(line, end=end, abbreviation=abbreviation)]


# -- answer lines' labels ----------------------------------------------------------------------------
# The heading of the library's list of papers (core.strategies.library): the critic judges that answer
# by its form, and the app offers no lineage under it (a list of the collection is no line of work)
LIBRARY_LISTING = re.compile(r"^### (?:The one paper|The \d+ papers|\d+ of the \d+ papers) of ")


# An answer line's bold lead label ("**Kestrel:**", "**Kestrel**:", "**Kestrel** (2019):", a label that
# carries a parenthetical such as its year), and any bold opening (a chain step's "**question**" too):
# the claim a line makes is what follows, not the name it is filed under
BOLD_LABEL = re.compile(r"^\*\*[^*]+(?::\*\*|\*\*(?:\s*\([^()]*\))?:)\s*")
BOLD_LEAD = re.compile(r"^\*\*[^*]+\*\*(?:\s*\([^()]*\):)?:?\s*")


# -- markers, numbers and names ----------------------------------------------------------------------
def strip_markers(text: str) -> str:
    """Remove ``[n]`` markers and tidy the spacing they leave behind."""
    text = MARKER_RE.sub("", text)
    text = re.sub(r"\s+([.,;:!?。])", r"\1", text)
    return re.sub(r"\s{2,}", " ", text).strip()


def markers(text: str) -> list[int]:
    return [int(m) for m in MARKER_RE.findall(text)]


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


# A number as written, not normalized ("4-bit" → "4", "65B" → "65", "0.5"): what a claim and its source share.
WRITTEN_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?")
# A name-shaped token: an acronym, CamelCase or a letter-digit word ("DPO", "QLoRA", "GPT-3").
NAME_TOKEN = re.compile(r"\b(?:[A-Za-z]*[a-z][A-Z][A-Za-z0-9-]*|[A-Z]{2,}[A-Za-z0-9-]*|[A-Za-z]+-?\d+[A-Za-z0-9-]*)\b")


def written_numbers(text: str) -> list[str]:
    """The numbers written in ``text``, as written (see :data:`WRITTEN_NUMBER`)."""
    return WRITTEN_NUMBER.findall(text)


def name_tokens(text: str) -> list[str]:
    """The name-shaped tokens of ``text`` (see :data:`NAME_TOKEN`)."""
    return NAME_TOKEN.findall(text)


VERSION_SUFFIX = r"(?:[ -](?:\d+(?:\.\d+)*[A-Za-z]?|[Vv]\d+(?:\.\d+)?|XL|XXL|Pro|Base|Large|Small|Huge|Tiny)(?![A-Za-z0-9_.]))*"
# Names as papers write them: QLoRA, LayoutLMv3, SEW, mT5, T5, wav2vec 2.0, phi-1.5, GPT-3.5,
# Transformer-XL, AlphaFold 2, Gemini 1.5 Pro, Perceiver IO.
NAME = re.compile(
    r"(?<![A-Za-z0-9_-])(?:"
    r"[A-Z][a-z]*[A-Z][A-Za-z0-9_]*(?:-[A-Z0-9][A-Za-z0-9]*)*"  # CamelCase and acronyms: QLoRA, LayoutLMv3, R-CNN
    r"|[a-z]+[A-Z][A-Za-z0-9_]*"  # mT5, wav2Vec
    r"|[A-Za-z]+\d[A-Za-z0-9_]*"  # T5, wav2vec2
    r"|[A-Za-z]+(?:-[A-Za-z0-9]+)*-\d+(?:\.\d+)*[A-Za-z]*"  # phi-1.5, GPT-3.5, WikiText-103, Kosmos-2
    r"|[A-Z][a-z]+-[A-Z][A-Za-z0-9_]*"  # Transformer-XL, ViT-Huge
    r"|[a-z]+\d*(?= \d+\.\d+\b)"  # wav2vec (2.0)
    r"|[A-Z][a-z]+(?= \d)"  # Gemini (1.5)
    r"|[A-Z][a-z]+ [A-Z]{2,}(?![A-Za-z0-9_-])"  # Perceiver IO
    r")" + VERSION_SUFFIX + r"(?![A-Za-z0-9_]|-[A-Z0-9]|\.\d)")

# A surname as citations print it ("Smith", "O'Neil", "Lee-Kim"), and a work cited by its two authors
# with its year in a citation's form ("Smith and Eisner (2005)", "(Och & Ney, 2003)", "2005a"): one
# name, never two. A year set off by neither a bracket nor a comma ("January and February 2020") is no
# citation.
SURNAME = r"(?:[A-Z]['’])?[A-Z][a-z]+(?:-[A-Z]?[a-z]+)*"
AUTHOR_PAIR = re.compile(rf"(?<![\w'’-])({SURNAME}) (?:and|&) ({SURNAME})(?: \(|, ?)((?:19|20)\d{{2}})[a-z]?\b")


# -- Unicode -----------------------------------------------------------------------------------------
def nfkc(text: str) -> str:
    """NFKC (ligatures such as "ﬁ" → "fi", full-width forms, compatibility characters), soft hyphens out."""
    return unicodedata.normalize("NFKC", text.replace("\u00ad", ""))


def fold_ascii(text: str) -> str:
    """Accents and other non-ASCII marks dropped ("Schölkopf" → "Scholkopf"), for keys and titles."""
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
