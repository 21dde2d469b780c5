"""The vocabulary of what is indexed: names of methods, models and papers, taken from the documents.

The hub builds a :class:`Vocabulary` for a collection from its documents' titles, headings and body
text, and rebuilds it when the collection's revision changes. The offline brain matches questions and
evidence against the vocabulary a turn passes it explicitly, so a user's own papers define which
names it knows. Nothing here is tied to a particular corpus.

A term comes from one of:
- a document title: its head before the colon ("ReAct: Synergizing …" → ReAct) or a short title;
- an acronym defined in the text: "Low-Rank Adaptation (LoRA)" gives LoRA with that long form as alias;
- a heading phrase that the body text repeats ("Double Quantization");
- a name-shaped token (acronym, CamelCase, letters with digits) seen in two chunks or more;
- a work the text cites by its two authors with a year ("Smith and Eisner (2005)"): one name, of kind
  "citation".

A name a paper introduces as its own contribution is tied to that paper (``Term.paper``), so "What is
ReVerb about?" is a question about the paper titled "Identifying Relations for Open Information
Extraction" even though neither its title nor its file name says ReVerb (see :func:`_own_names`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from collections.abc import Iterable

from core.text import AUTHOR_PAIR, GENERIC_HEADINGS, LONG_FORM_STOPWORDS, LOWER_LEAD_WORDS, NAME, VERSION_SUFFIX  # noqa: F401 (re-exported)
from core.text import split_sentences

# Acronyms and units that name no method.
NOT_ENTITIES = frozenset(
    "GPU GPUS CPU TPU TPUS API APIS LLM LLMS NLP AI ML RL GB MB TB FP16 BF16 FP32 INT8 INT4 VRAM SOTA "
    "PDF URL HTTP MCP JSON TUI CLI OK USA FAQ QA IID OOD FLOPS FLOP PFLOPS MIT".split()
)
GENERIC_PHRASE_DOCS = 4  # a long form in this many documents may be a common phrase (see _common_phrase)
_DEFINED = re.compile(r"((?:[A-Za-z][\w'-]*[ -]){1,6}[A-Za-z][\w'-]*)\s*\(([A-Z][A-Za-z0-9-]*[A-Z][A-Za-z0-9-]*)\)")
_PROPER = re.compile(r"(?<![\w-])[a-z][a-z0-9-]*[,;]? ([A-Z][a-z]{3,})(?![\w-])(?! [A-Z])")
_CAPITAL_BEFORE = re.compile(r"[A-Z][\w-]* $")
# A contribution statement: "we introduce / present / propose / implement … X", "a model called X". The
# verb follows "we" directly (an adverb aside), so "the design of VLMs" is no statement.
_CONTRIBUTION = re.compile(
    r"\b[Ww]e\s+(?:(?:also|further|then|first|here|now|thus|therefore|\w+ly)\s+)?"
    r"(?:introduce|present|propose|implement|develop|describe|build|built|design|release|call|name|dub)[a-z]*\b"
    r"(?!\s+(?:on|upon|to|results|with)\b)"  # "we build on X", "we propose to use X", "we present results on X"
    r"|(?<![\w-])(?:called|named|dubbed|coined)(?=\s+\S+)", )  # "a system called X", not "so-called X"
# Between the statement's verb and the introduced name: words that make the name something the paper uses,
# beats or builds on ("a method that beats BERT", "a variant of BERT", "trained with X"), not what it introduces.
_NOT_INTRODUCED = re.compile(r"\b(?:than|beats?|outperform\w*|over|against|of|on|upon|using|uses?|with|without|"
                             r"from|to|like|unlike|such as|instead|rather|except|compared|versus|vs)\b", re.I)
_SHORT_FORM = re.compile(r"\s*\(([^()\s]{2,20})\)")  # a name's short form right after it: "… Learning (M3I)"
OPENING_CHARS = 1500  # a paper's opening (its abstract) where its own names are introduced
OWN_OBJECT_WORDS = 8  # the introduced name is among this many words after the statement's verb
OWN_USE_PER_CHUNK = 1 / 8  # a paper uses its own name throughout: at least once per this many chunks


@dataclass(frozen=True)
class Term:
    """One name the collection uses, with what the brain needs to match and order it."""

    name: str
    aliases: tuple[str, ...] = ()
    year: int = 0
    related: tuple[str, ...] = ()
    case_sensitive: tuple[str, ...] = ()  # forms matched only as written ("ReAct", not "react")
    kind: str = "method"  # "paper" when the term names a document, "citation" for a work cited by its authors
    paper: str = ""  # the title of the paper that introduces this name as its own (see _own_names)

    def to_dict(self) -> dict:
        return {"name": self.name, "aliases": list(self.aliases), "year": self.year, "related": list(self.related),
                "case_sensitive": list(self.case_sensitive), "kind": self.kind, "paper": self.paper}

    @classmethod
    def from_dict(cls, d: dict) -> Term:
        tup = lambda k: tuple(str(x) for x in d.get(k) or ())  # noqa: E731
        return cls(str(d["name"]), tup("aliases"), int(d.get("year") or 0), tup("related"), tup("case_sensitive"),
                   str(d.get("kind") or "method"), str(d.get("paper") or ""))


@dataclass(frozen=True)
class Vocabulary:
    revision: int | None = None
    terms: tuple[Term, ...] = ()
    _by_name: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name.update({t.name.lower(): t for t in self.terms})

    def get(self, name: str) -> Term | None:
        return self._by_name.get(name.lower())

    def names(self) -> list[str]:
        return [t.name for t in self.terms]

    def to_dict(self) -> dict:
        return {"revision": self.revision, "terms": [t.to_dict() for t in self.terms]}

    @classmethod
    def from_dict(cls, d: dict) -> Vocabulary:
        terms = tuple(Term.from_dict(t) for t in d.get("terms") or () if isinstance(t, dict) and t.get("name"))
        return cls(d.get("revision"), terms)

    @classmethod
    def from_titles(cls, titles: Iterable[str], revision: int | None = None) -> Vocabulary:
        """A vocabulary of document titles only (for hubs that cannot describe their vocabulary)."""
        return build([DocumentText(title=t) for t in titles if t], revision)


@dataclass
class DocumentText:
    title: str
    year: int = 0
    headings: list[str] = field(default_factory=list)
    chunks: list[str] = field(default_factory=list)


def title_head(title: str) -> str:
    """The short name a title leads with: "ReAct: Synergizing …" → "ReAct"; a short title as is."""
    head = title.split(":", 1)[0].strip() if ":" in title else title.strip()
    return head if 1 <= len(head.split()) <= 4 and len(head) <= 40 else ""


def _initials_match(long: str, acronym: str) -> bool:
    """Whether ``long`` spells ``acronym``: its words' initials in order among the acronym's letters,
    the first ones equal, and every acronym letter in order among the long form's letters."""
    words = [w for w in re.split(r"[\s-]+", long) if w and w.lower() not in LONG_FORM_STOPWORDS]
    letters = [c.lower() for c in acronym if c.isalpha()]
    if not words or not letters or words[0][0].lower() != letters[0] or len(words) > len(letters) + 1:
        return False

    def in_order(needles: list[str], hay: str) -> bool:
        pos = 0
        for c in needles:
            pos = hay.find(c, pos)
            if pos < 0:
                return False
            pos += 1
        return True

    return in_order([w[0].lower() for w in words], "".join(letters)) and in_order(letters, "".join(words).lower())


