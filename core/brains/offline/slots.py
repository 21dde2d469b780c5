"""Slot filling: entities, dimensions, constraints and a self-contained query.

Entities come from three places, in this order of trust: the built-in lexicon (canonical names),
the hub's vocabulary (document titles and the short names before their colon), and a heuristic for
unknown acronyms / CamelCase names ("GRPO", "FlashAttention"). Follow-ups are rewritten against
the last turn: pronouns become that turn's entities, "what about X?" re-asks the last question
about X, and pure ellipsis gets the entities appended; "those"/"these"/"such", which point at
something the last turn described rather than named, also get the last question's own words.
"""

from __future__ import annotations

import re

from core.doc_versions import versioned_entities
from core.text import FRAME_WORDS, OPENING_WORDS, STOPWORDS, SURNAME, split_sentences, stem, strip_markers, words
from core.types import Turn
from core.brains.offline.glossary import with_english
from core.brains.offline.lexicon import entity, find_dimensions, find_entities, mention_pattern, mentions
from core.brains.offline.form import answer_form
from core.vocabulary import NAME, NOT_ENTITIES, VERSION_SUFFIX, Vocabulary

_ACRONYM = re.compile(r"(?<![\w-])([A-Z][a-z]*[A-Z][A-Za-z0-9\-]*|[A-Z]{2,}[a-z]?[0-9]*)(?![\w-])")
_SCALE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?([BbMm])(?![A-Za-z])")
_YEAR = re.compile(r"(?<!\d)((?:19|20)\d{2})(?!\d)")
_HARDWARE = re.compile(r"\b(?:a |one )?(single|one|two|\d+)\s+(?:\d+\s?GB\s+)?(GPU|GPUs|TPU|device)s?\b|单张\s*GPU|单卡", re.I)
_CJK_ASCII_EDGE = re.compile(r"(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])|(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9])")
_BITS = re.compile(r"\b(\d{1,2})[- ]?bit\b", re.I)


def _vocab_names(vocabulary: list[str]) -> list[str]:
    """Matchable names from hub vocabulary: whole short entries and the part before a colon."""
    names: list[str] = []
    for item in vocabulary:
        item = item.strip()
        if not item:
            continue
        head = item.split(":", 1)[0].strip()
        for cand in (head, item) if head != item else (item,):
            if 2 <= len(cand) <= 80 and cand not in names:
                names.append(cand)
    return names


_VERSION = VERSION_SUFFIX
_NAME = NAME  # names as papers write them (see core.vocabulary)
_TITLE_RUN = re.compile(r"(?<=[a-z0-9,;:(] )[A-Z][a-z]+(?: (?:[A-Z][A-Za-z0-9_-]*|[Vv]\d+))+" + _VERSION)
_COMMON = frozenset("I A The This That These Those What Which Who How When Where Why In On For And Or But".split())
# A request's opening verb is capitalized as the sentence's first word, not as part of a name
# ("Compare HERON and Kite" names HERON, not "Compare HERON").
_IMPERATIVE = frozenset("Compare Contrast Summarize Summarise Describe Explain List Give Tell Show Outline Name Discuss "
                        "Trace Define Relate Rank Find Identify Characterize Characterise Review".split())
# A part of a document named by its number ("Table 3", "Figure 2a", "Section 4.2", "Appendix B"):
# where in a paper to look, not a method or model that a chunk must name.
DOC_PART = re.compile(r"(?:tables?|fig(?:ure)?s?\.?|sections?|sec\.?|appendix|appendices|eq(?:uation)?s?\.?|"
                      r"algorithms?|chapters?|pages?|lines?|rows?|columns?|steps?|stages?|layers?|ranks?|levels?|"
                      r"rounds?|bits?|top)\s*-?\s*(?:\d+(?:\.\d+)*[a-z]?|[IVX]+|[A-H])", re.I)


# A paper cited by its authors, as papers cite one another: "Smith et al.", "Smith et al. (2020)",
# "Smith and Lee (2020)", "Smith & Lee's". A pair of surnames without a year or a possessive stays two
# words ("Wren and Lark" may be two methods). Group 1 is the first surname, 2 the second, 3 the year.
AUTHOR_CITE = re.compile(
    rf"(?<![\w'’-])({SURNAME})(?:\s+et\s+al\.?|\s+(?:and|&)\s+({SURNAME})(?=,?\s*\(?(?:19|20)\d{{2}}|['’]s\b))"
    r"(?:,?\s*\(?((?:19|20)\d{2})\)?)?")