def definitions(text: str) -> list[tuple[str, str]]:
    """``(acronym, long form)`` pairs defined as "Long Form (ACR)" in ``text``."""
    out = []
    for m in _DEFINED.finditer(text):
        words, acr = m.group(1).split(), m.group(2)
        for start in range(len(words)):  # the shortest tail of the phrase whose initials spell the acronym
            long = " ".join(words[start:])
            if words[start].lower() in LONG_FORM_STOPWORDS:
                continue
            if _initials_match(long, acr) and len(long.split()) <= len(acr) + 1:
                out.append((acr, long))
                break
    return out


def _spelled_by_subtitle(title: str, head: str) -> str:
    """"LoRA: Low-Rank Adaptation of Large Language Models" → "Low-Rank Adaptation" (when it spells the head)."""
    if ":" not in title or " " in head:
        return ""
    sub = re.split(r"\s+(?:of|for|in|on|with|via|by|from|to)\s+|[,;]", title.split(":", 1)[1].strip())[0]
    return sub if _initials_match(sub, head) else ""


def _name_ok(word: str) -> bool:
    first = word.split()[0].split("-")[0]
    if first.lower() in LOWER_LEAD_WORDS or (word.islower() and not any(c.isdigit() for c in word.split()[0])):
        return False
    if re.fullmatch(r"[Vv]\d+(?:\.\d+)?", word):  # a version on its own
        return False
    return not (word.upper() in NOT_ENTITIES or word.rstrip("s").upper() in NOT_ENTITIES
                or re.fullmatch(r"\d[\w.]*|(?:top|layer|step|rank|level|stage|round|bit)s?-?\d+", word, re.I))