_CITATION_LABEL = re.compile(rf"({SURNAME})(?: et al\.| and ({SURNAME}))(?: \(((?:19|20)\d{{2}})\))?")


def author_citation(name: str) -> tuple[list[str], int | None] | None:
    """(surnames, year) of a name slot filling labelled as an author citation ("Smith et al. (2020)"
    → (["Smith"], 2020), "Smith and Lee" → (["Smith", "Lee"], None)); None for any other name."""
    m = _CITATION_LABEL.fullmatch(name.strip())
    if m is None:
        return None
    return [g for g in m.group(1, 2) if g], int(m.group(3)) if m.group(3) else None


def _citation_spans(text: str) -> list[tuple[int, int, str]]:
    """Author citations as names, labelled in one form: "Smith et al.", "Smith and Lee (2020)"."""
    out = []
    for m in AUTHOR_CITE.finditer(text):
        if m.group(1) in _COMMON or m.group(1) in _IMPERATIVE:
            continue
        label = f"{m.group(1)} and {m.group(2)}" if m.group(2) else f"{m.group(1)} et al."
        out.append((m.start(), m.end(), f"{label} ({m.group(3)})" if m.group(3) else label))
    return out


def author_citations(text: str) -> list[str]:
    """The author citations in ``text`` as written ("Okafor et al.", "Okafor and Marsh (2024)"): each
    names a paper, as its title would, so its surnames and year are never words the question asks for."""
    return [text[start:end] for start, end, _ in _citation_spans(text)]


def _spans(text: str, vocab: Vocabulary, vocabulary: list[str] | None) -> list[tuple[int, int, str]]:
    """Candidate ``(start, end, label)`` spans: lexicon aliases, hub vocabulary, name shapes."""
    from core.brains.offline.lexicon import mention_pattern

    out: list[tuple[int, int, str]] = []
    for _, name in find_entities(text, vocab):
        out += [(m.start(), m.end(), name) for m in mention_pattern(name, vocab).finditer(text)]
    for name in _vocab_names(vocabulary or []):
        if entity(name, vocab) is not None:
            continue  # a term of the vocabulary: matched above, with its aliases and casing
        if len(name) > 3 or name.isupper() or any(c.isupper() for c in name[1:]):
            for m in re.finditer(rf"(?<![A-Za-z0-9]){re.escape(name)}(?![A-Za-z0-9])", text, re.I):
                out.append((m.start(), m.end(), name))
    for pat in (_NAME, _TITLE_RUN):
        for m in pat.finditer(text):
            word = m.group(0).strip()
            first, start = word.split()[0], m.start()
            opens = not text[:start].strip() or text[:start].rstrip()[-1] in ".?!:;"
            if " " in word and (first in _IMPERATIVE or (opens and first.lower() in OPENING_WORDS)):
                # keep the name after a sentence's opening verb or question word: "Compare HERON" and
                # "Does HERON" → "HERON" (a name that merely starts with such a word mid-sentence stays whole)
                rest = word[len(first) + 1:].strip()
                if _NAME.fullmatch(rest) or all(w[:1].isupper() or w[:1].isdigit() for w in rest.split()):
                    start, word = start + len(first) + 1, rest
                elif first in _IMPERATIVE:
                    continue
            head = word.split()[0].split("-")[0]
            if (word.upper() in NOT_ENTITIES or word.rstrip("s").upper() in NOT_ENTITIES or head in _COMMON
                    or _SCALE.fullmatch(word) or re.fullmatch(r"\d[\w.]*", word) or DOC_PART.fullmatch(word)):
                continue
            out.append((start, start + len(word), word))
    return out


# A capitalized word joined to a name by a coordinating word is a name too ("Donut and TrOCR",
# "LayoutLM 和 Donut"): the kind of text a comparison is written in, not any one question's wording.
_COORD = r"(?:\s+(?:and|or|vs\.?|versus)\s+|\s*(?:和|与|或|跟|及)\s*)"
_CAPWORD = r"[A-Z][A-Za-z0-9]+(?:[-.][A-Za-z0-9]+)*"


def _coordinated(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Spans of capitalized words coordinated with a name of ``spans`` on either side."""
    out: list[tuple[int, int, str]] = []
    for start, end, _ in spans:
        after = re.match(_COORD + f"({_CAPWORD})(?![A-Za-z0-9])", text[end:])
        before = re.search(f"(?<![A-Za-z0-9.-])({_CAPWORD})" + _COORD + "$", text[:start])
        for m, base in ((after, end), (before, 0)):
            if m is None:
                continue
            word = m.group(1)
            if word in _COMMON or word in _IMPERATIVE or word.upper() in NOT_ENTITIES or DOC_PART.fullmatch(word):
                continue
            out.append((base + m.start(1), base + m.end(1), word))
    return out


def _combined(text: str, spans: list[tuple[int, int, str]]) -> list[tuple[int, int, str]]:
    """Names joined by "+" with nothing between them, as one name: "PROTO+SIM+BOUND" is a system
    built of its parts, not three systems (and "BERT+CRF" is not BERT)."""
    ends = {}
    for start, end, _ in spans:
        ends.setdefault(start, []).append(end)
    out: list[tuple[int, int, str]] = []
    for start, end, _ in spans:
        if start > 0 and text[start - 1] == "+":
            continue  # a chain is built from its first name
        stop, grew = end, False
        while stop < len(text) and text[stop] == "+" and stop + 1 in ends:
            stop, grew = max(ends[stop + 1]), True
        if grew:
            out.append((start, stop, text[start:stop]))
    return out


def extract_entities(text: str, vocab: Vocabulary, vocabulary: list[str] | None = None, *,
                     citations: bool = False) -> list[str]:
    """Entity names mentioned in ``text``, in order of first mention.

    The longest candidate wins where candidates overlap ("Swin Transformer V2" over "Transformer"),
    and a lexicon alias is reported under its canonical name. With ``citations``, an author citation
    is a name too (:data:`AUTHOR_CITE`): a comparison's side, whose row needs its paper. Elsewhere it
    stays out, as a paper's text rarely names its own authors and an unmatched name lowers confidence.
    """
    spans = _spans(text, vocab, vocabulary) + (_citation_spans(text) if citations else [])
    spans += _coordinated(text, spans)
    spans += _combined(text, spans)
    kept: list[tuple[int, int, str]] = []
    for start, end, label in sorted(spans, key=lambda s: (-(s[1] - s[0]), s[0])):  # longest first, then leftmost
        if all(end <= a or start >= b for a, b, _ in kept):
            kept.append((start, end, label))
    ordered: list[str] = []
    for _, _, name in sorted(kept):
        if DOC_PART.fullmatch(name):
            continue  # a vocabulary term may be a label too: a place in a paper, never a name to require
        if name.lower() not in (o.lower() for o in ordered):
            ordered.append(name)
    return ordered


def extract_constraints(text: str) -> dict:
    out: dict = {}
    if m := _SCALE.search(text):
        out["model_size"] = f"{m.group(1)}{m.group(2).upper()}"
    years = [int(y) for y in _YEAR.findall(text)]
    if years:
        out["years"] = sorted(set(years))
    if m := _HARDWARE.search(text):
        out["hardware"] = "single GPU" if re.search(r"single|one|单", m.group(0), re.I) else m.group(0).strip()
    if m := _BITS.search(text):
        out["precision"] = f"{m.group(1)}-bit"
    return out


def entities_of_turn(turn: Turn, vocab: Vocabulary) -> list[str]:
    """The entities a previous turn was about: recorded ones, else those in its question/answer."""
    if turn.entities:
        return list(turn.entities)
    found = extract_entities(turn.question, vocab)
    if found:
        return found
    in_answer = extract_entities(turn.answer, vocab)
    named = [e for e in in_answer if _named_as_name(turn.answer, e, vocab)]
    return (named or in_answer)[:2]


def _named_as_name(text: str, name: str, vocab: Vocabulary) -> bool:
    """Whether ``text`` writes ``name`` as a name (DPO, LoRA), not as a common noun ("a reward model")."""
    from core.brains.offline.lexicon import mention_pattern

    return any(any(c.isupper() for c in m.group(0)) for m in mention_pattern(name, vocab).finditer(text))


def _join(names: list[str], conj: str = "and") -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + f" {conj} " + names[-1]


_LEAD = re.compile(r"^\s*(?:and|also|so|but|then|plus|ok(?:ay)?|那么|那|还有|另外)[\s,，]*", re.I)
_WHAT_ABOUT = re.compile(r"^\s*(?:and\s+)?(?:what|how)\s+about\s+(.+?)\s*[?？]?\s*$|^\s*(?:那|那么)?(.+?)呢\s*[?？]?\s*$", re.I)


def reformulate(question: str, history: list[Turn], vocab: Vocabulary,
                vocabulary: list[str] | None = None) -> tuple[str, list[str]]:
    """A self-contained rewrite of a follow-up and the entities it is about."""
    q = " ".join(question.split())
    if not history:
        return q, extract_entities(q, vocab, vocabulary)
    last = history[-1]
    prev = entities_of_turn(last, vocab)
    own = extract_entities(q, vocab, vocabulary)
    m = _WHAT_ABOUT.match(q)
    if m and own and prev:
        # "What about QLoRA?" — ask the previous question again, about the new entity.
        rewritten = last.question
        for old in prev:
            rewritten = _replace_mention(rewritten, old, _join(own), vocab)
        if rewritten != last.question:
            return rewritten, own
        subject = (m.group(1) or m.group(2) or "").strip()
        return f"{last.question.rstrip('?？ ')} — and {subject}?", own + prev
    if not prev:
        return _LEAD.sub("", q) or q, own
    written = [_as_written(e, last, vocab) for e in prev]  # "it" becomes the name the user read, not an acronym of it
    plural = _join(written, "and")
    choice = _join(written, "or")
    single = written[0] if len(written) == 1 else plural
    rules: list[tuple[str, str]] = [
        (r"\bwhich one\b|\bwhich of (?:them|the two|these|those)\b", f"which of {choice}"),
        (r"\b(?:the former)\b", written[0]),
        (r"\b(?:the latter)\b", written[-1]),
        (r"\bits\b", f"{single}'s" if len(prev) == 1 else f"{plural}'s"),
        (r"\b(?:they|them)\b", plural),
        (r"\btheir\b", f"{plural}'s"),
        (r"\bit\b", single),
        (r"\b(does|did|do|is|was|are|about|of|with|than|from|for|to|in)\s+(?:that|this)(?=\s|[?.!,]|$)", rf"\1 {single}"),
        (r"\b(?:that|this)(?=\s*[?.!]|\s*$)", single),
        (r"\b(?:that|this)(?=\s+(?:save|saves|use|uses|need|needs|require|requires|cost|costs|take|takes|work|works|achieve|achieves|improve|improves|reduce|reduces|mean|means|compare|compares|do|does)\b)", single),
        (r"它们|前者和后者", plural),
        (r"它|这个|那个", single),
    ]
    rewritten = _LEAD.sub("", q)
    replaced = 0
    for pattern, repl in rules:
        if pattern == r"\bits\b" and own:
            rewritten, n = _its_back(rewritten, repl, own, vocab)
        else:
            rewritten, n = re.subn(pattern, repl, rewritten, flags=re.I)
        replaced += n
    if not replaced and own:  # self-contained despite the history: as asked, without its leading "and"
        bare = _LEAD.sub("", q)
        return (bare[:1].upper() + bare[1:] if bare else q), own
    rewritten = rewritten[:1].upper() + rewritten[1:] if rewritten else q
    mentioned = [e for e in prev if mentions(rewritten, e, vocab)]
    # "those", "these", "such": a thing the last turn spoke of that is no name (its "backup tasks",
    # its "stragglers"); the names cannot stand in for it, so the last question's own words join them
    context = []
    if _UNNAMED_ANAPHOR.search(rewritten):
        # the thing pointed at was asked about, or is what the last answer said first
        said = _first_said(last.answer or "")
        context = _topic_words(last.question, prev, rewritten, vocab)
        context += [w for w in _topic_words(said, prev, rewritten, vocab) if w not in context and not w.isdigit()][:6]
    listed = "; ".join(p for p in ("" if mentioned else plural, ", ".join(context)) if p)
    if listed:
        tail = rewritten.rstrip("?？ ")
        rewritten = f"{tail} ({listed})?" if rewritten.rstrip().endswith(("?", "？")) else f"{tail} ({listed})"
    merged = [e for e in prev if e not in own] + own
    return rewritten, merged


def _its_back(text: str, repl: str, own: list[str], vocab: Vocabulary) -> tuple[str, int]:
    """``text`` with each "its" that points back to the last turn written as ``repl``, and how many did.
    An "its" after a name the question itself gives is that name's ("how does the Mamba paper evaluate
    its models?"), as a possessive takes the nearest name before it; only one with no such name before
    it points back."""
    first = min((m.start() for e in own if (m := mention_pattern(e, vocab).search(text))), default=len(text))
    head, n = re.subn(r"\bits\b", repl, text[:first], flags=re.I)
    return head + text[first:], n


# A demonstrative or "such" with no name after it points at something the last turn described.
_UNNAMED_ANAPHOR = re.compile(r"\b(?:those|these|such)\b|这些|那些", re.I)


def _first_said(answer: str) -> str:
    """The first sentence an answer states: its first prose line (not a heading, table row, label line or
    "no evidence" line), without its list marker, bold label or markers; "" when it states none."""
    from core.brains.offline.synthesis import NO_EVIDENCE_RE, UNCLAIMED_PREFIXES
    from core.brains.offline.text import unlabelled

    for line in answer.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", "|", *UNCLAIMED_PREFIXES)) or NO_EVIDENCE_RE.search(line):
            continue
        return (split_sentences(strip_markers(unlabelled(line, colon=False))) or [""])[0]
    return ""


def _topic_words(question: str, names: list[str], rewritten: str, vocab: Vocabulary) -> list[str]:
    """The last question's content words, as written, that neither name one of ``names`` nor are in
    ``rewritten`` already (a question's frame words and stop words are not its topic)."""
    for n in names:
        question = mention_pattern(n, vocab).sub(" ", question)
    have = {stem(w) for w in words(rewritten)}
    out: list[str] = []
    for w in words(question):
        low = w.lower()
        if low in STOPWORDS or low in FRAME_WORDS or stem(low) in have or low in out or not w.isascii():
            continue
        out.append(low)
    return out


def _as_written(name: str, turn: Turn, vocab: Vocabulary) -> str:
    """``name`` as the turn's question (else its answer) wrote it: the longest form it used, so a
    pronoun resolves to "Segment Anything", not to the "SA" that the vocabulary files it under."""
    from core.brains.offline.lexicon import mention_pattern

    for text in (turn.question, turn.answer):
        found = [m.group(0) for m in mention_pattern(name, vocab).finditer(text)]
        if found:
            return max(found, key=len)
    return name


def _replace_mention(text: str, name: str, repl: str, vocab: Vocabulary) -> str:
    from core.brains.offline.lexicon import mention_pattern

    return mention_pattern(name, vocab).sub(repl, text, count=1)


def fill(question: str, intent_type: str, history: list[Turn], vocabulary: list[str], vocab: Vocabulary) -> dict:
    """Slots for a question as a plain dict (the brain wraps it in ``SlotFillingOutput``). ``vocab``: the
    collection's terms (matched with their aliases); ``vocabulary``: the names the hub lists."""
    q = " ".join(question.split())
    dims = find_dimensions(q)
    constraints = extract_constraints(q)
    if intent_type == "follow_up" and history:
        query, ents = reformulate(q, history, vocab, vocabulary)
    else:
        query, ents = q, extract_entities(q, vocab, vocabulary, citations=intent_type == "comparative")
    ents = versioned_entities(q) or ents  # "version 1 and 2 of X": X scoped to each version
    query = answer_form(query)[0]  # "in two sentences" shapes the answer; it is not searched for
    query = _CJK_ASCII_EDGE.sub(" ", query)  # "YOLOS只在…" → "YOLOS 只在…": a search tokenizer splits there
    return {"entities": ents, "dimensions": dims, "constraints": constraints, "reformulated_query": with_english(query)}