def build(documents: Iterable[DocumentText], revision: int | None = None, *, own_names: bool = True) -> Vocabulary:
    """The vocabulary of ``documents`` (deterministic: same documents, same terms in the same order).
    ``own_names``: tie each name a paper introduces to that paper; it needs each document's chunks whole
    and in reading order (search hits harvested from another hub are neither)."""
    docs = list(documents)
    found: dict[str, dict] = {}  # lower name → {"name", "aliases", "year", "kind", "chunks"}
    shape_chunks: Counter = Counter()  # occurrences of name-shaped words
    casing: dict[str, Counter] = defaultdict(Counter)
    lower_words: Counter = Counter()
    proper: Counter = Counter()  # capitalised words mid-sentence ("the Transformer uses"), by chunk
    cited: dict[str, int] = {}  # works cited by two authors ("Smith and Eisner (2005)") → year

    def add(name: str, *, alias: str = "", year: int = 0, paper: bool = False) -> dict:
        entry = found.setdefault(name.lower(), {"name": name, "aliases": [], "year": 0, "kind": "method"})
        if alias and alias.lower() != name.lower() and alias not in entry["aliases"]:
            entry["aliases"].append(alias)
        named_paper = entry["kind"] == "paper"
        if year and (paper or (not named_paper and (not entry["year"] or year < entry["year"]))):
            entry["year"] = year  # a paper's own year; otherwise the earliest document defining it
        if paper:
            entry["kind"] = "paper"
        return entry

    common = _common_phrase(docs)
    for doc in docs:
        head = title_head(doc.title)
        if not head and 1 < len(doc.title.split()) <= 8:
            add(doc.title.strip(), year=doc.year, paper=True)  # "Attention Is All You Need"
        elif head and _name_ok(head):
            add(head, alias=doc.title.strip() if doc.title.strip() != head else "", year=doc.year, paper=True)
            if long := _spelled_by_subtitle(doc.title, head):
                add(head, alias=long)
        texts = [doc.title, *doc.headings, *doc.chunks]
        for text in texts:
            for acr, long in definitions(text):
                if _name_ok(acr):  # first defined in the earliest document
                    add(acr, alias="" if common(long, acr) else long, year=doc.year)
        for chunk in {c for c in (doc.title, *doc.chunks)}:
            lower_words.update(re.findall(r"(?<![A-Za-z])[a-z][a-z-]+(?![A-Za-z])", chunk))
            proper.update(set(_PROPER.findall(chunk)))
            for m in AUTHOR_PAIR.finditer(chunk):
                cited.setdefault(f"{m.group(1)} and {m.group(2)}", int(m.group(3)))
            for m in NAME.finditer(chunk):
                word = m.group(0)
                if " " in word and _CAPITAL_BEFORE.search(chunk, max(0, m.start() - 20), m.start()):
                    continue  # "Hugging Face PEFT": the tail of a longer name, not "Face PEFT"
                if _name_ok(word):
                    shape_chunks[word.lower()] += 1
                    casing[word.lower()][word] += 1
    body = "\n".join(c for d in docs for c in d.chunks).lower()
    for doc in docs:
        for heading in doc.headings:
            phrase = heading.strip().strip("#").strip()
            if (phrase.lower() not in GENERIC_HEADINGS and 1 < len(phrase.split()) <= 4 and phrase[:1].isupper()
                    and not set(re.split(r"[\s-]+", phrase.lower())) & LONG_FORM_STOPWORDS and "(" not in phrase
                    and body.count(phrase.lower()) >= 2):
                add(phrase)
    for low, n in shape_chunks.items():
        word = casing[low].most_common(1)[0][0]
        compound = re.fullmatch(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+", word) and low in lower_words  # "Low-Rank"
        if low not in found and not compound and n >= (3 if len(word) <= 2 else 2):
            if low.endswith("s") and low[:-1] in shape_chunks and shape_chunks[low[:-1]] >= 2:
                continue  # "ViTs" is ViT's plural
            add(word)
    for word, n in proper.items():
        if n >= 3 and word.lower() not in found and lower_words[word.lower()] < n and word.lower() not in LOWER_LEAD_WORDS:
            add(word)
    for pair, year in cited.items():
        parts = pair.split(" and ")
        if pair.lower() in found or any(found.get(p.lower(), {}).get("kind") == "paper" for p in parts):
            continue  # "Kestrel and Osprey (2022)" names two papers of the collection, not one work
        # one name: "Smith and Eisner" is one cited work, not two systems ("Och & Ney" its other form)
        add(pair, alias=" & ".join(parts), year=year)["kind"] = "citation"
    _merge_spelled_papers(found)
    _merge_identifiers(found)
    _merge_hyphenated(found, shape_chunks)
    related = _related(docs, found)
    owners = _own_names(docs, found, lower_words) if own_names else {}
    terms = []
    for low, e in found.items():
        name = e["name"]
        sensitive = tuple(f for f in (name,) if any(c.isupper() for c in f) and f.lower() in lower_words)
        paper = docs[owners[low]] if low in owners else None
        year = paper.year if paper and paper.year else e["year"]
        terms.append(Term(name, tuple(e["aliases"]), year, tuple(related.get(low, ())), sensitive, e["kind"],
                          paper.title.strip() if paper else ""))
    terms.sort(key=lambda t: (t.kind != "paper", t.name.lower()))
    return Vocabulary(revision, tuple(terms))


def _own_names(docs: list[DocumentText], found: dict[str, dict], ordinary: Counter) -> dict[str, int]:
    """Lower name → index of the document that introduces the name as its own: the first name of the
    collection after a contribution statement in the opening of exactly one document ("We implemented
    the constraints in the REVERB Open IE system"; "We introduce Longformer, … from RoBERTa" introduces
    Longformer, the paper's own title name, so RoBERTa is not tied to it), with no word between them that
    makes it a name the paper uses or beats (:data:`_NOT_INTRODUCED`). It must be a method name (not a
    paper's or a citation's) that the document uses at least twice, at least once per
    :data:`OWN_USE_PER_CHUNK` of its chunks, and at least twice as often as all other documents together:
    a task named in passing ("an approach to RE", four times in a long paper) and a system a paper builds
    on (used by the others too) are no paper's own. A name that is also an ordinary word (``ordinary``:
    lower-case counts; "ReAct" and "react") is matched only as written."""
    every = sorted(found, key=len, reverse=True)
    if not docs or not any(e["kind"] == "method" for e in found.values()):
        return {}
    names = _names_pattern([found[low]["name"] for low in every], ordinary)
    claimed: dict[str, set[int]] = defaultdict(set)
    for i, doc in enumerate(docs):
        for sentence in split_sentences("\n".join(doc.chunks)[:OPENING_CHARS]):
            for stated in _CONTRIBUTION.finditer(sentence):
                after = " ".join(sentence[stated.end():].split()[:OWN_OBJECT_WORDS])
                first = names.search(after)
                if first is None or _NOT_INTRODUCED.search(after[:first.start()]):
                    continue
                low = first.group(0).lower()
                short = _SHORT_FORM.match(after, first.end())
                if short and found.get(low, {}).get("kind") == "paper" and short.group(1).lower() in found:
                    low = short.group(1).lower()  # "… the Maximum Margin Multi-Instance Learning (M3I) approach"
                if low in found and found[low]["kind"] == "method":
                    claimed[low].add(i)
                break  # the statement's first name, whatever it is
    claimed = {low: who for low, who in claimed.items() if len(who) == 1}
    if not claimed:
        return {}
    mine = _names_pattern([found[low]["name"] for low in sorted(claimed, key=len, reverse=True)], ordinary)
    uses: dict[str, Counter] = defaultdict(Counter)
    for i, doc in enumerate(docs):
        for m in mine.finditer("\n".join(doc.chunks)):
            uses[m.group(0).lower()][i] += 1
    out = {}
    for low, who in claimed.items():
        i = next(iter(who))
        own, others = uses[low][i], sum(n for j, n in uses[low].items() if j != i)
        if own >= 2 and own >= OWN_USE_PER_CHUNK * len(docs[i].chunks) and own >= 2 * others:
            out[low] = i
    return out


def _names_pattern(names: list[str], ordinary: Counter) -> re.Pattern:
    """One pattern for ``names`` (longest first) as whole words: case-blind, except a name that is also an
    ordinary lower-case word, which matches only as written."""
    parts = [rf"(?<![\w-]){re.escape(n)}(?![\w-])" if n.lower() in ordinary
             else rf"(?<![\w-])(?i:{re.escape(n)})(?![\w-])" for n in names]
    return re.compile("|".join(parts))


def _common_phrase(docs: list[DocumentText]):
    """``common(long, acronym)``: whether the collection uses ``long`` as a common phrase rather than as
    the acronym's name: in GENERIC_PHRASE_DOCS documents or more, fewer than a third of which use the
    acronym. One paper's "Language Model (LM)" must not make every question about language models
    a question about that paper; "Low-Rank Adaptation (LoRA)" stays LoRA's alias."""
    texts = ["\n".join([d.title, *d.headings, *d.chunks]) for d in docs]
    lowered = [t.lower() for t in texts]
    seen: dict[tuple[str, str], bool] = {}

    def common(long: str, acronym: str) -> bool:
        key = (long.lower(), acronym)
        if key not in seen:
            using = [i for i, t in enumerate(lowered) if key[0] in t]
            pattern = re.compile(rf"(?<![A-Za-z0-9]){re.escape(acronym)}(?![a-z])")
            seen[key] = len(using) >= GENERIC_PHRASE_DOCS and \
                3 * sum(1 for i in using if pattern.search(texts[i])) < len(using)
        return seen[key]

    return common


def _merge_spelled_papers(found: dict[str, dict]) -> None:
    """A paper titled by its long form ("Direct Preference Optimization: …") joins its acronym (DPO)."""
    for low, entry in list(found.items()):
        if entry["kind"] != "paper" or " " not in entry["name"]:
            continue
        for other in found.values():
            if other is not entry and entry["name"].lower() in (a.lower() for a in other["aliases"]):
                other["aliases"] += [a for a in [entry["name"], *entry["aliases"]] if a not in other["aliases"]]
                other["year"], other["kind"] = entry["year"], "paper"
                del found[low]
                break


def _merge_identifiers(found: dict[str, dict]) -> None:
    """An identifier built on a name ("LoraConfig" on LoRA) is a mention of that name, not a rival."""
    names = sorted((e["name"] for e in found.values() if len(e["name"]) >= 3), key=len, reverse=True)
    for low, entry in list(found.items()):
        word = entry["name"]
        if entry["kind"] == "paper" or " " in word:
            continue
        for name in names:
            rest = word[len(name):]
            if len(rest) >= 3 and word.lower().startswith(name.lower()) and rest[0].isupper() and rest[1:].islower():
                base = found[name.lower()]
                base["aliases"].append(word)
                del found[low]
                break


def _merge_hyphenated(found: dict[str, dict], seen: Counter) -> None:
    """Spellings of one name that differ only by hyphens ("TrustRank", and "Trust-Rank" where a PDF's line
    break kept the hyphen) are one term: a paper's own name first, else the spelling ``seen`` more often,
    with the others as its aliases (and its year where the kept one has none). Two papers' names stay
    two terms ("X-Net" and "XNet" may be two papers)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for low in found:
        groups[low.replace("-", "")].append(low)
    for lows in groups.values():
        if len(lows) < 2 or sum(found[k]["kind"] == "paper" for k in lows) > 1:
            continue
        keep = min(lows, key=lambda k: (found[k]["kind"] != "paper", -seen.get(k, 0), "-" in k, k))
        for low in lows:
            if low != keep:
                gone = found.pop(low)
                found[keep]["year"] = found[keep]["year"] or gone["year"]
                for alias in [gone["name"], *gone["aliases"]]:
                    if alias.lower() != keep and alias not in found[keep]["aliases"]:
                        found[keep]["aliases"].append(alias)


def _related(docs: list[DocumentText], found: dict[str, dict]) -> dict[str, list[str]]:
    """For each term, the terms most often named in the same chunks (at most three)."""
    if not found:
        return {}
    names = sorted((e["name"] for e in found.values()), key=len, reverse=True)
    any_name = re.compile("|".join(rf"(?<![A-Za-z0-9]){re.escape(n)}(?![A-Za-z0-9])" for n in names), re.I)
    together: dict[str, Counter] = defaultdict(Counter)
    for doc in docs:
        for chunk in doc.chunks:
            here = {m.group(0).lower() for m in any_name.finditer(chunk)} & found.keys()
            for a in here:
                for b in here - {a}:
                    together[a][b] += 1
    return {a: [found[b]["name"] for b, _ in sorted(c.items(), key=lambda x: (-x[1], x[0]))[:3]]
            for a, c in together.items()}
