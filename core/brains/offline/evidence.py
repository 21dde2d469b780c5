"""What the question asks for and which retrieved sentences speak to it — judged lexically.

Relevance is decided from words, never from the server's scores (foreign MCP servers use other
scales). A context is relevant when it names one of the question's entities or, for questions
without entities, shares at least half (and at least two, when there are two) of its key terms.
The same test decides "the knowledge base holds no evidence" in synthesis and in the critic.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from core.brains.offline.lexicon import dimension_hits, entity, find_entities, mentions
from core.brains.offline.quantities import MEASURES, measures  # noqa: F401  (read from here by other modules)
from core.brains.offline.slots import author_citations, extract_entities
from core.brains.offline.text import (content_terms, content_words, covered, has_cjk, passage_sentences, strip_question_form, table_label,
                                      term_set)
from core.citations import publication_of
from core.memory.hygiene import is_instruction_like
from core.types import Intent, RetrievedContext
from core.vocabulary import Vocabulary
from core.doc_versions import split


# A question about the library itself ("What papers do I have?", "Give me an overview of the collection",
# "这个知识库里有哪些论文？"): it names the user's collection or its papers (a determiner ties the noun to
# them: "my library", "this collection", "the papers", "papers here", "do I have"), and asks nothing
# beyond the words of such a question. A paper's own corpus, index or documents ("Which corpus does the
# paper use?", "How many documents did they index?"), a definition ("What is a knowledge base?"), where,
# how or when ("Where are the papers stored?") and which of something has the most papers are not the
# library. It is answered by the collection's list of papers, not by a search.
_LIBRARY_NOUN = re.compile(r"\b(?:collection|library|knowledge base|papers?|documents|docs|articles)\b"
                           r"|论文|文献|文档|知识库|文库|资料库", re.I)
_NOUNS = r"(?:collection|library|knowledge base|papers|documents|docs|articles)"
# ties that own the papers, whatever came before ("my papers", "the library", "do I have")
_LIBRARY_OWN = re.compile(
    rf"\b(?:my|our|your)\s+(?:\w+\s+)?{_NOUNS}\b|\b(?:this|the|all)\s+(?:collection|library|knowledge base)\b"
    r"|\b(?:do|have|did)\s+(?:i|we|you)\b|\b(?:i|we|you) have\b", re.I)
# ties that may point back at an answer instead ("the papers", "all papers", "papers here"): a first
# question only ("these papers", "the other papers" always point back)
_LIBRARY_TIE = re.compile(
    rf"{_LIBRARY_OWN.pattern}|\b(?:the|all)\s+(?!(?:most|fewest|least|same|other|first|last)\b)(?:\w+\s+)?{_NOUNS}\b"
    r"|\b(?:papers|documents|docs|articles)\b[^?]*\b(?:here|available)\b", re.I)
_NOT_A_LISTING = re.compile(r"^\s*(?:where|when|why|how(?!\s+(?:many|much)\b))\b", re.I)
_LIBRARY_WORDS = frozenset(content_terms(
    "collection library knowledge base paper papers document documents doc docs article articles file files "
    "have has hold holds contain contains include includes list available here there "
    "all every overview summary summarize summarise "
    "oldest earliest older newest latest newer recent chronological chronologically year years order ordered sort sorted"))
# the order a library question asks its papers in: by year, oldest or newest first (the first named:
# "from oldest to newest")
_OLDEST = re.compile(r"\b(?:oldest|earliest|older|chronologic\w*|by (?:publication )?year|in order of (?:publication|year))\b"
                     r"|最早|最老|最旧|按年份|按时间|按年代", re.I)
_NEWEST = re.compile(r"\b(?:newest|latest|newer|most recent|recent)\b|最新|最近", re.I)
# the Chinese form, read as words: what remains once these are out must be nothing, and the question
# must name the user's library (这个/我的 知识库 …) or ask which or how many papers (哪些论文, 几篇论文,
# 所有论文, 我的论文); "X 是什么" asks a definition, and "论文中 …" asks what is inside the papers
_LIBRARY_ZH_WORDS = re.compile(
    r"请|你|列出|列举|概述|总结|概括|介绍|说说|看看|一下|我的|我|这个|当前|本|知识库|文库|资料库|集合|库|里面|里|中的|中|内|都|"
    r"一共|总共|有|包含|收录|存了|哪些|什么|几篇|多少篇|多少|所有|全部|的|论文|文献|文档|是|关于|讲了|讲|呢|吗|些|篇|"
    r"哪篇|最早|最老|最旧|最新|最近|按年份|按时间|按年代|排列|排序|列出来|一篇")
_LIBRARY_ZH_NAMES = re.compile(r"(?:这个|我的|当前|本)?(?:知识库|文库|资料库)|(?:这个|我的|当前|本)(?:集合|库)|库(?:里|中|内)"
                               r"|(?:哪些|哪篇|几篇|多少篇|多少|所有|全部|我的?)[^？?]*(?:论文|文献|文档)"
                               r"|(?:论文|文献|文档)[^？?]*(?:哪些|几篇|多少篇|多少)")
_LIBRARY_ZH_OWN = re.compile(r"知识库|文库|资料库|(?:这个|我的|当前|本)(?:集合|库)|库(?:里|中|内)|我的?")
_NOT_A_LISTING_ZH = re.compile(r"(?:论文|文献|文档)(?:中|里)|^[^有]*是什么")


def library_order(question: str) -> str:
    """The order a library question asks its papers in: "oldest" first, "newest" first, or "" (by title);
    when both are named, the first ("from oldest to newest")."""
    old, new = _OLDEST.search(question), _NEWEST.search(question)
    if old and new:
        return "oldest" if old.start() < new.start() else "newest"
    return "oldest" if old else "newest" if new else ""


def library_form(question: str) -> bool:
    """Whether a question names the library or its papers at all: a cheap test before its profile."""
    return bool(_LIBRARY_NOUN.search(question))


def library_owned(question: str) -> bool:
    """Whether a library question ties its papers to the user's library by a tie that cannot point back
    at an earlier answer ("my papers", "the collection", "do I have", 知识库): a follow-up's "the papers"
    or "these papers" are that answer's."""
    return bool((_LIBRARY_ZH_OWN if has_cjk(question) else _LIBRARY_OWN).search(question))


def _library_question(question: str, key: list[str], ents: list[str], vocab: Vocabulary) -> bool:
    """Whether a question asks what the library holds (see :data:`_LIBRARY_WORDS`): it names the
    collection or its papers, no paper or method, and nothing beyond the words of such a question."""
    if ents or not library_form(question) or main_clause(question):
        return False
    if has_cjk(question):
        bare = re.sub(r"[\s？?。.!！,，、]", "", question)
        return (not _LIBRARY_ZH_WORDS.sub("", bare) and bool(_LIBRARY_ZH_NAMES.search(bare))
                and not _NOT_A_LISTING_ZH.search(bare))
    return (bool(_LIBRARY_TIE.search(question)) and not _NOT_A_LISTING.search(question)
            and not _asks_beyond(key, ents, vocab, _LIBRARY_WORDS))


@dataclass
class Profile:
    """What a question is about: entities, dimensions, key terms (stemmed, frame words dropped), and the
    vocabulary of the collection it is asked over (names are matched with their aliases from it)."""

    question: str
    entities: list[str]
    dimensions: list[str]
    key_terms: list[str]
    numeric: bool = False  # asks for a number ("how much", "what rank", "how many")
    definitional: bool = False  # asks what something is
    broad: bool = False  # an exploratory question: any chunk on part of its subject may serve
    boost: set[str] = field(default_factory=set)  # terms the critic asked for (reflections)
    collection_wide: bool = False  # about the papers of the collection ("the models here"), not one method
    weights: dict[str, float] = field(default_factory=dict)  # key-term weights (rarer in the evidence = higher)
    main_terms: list[str] = field(default_factory=list)  # key terms of the main clause, when a second question trails it
    # what the reader (an English cross-encoder) reads: the slot filler's rewrite where the typed
    # question cannot be read on its own (a follow-up's "it"; a Chinese question, whose rewrite carries
    # the English names), else the question as typed (a rewrite without "in two sentences" reads worse)
    query: str = ""
    vocab: Vocabulary = field(default_factory=Vocabulary, repr=False, compare=False)
    bibliographic: bool = False  # asks where or when a paper was published, or who wrote it
    publication_only: bool = False  # ... and nothing else beyond the papers' names
    whole_paper: bool = False  # about one named paper as a whole (its idea, its problem): its abstract answers
    mechanism: bool = False  # how one named paper's method works (whole-paper): its abstract from its own work on
    library: bool = False  # about the library itself (what papers it holds): its list of papers answers
    key_words: list[str] = field(default_factory=list)  # the key terms' words as written (what a search shows)


# A second question joined to the first: "…, and what does each contribute?" asks more of the
# same subject; the main clause alone says which chunks are on topic.
TRAILING_QUESTION = re.compile(r"[,;]\s+(?:and|but|or|also)\s+(?=(?:what|how|why|which|who|where|when|does|do|did|is|are|"
                                r"was|were|can|could|should|in what|to what)\b)", re.I)


def main_clause(question: str) -> str:
    """The question's first clause when a second question trails it, else ""."""
    parts = TRAILING_QUESTION.split(question, maxsplit=1)
    return parts[0] if len(parts) == 2 and parts[0].strip() else ""


# A question about a paper's publication (where or when it appeared, who wrote it): a kind of question
# its document's metadata answers, which its text seldom states. Only question forms count: a bare
# "published", "journal" or 作者 ("the authors propose …") is as often about the content.
_BIBLIOGRAPHIC = re.compile(
    r"\b(?:where|when|in (?:which|what) year|(?:which|what) year)\b[^?？]*?\b(?:published|appeared|come out|came out)\b"
    r"|\b(?:in |at )?(?:which|what) (?:venues?|conferences?|journals?|proceedings)\b(?! (?:papers?|articles?|talks?|data))"
    r"|\bwho (?:wrote|authored|are the authors of|were the authors of)\b|\b(?:publication|publishing) (?:venue|year|date)\b"
    r"|发表在|发表于|哪个会议|哪个期刊|哪届会议|作者是谁|谁写的|哪一年发表|什么时候发表", re.I)
# the words such a question is made of: one that asks nothing else is answered by the metadata alone
_PUBLICATION_WORDS = frozenset(content_terms(
    "venue venues conference journal proceedings published publish publication appeared appear year wrote written "
    "write authored author authors paper papers come came out publishing date when where which who"))

# the words a question about a paper as a whole is made of ("What is X about?", "the main idea of X",
# "what does X propose?", "summarize X", "what problem does X solve?"): one that asks nothing else, in the
# form of :data:`_GIST_FORM`, is answered by its paper's abstract
_GIST_WORDS = frozenset(content_terms(
    "about idea ideas gist contribution contributions contribute contributes central core purpose goal goals aim aims "
    "motivation novelty propose proposes paper article summary summarize summarise overview tldr"))
# "problem" is a paper's gist only as the one it solves ("what problems does X have?" asks its limits)
_SOLVED = frozenset(content_terms("problem problems")), frozenset(content_terms("solve solves address addresses tackle tackles"))
# a gist question asks "what" or bids ("Summarize X", "Tell me about X"); "how does X work?", "who proposed
# X?", "when was X proposed?" and a yes/no question ask something else, and a negation asks what it lacks
# a request's polite opening ("Could you please …", "Briefly, …"), and a question that holds a negation
_ASKING = r"(?:can|could|would) you (?:please )?|please,? |briefly,? "
_NEGATED = r".*\b(?:not|never|fails?)\b|.*n't\b"
_GIST_FORM = re.compile(rf"^\s*(?:{_ASKING}|in short,? |in brief,? )?"
                        r"(?:what|summari[sz]e|describe|explain|tell me|give (?:me )?(?:an? )?(?:overview|summary|gist)|"
                        rf"in (?:a|one|two|three) (?:sentences?|words?|lines?),?\s*what)\b(?!{_NEGATED})",
                        re.I)
# a question about the paper a turn is scoped to, which it names by no name ("What is this paper about?")
_THIS_PAPER = re.compile(r"\b(?:this|the) (?:paper|article|work)\b", re.I)
# "How does X work?", "Explain how X works": how one named paper's method works, which its abstract says
# from where the paper speaks of its own work; nothing else may be asked ("How does X work on ice?")
_MECHANISM_FORM = re.compile(rf"^\s*(?:{_ASKING})?(?!{_NEGATED})"
                             r"(?:how (?:does|do|did)\b.*\bwork|(?:explain|describe|tell me) how\b.*\bworks?)\s*[?.!]*\s*$",
                             re.I)
_MECHANISM_WORDS = frozenset(content_terms("how work works explain describe tell"))
# the Chinese forms, once the names are out: "X 是如何工作的？", "X 的工作原理是什么？"
_MECHANISM_ZH = re.compile(r"(?:的)?(?:工作)?(?:原理|机制)(?:是什么|是啥)?|(?:是)?(?:如何|怎么|怎样)(?:工作|运作|运行)(?:的)?")
_MECHANISM_ZH_CUE = re.compile(r"原理|机制|(?:如何|怎么|怎样)(?:工作|运作|运行)")


# The Chinese forms, read once the question's names are taken out: a bid ("介绍一下 X", "请总结这篇论文"),
# the paper's main idea or contribution asked for ("X 的主要思想是什么？"), or what it is about or
# proposes ("X 讲了什么？", "X 解决了什么问题？"); nothing else may remain
_PAPER_ZH = r"(?:这篇|这个|该)?(?:论文|文章|工作|方法)?"
_GIST_ZH = re.compile(
    rf"^(?:请你?|能否|可以|麻烦)?(?:简要|简单)?地?(?:介绍|概述|总结|概括|说说|讲讲|描述)(?:一下)?{_PAPER_ZH}(?:的)?(?:主要)?(?:内容|思想)?"
    rf"|^{_PAPER_ZH}(?:的)?(?:主要|核心)?(?:思想|想法|贡献|内容|观点|目标|目的|创新点|思路)(?:是什么|有哪些|是啥)"
    rf"|^{_PAPER_ZH}(?:主要)?(?:讲了什么|讲的是什么|讲什么|是关于什么的|关于什么|提出了什么|解决了什么问题|要解决什么问题|解决什么问题)")
_GIST_ZH_CUE = re.compile(r"介绍|概述|总结|概括|说说|讲讲|描述|思想|想法|贡献|内容|观点|目标|目的|创新点|思路|讲了什么|讲的是什么|讲什么|关于什么|提出了什么|解决")
_ZH_END = re.compile(r"[\s？?。.!！呢吗]+$")
# a question that asks beyond what was said ("Tell me more about it", "What else does X do?"): not its gist
_MORE = re.compile(r"\b(?:more|else|further|other|details?|elaborate|deeper|besides)\b|更多|还有|其他|其它|详细|进一步|别的", re.I)
_THIS_PAPER_ZH = re.compile(r"(?:这篇|该)(?:论文|文章|工作)")


def gist_form(question: str) -> bool:
    """Whether a question is asked as a gist question is (:data:`_GIST_FORM`, a Chinese one by the
    words of :data:`_GIST_ZH`): a cheap test before a search for the paper it may describe."""
    return _gist_only_form(question) or (bool(_MECHANISM_ZH_CUE.search(question)) if has_cjk(question)
                                         else bool(_MECHANISM_FORM.match(question)) and not main_clause(question))


def _gist_only_form(question: str) -> bool:
    """:func:`gist_form` without the forms of a question about how a paper works."""
    if has_cjk(question):
        return bool(_GIST_ZH_CUE.search(question))
    return bool(_GIST_FORM.match(question)) and not main_clause(question)


def _without_names(question: str, ents: list[str], vocab: Vocabulary) -> str:
    """The question with its names taken out: as written, and their aliases and terms' names."""
    rest = question
    for e in ents:
        x = entity(e, vocab)
        for form in sorted({e, *(x.aliases if x else ()), *((x.name,) if x else ())}, key=len, reverse=True):
            rest = re.sub(re.escape(form), " ", rest, flags=re.I)
    return rest


# A Chinese comparison that asks only how its sides differ, once the names are out: "比较一下 A 和 B",
# "A 和 B 有什么区别？", "A 与 B 的主要不同是什么？"; nothing else may remain
_OVERVIEW_ZH = re.compile(r"(?:请你?)?(?:比较|对比)(?:一下)?[、，,]*(?:和|与|跟)"
                          r"|(?:[、，,]+(?:和|与|跟)?|和|与|跟)(?:之间)?的?(?:有什么|有啥|有何|有哪些)?(?:主要)?(?:区别|不同|差异|异同)"
                          r"(?:是什么|在哪里?|有哪些)?")


def overview_zh(question: str, ents: list[str], vocab: Vocabulary) -> bool:
    """Whether a Chinese question compares ``ents`` and asks nothing of them but how they differ
    (:data:`_OVERVIEW_ZH`, once the names, the white space and the closing marks are out)."""
    rest = _ZH_END.sub("", "".join(_without_names(question, ents, vocab).split()))
    return len(ents) >= 2 and bool(_OVERVIEW_ZH.fullmatch(rest))


def _gist_zh(question: str, ents: list[str], vocab: Vocabulary) -> bool:
    """Whether a Chinese question is only a gist question (:data:`_GIST_ZH`) once its names are out (then
    the white space and the closing marks)."""
    rest = _ZH_END.sub("", "".join(_without_names(question, ents, vocab).split()))
    return bool(_GIST_ZH.fullmatch(rest)) and (bool(ents) or bool(_THIS_PAPER_ZH.search(question)))


def _gist_question(question: str, key: list[str], ents: list[str], vocab: Vocabulary) -> bool:
    """Whether an English question asks only for one paper's gist (see :data:`_GIST_WORDS`): in a gist
    question's form, naming one paper (or none, as "this paper", when a turn is scoped to one), asking
    nothing beyond the names and the words of a gist question, and "problem" only with a verb that solves it."""
    if not _gist_only_form(question) or len(ents) > 1 or _MORE.search(_without_names(question, ents, vocab)):
        return False  # "…, and how?" or "Tell me more about it" asks more than the gist
    if has_cjk(question):
        return _gist_zh(question, ents, vocab)
    if not ents and not _THIS_PAPER.search(question):
        return False
    problem, solved = _SOLVED
    if any(t in problem for t in key) and not any(t in solved for t in key):
        return False
    return not _asks_beyond(key, ents, vocab, _GIST_WORDS | problem | solved)


def _mechanism_question(question: str, key: list[str], ents: list[str], vocab: Vocabulary) -> bool:
    """Whether a question asks only how one named paper's method works (:data:`_MECHANISM_FORM`; a
    Chinese one by :data:`_MECHANISM_ZH` once its name is out)."""
    cjk = has_cjk(question)
    if len(ents) != 1 or not (_MECHANISM_ZH_CUE.search(question) if cjk else _MECHANISM_FORM.match(question)):
        return False  # most questions: the form alone says no
    rest = _without_names(question, ents, vocab)
    if rest == question or _MORE.search(rest) or main_clause(question):
        return False  # a follow-up's "How does it work?" names nothing: it asks beyond the gist it follows
    if cjk:
        return bool(_MECHANISM_ZH.fullmatch(_ZH_END.sub("", "".join(rest.split()))))
    return not _asks_beyond(key, ents, vocab, _MECHANISM_WORDS)


_COLLECTION_WIDE = re.compile(
    r"\b(?:this|the) collection(?:'s)?\b|\bin (?:the|this|my) (?:collection|library|corpus)\b|"
    r"\bthese (?:papers|works|documents|models|methods)\b|\b(?:papers|works|documents|models|methods) here\b|"
    r"\b(?:the|my|indexed) (?:papers|documents|library)\b|这些论文|这批论文|这些文档|库里|文集", re.I)


def profile(question: str, intent: Intent | None = None, *, vocab: Vocabulary, extra: str = "") -> Profile:
    """Build the profile from the question (plus the reformulated query and critic feedback) over ``vocab``."""
    base = (intent.reformulated_query if intent and intent.reformulated_query else "") or question
    scoped = [split(e) for e in intent.entities] if intent else []
    ents = list(dict.fromkeys(n for n, _ in scoped)) if scoped else extract_entities(base, vocab)  # "X (version 2)" is about X
    for e in [] if any(v is not None for _, v in scoped) else extract_entities(base, vocab):
        if not any(e.lower() in o.lower() or o.lower() in e.lower() for o in ents):  # no part of a known name
            ents.append(e)
    dims = list(intent.dimensions) if intent else []
    key = content_terms(strip_question_form(base), drop_frame=True, parts=True)
    numeric = bool(re.search(r"\bhow (much|many|big|large|long|far|fast|small)\b|\bby what (margin|factor)\b|"
                             r"\b(ratios|percentages|figures|numbers)\b|"
                             r"\b(what|which)(?: [\w-]+){0,3} (rank|size|value|number|percentage|fraction|share|proportion|"
                             r"score|accuracy|f1|perplexity|rate|resolution|throughput|speedup|range|latency|error|wer|bleu)\b|\bdefault\b|多少|几", base, re.I))
    definitional = bool(re.search(r"^\s*(what|who) (is|are|was)\b|是什么|什么是", base, re.I))
    boost = set(content_terms(extra)) if extra else set()
    broad = bool(intent and intent.type == "exploratory")
    wide = bool(_COLLECTION_WIDE.search(base))
    main = main_clause(base)
    main_key = content_terms(strip_question_form(main), drop_frame=True, parts=True) if main else []
    biblio = bool(_BIBLIOGRAPHIC.search(question) or _BIBLIOGRAPHIC.search(base))
    mechanism = not biblio and _mechanism_question(question, key, ents, vocab)
    return Profile(question, ents, dims, key, numeric, definitional, broad, boost, collection_wide=wide,
                   main_terms=main_key if len(main_key) < len(key) else [],
                   query=base if (intent and intent.type == "follow_up") or has_cjk(question) else question,
                   vocab=vocab, bibliographic=biblio,
                   publication_only=biblio and not _asks_beyond(key, ents, vocab, _PUBLICATION_WORDS),
                   whole_paper=not biblio and (_gist_question(question, key, ents, vocab) or mechanism),
                   mechanism=mechanism,
                   library=not biblio and _library_question(question, key, ents, vocab),
                   key_words=content_words(strip_question_form(base), drop_frame=True))


def context_text(ctx: RetrievedContext) -> str:
    """What a chunk says and what it is: its paper's title, its authors' surnames (a question may cite a
    paper by them: "… did Alder, Birch and Cedar collect"), its breadcrumb and its text."""
    return f"{ctx.title}\n{byline(ctx)}\n{ctx.breadcrumb}\n{ctx.content}"


def surname(author: str) -> str:
    """An author's surname as a byline writes it: "Müller, Jane" and "Jane Müller" both give "Müller"."""
    return author.split(",", 1)[0].strip() if "," in author else (author.split() or [""])[-1]


def byline(ctx: RetrievedContext) -> str:
    """The surnames of the chunk's paper's authors, when the hub gives them ("" otherwise)."""
    return " ".join(surname(a) for a in ctx.meta.authors) if ctx.meta is not None and ctx.meta.authors else ""


def chunk_sentences(ctx: RetrievedContext) -> list[str]:
    """A chunk's candidate sentences; a table's rows each name the table (from the breadcrumb)."""
    return passage_sentences(ctx.content, table=table_label(ctx.breadcrumb))


def row_sentences(ctx: RetrievedContext) -> frozenset[str]:
    """The sentences of :func:`chunk_sentences` that are a table's rows (read from its ``| … |`` lines),
    not prose that cites a table ("In Table 3, we show that …")."""
    rows = "\n".join(ln for ln in ctx.content.splitlines() if ln.strip().startswith("|"))
    return frozenset(passage_sentences(rows, table=table_label(ctx.breadcrumb))) if rows else frozenset()


def _compact(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def names(ctx: RetrievedContext, name: str, vocab: Vocabulary) -> bool:
    """Whether a chunk names ``name``: in its title, breadcrumb or text, as its file's name
    (``align.md`` is the ALIGN paper even if its abstract never says "ALIGN"), or as its authors."""
    return mentions(context_text(ctx), name, vocab) or is_document_of(ctx, name, vocab) or written_by(ctx, name)


# The words that join surnames in a citation of a paper by its authors ("A and B", "A & B", "A et al.").
_CITE_JOINERS = frozenset(("and", "&", "et", "al", "al."))


def written_by(ctx: RetrievedContext, name: str) -> bool:
    """Whether ``name`` cites the chunk's paper by its authors: every word of it but the joiners ("and",
    "et al.") is a capitalized surname of the chunk's byline ("Lindqvist and Ferreira", "Okonkwo et al.",
    "Ferreira"). A paper's text never prints its authors, so a question that cites a paper this way
    would otherwise hold a name no chunk of that paper uses."""
    byline = byline_keys([ctx])
    words = [w for w in name.replace(",", " ").split() if w.lower() not in _CITE_JOINERS]
    return bool(byline and words) and all(w[:1].isupper() and _compact(w) in byline for w in words)


def byline_keys(contexts: list[RetrievedContext]) -> set[str]:
    """The surnames on the chunks' bylines, folded as names are compared ("Lindqvist, Elin" → "lindqvist")."""
    return {_compact(surname(a)) for c in contexts if c.meta is not None for a in c.meta.authors or []}


def own_contexts(contexts: list[RetrievedContext], names: list[str], vocab: Vocabulary) -> set[int]:
    """0-based indexes of the chunks that come from one of ``names``' own papers (:func:`is_document_of`):
    the sentence scorer's own-paper feature reads them."""
    return {i for i, c in enumerate(contexts) if any(is_document_of(c, n, vocab) for n in names)}


def is_document_of(ctx: RetrievedContext, name: str, vocab: Vocabulary) -> bool:
    """Whether the chunk comes from ``name``'s own paper: its file is named so, its title starts
    with the name ("T5" for ``t5.pdf``, "Longformer" for "Longformer: The Long-Document …") or
    with the name's long form from the vocabulary, or it is the paper that introduces the name as its
    own (``Term.paper``: ReVerb's "Identifying Relations for Open Information Extraction")."""
    stem = ctx.source.replace("\\", "/").rsplit("/", 1)[-1].rsplit(".", 1)[0] if ctx.source else ""
    head = ctx.title.split(":", 1)[0] if ":" in ctx.title else ""
    key = _compact(name)
    if not key:
        return False
    if key in (_compact(stem), _compact(head), _compact(ctx.title)):
        return True
    # the title opens with the name's long form: "Masked Autoencoders Are …" is MAE's paper
    ent = entity(name, vocab)
    title = _compact(ctx.title)
    if ent and ent.paper and title and _compact(ent.paper) == title:
        return True
    return bool(ent) and len(key) >= 3 and any(
        len(a.split()) >= 2 and title.startswith(_compact(a)) for a in ent.aliases)


def in_abstract(ctx: RetrievedContext) -> bool:
    """Whether the chunk is its paper's abstract (the section name the PDF reader and the Markdown
    splitter give it), or an unnumbered "Summary" section of its own (the section the bundled notes open
    with in its place; not a "Summary" run-in heading within a section, "4 Experiments > Summary")."""
    crumbs = [c.strip().lower() for c in ctx.breadcrumb.split(" > ")]
    return crumbs[-1] == "abstract" or (crumbs[-1] == "summary" and len(crumbs) == 2)


def is_relevant(ctx: RetrievedContext, prof: Profile, absent: list[str] | tuple[str, ...] = ()) -> bool:
    """Whether a chunk speaks to the question.

    A chunk that names one of the question's entities is relevant. When a named entity occurs in
    none of the retrieved chunks (``absent``: a name the documents never use, or a topic the
    knowledge base does not hold), naming the others is not enough: the chunk must then carry the
    question's own words, as must any chunk when the question names no entity. An absent name
    lowers confidence rather than vetoing: a chunk that names a present entity needs the share of
    the question's words anywhere in it (a second absent name onwards counts against the share); a
    chunk that names none needs them in one sentence, with each absent name counted against it.
    """
    present = [e for e in prof.entities if e not in absent]
    if present and not absent:
        return any(names(ctx, e, prof.vocab) for e in present)
    ent_terms = expand_terms(prof.entities, prof.vocab)
    if any(names(ctx, e, prof.vocab) for e in present):  # "zephyr" of an absent Zephyr-7 is a name, not a word asked
        ent_terms |= {t for e in prof.entities for t in content_terms(e, parts=True)}
    terms = [t for t in prof.key_terms if t not in ent_terms]
    if not terms:
        return any(names(ctx, e, prof.vocab) for e in present)
    main = [t for t in prof.main_terms if t not in ent_terms]
    if len(main) >= 2 and _shares_terms(ctx, prof, main, present, absent):
        return True
    return _shares_terms(ctx, prof, terms, present, absent)


def _shares_terms(ctx: RetrievedContext, prof: Profile, terms: list[str], present: list[str],
                  absent: list[str] | tuple[str, ...]) -> bool:
    """Whether the chunk carries enough of ``terms`` (see :func:`is_relevant`)."""
    text = context_text(ctx)
    if prof.broad and not any(t.isascii() for t in terms):
        return True  # a broad question in another language than the documents: trust the retrieval
    share = 0.25 if prof.broad else 0.5
    latin = [t for t in terms if t.isascii()]
    # Words scattered over a chunk vouch for it; when a named thing is nowhere to be found they
    # must meet in one sentence ("parameters" here and "technical report" there is no answer).
    anchored = any(names(ctx, e, prof.vocab) for e in present)
    scopes = [term_set(s) for s in chunk_sentences(ctx)] if absent and not anchored else [term_set(text)]
    # one unmatched name lowers confidence only; each further one counts against the share, since a
    # question mostly about things the papers never name is about something they do not hold
    penalty = max(0, len(absent) - 1) if anchored else len(absent)
    for have in scopes:
        # A Chinese question with its terms in English is judged on either vocabulary.
        for group in ([terms, latin] if latin and len(latin) < len(terms) else [terms]):
            hit = sum(1 for t in group if covered(t, have))
            if hit >= min(2, len(group)) and hit / (len(group) + penalty) >= share:
                return True
    return False


def absent_names(contexts: list[RetrievedContext], prof: Profile) -> list[str]:
    """The question's names that no retrieved chunk uses: they lower confidence in an answer."""
    return [e for e in prof.entities if not any(names(c, e, prof.vocab) for c in contexts)]


# The share of the question's own words a chunk needs when another chunk of its paper is relevant.
SAME_PAPER_SHARE = 1 / 3


def relevant_indexes(contexts: list[RetrievedContext], prof: Profile) -> list[int]:
    """0-based indexes of the relevant contexts.

    A chunk whose paper another relevant chunk vouches for needs less: a long paper names its
    subject in a few places and states its details elsewhere ("the test set", "it"), so a chunk of
    that paper is relevant when it carries a third of the question's words (at least two) without
    naming the question's entities. A chunk of another paper still meets the full test, and the
    test for "no evidence" is unchanged (some chunk must pass it on its own). A comparison side's
    own paper found by its retrieval rather than its name (:mod:`core.brains.offline.sides`) is
    relevant as a paper its title names would be.
    """
    from core.brains.offline.sides import side_papers

    absent = absent_names(contexts, prof)
    own = set(side_papers(contexts, prof.entities, prof.vocab).values()) if any(c.entity for c in contexts) else set()
    keep = [i for i, c in enumerate(contexts) if is_relevant(c, prof, absent) or (c.doc_id and c.doc_id in own)]
    papers = {contexts[i].doc_id or contexts[i].source for i in keep} - {""}
    more = [i for i, c in enumerate(contexts) if i not in keep and (c.doc_id or c.source) in papers
            and _carries_words(c, prof, absent, SAME_PAPER_SHARE)]
    found = sorted(keep + more)
    # a paper's thanks name it and its people often and say nothing of its content: they stay evidence
    # only where they hold more of what the question asks (its words beyond the names) than any other
    # chunk kept ("Who funded X?")
    thanks = [i for i in found if in_acknowledgments(contexts[i])]
    if not thanks or len(thanks) == len(found):
        return found
    asked = asked_terms(prof)

    def holds(i: int) -> int:
        have = term_set(context_text(contexts[i]))
        return sum(covered(t, have) for t in asked)

    best = max(holds(i) for i in found if i not in thanks)
    return [i for i in found if i not in thanks or holds(i) > best]


def asked_terms(prof: Profile, contexts: list[RetrievedContext] | None = None) -> list[str]:
    """The question's English key terms beyond its names: the names, their aliases and their parts
    ("kosmo" of Kosmos-2) are not what is asked about them, nor is a paper cited by its authors
    ("Okafor and Marsh (2024)": :func:`~core.brains.offline.slots.author_citations`; with ``contexts``,
    any capitalized word of the question that is a surname on a retrieved chunk's byline, as in
    "Okonkwo, Lindqvist and Ferreira" without a year: :func:`byline_surnames`)."""
    names = expand_terms(prof.entities, prof.vocab) | {t for e in prof.entities for t in content_terms(e, parts=True)}
    names |= {t for cite in author_citations(prof.question) for t in content_terms(cite, parts=True)}
    names |= byline_surnames(prof.question, contexts or [])
    return [t for t in prof.key_terms if t not in names and t.isascii()]


def byline_surnames(question: str, contexts: list[RetrievedContext]) -> set[str]:
    """The terms of the capitalized words of ``question`` that are surnames on a retrieved chunk's byline."""
    bylines = byline_keys(contexts)
    words = (re.sub(r"['’]s$", "", w) for w in re.findall(r"[^\W\d_][\w'’-]*", question) if w[:1].isupper())
    return {t for w in words if _compact(w) in bylines for t in content_terms(w)} if bylines else set()


_ACKNOWLEDGMENTS = re.compile(r"^(?:\d+(?:\.\d+)*\.?\s+)?acknowledge?ments?$", re.I)


def in_acknowledgments(ctx: RetrievedContext) -> bool:
    """Whether the chunk is in its paper's acknowledgments (a section of that name in its breadcrumb)."""
    return any(_ACKNOWLEDGMENTS.match(part.strip()) for part in ctx.breadcrumb.split(" > ")[1:])


def _carries_words(ctx: RetrievedContext, prof: Profile, absent: list[str], share: float) -> bool:
    """Whether the chunk holds ``share`` of the question's non-name words (at least two; each
    name no chunk uses counts against the share)."""
    ent_terms = expand_terms(prof.entities, prof.vocab)
    terms = [t for t in prof.key_terms if t not in ent_terms]
    if len(terms) < 2:
        return False
    have = term_set(context_text(ctx))
    hit = sum(1 for t in terms if covered(t, have))
    return hit >= 2 and hit / (len(terms) + len(absent)) >= share


# A document's header line: a link, a labelled field, or an e-mail address (a byline's contact line,
# "… University of Trento, Italy (first.last|other)@unitn.it", read from a PDF's first page)
_METADATA = re.compile(r"https?://|^(?:authors?|source|url|keywords|affiliations?|doi|arxiv|license)\s*:|"
                       r"[\w.)|+-]@[\w-]+(?:\.[\w-]+)+", re.I)


def is_metadata(sentence: str) -> bool:
    """A document's header line (authors, source URL, ...), never an answer sentence."""
    return bool(_METADATA.search(sentence))


@dataclass
class Sentence:
    ctx: int  # 0-based index into contexts
    pos: int  # position within the chunk
    text: str
    terms: set[str]
    about: list[str]  # entities it names
    cited: list[int] = field(default_factory=list)  # 1-based markers (several if duplicated)
    published: bool = False  # the paper's publication as its metadata states it (DocMeta.publication)


def asks(sentence: str) -> bool:
    """Whether a sentence is a question (a paper's own, or a heading's): it states nothing to quote. One
    that ends by quoting a question (a prompt, a cited title: «… prompted with "Which expert …?"») states
    something."""
    return sentence.rstrip(" *").endswith(("?", "？"))


def sentence_pool(contexts: list[RetrievedContext], prof: Profile, *, only_relevant: bool = True,
                  steps: list[str] | None = None) -> list[Sentence]:
    """Every usable sentence of the (relevant) contexts; duplicates merged into one with all markers.
    Sentences that read like instructions (:mod:`core.memory.hygiene`) or ask a question are never quoted
    as evidence.

    With ``steps`` (a multi-hop plan), a chunk relevant to any one step is kept too.
    """
    keep = set(relevant_indexes(contexts, prof)) if only_relevant else set(range(len(contexts)))
    if prof.whole_paper and not prof.entities and len({c.doc_id for c in contexts}) == 1:
        # "What is this paper about?" in a turn scoped to one paper names nothing a chunk could be on
        # topic with: its abstract is what it asks for
        keep |= {i for i, c in enumerate(contexts) if in_abstract(c)}
    for sub in steps or []:
        keep |= set(relevant_indexes(contexts, profile(sub, vocab=prof.vocab)))
    pool: list[Sentence] = []
    seen: dict[str, Sentence] = {}
    for i, ctx in enumerate(contexts):
        if i not in keep:
            continue
        for pos, text in enumerate(chunk_sentences(ctx)):
            if (len(text.split()) < 4 and not re.search(r"[\u4e00-\u9fff]{6,}", text)) or is_metadata(text):
                continue
            if is_instruction_like(text):  # a planted "ignore previous instructions…" is no evidence
                continue
            if asks(text):  # "we turn to the question: what are the limits …?" states nothing
                continue
            norm = " ".join(content_terms(text))
            if norm in seen:
                # a sentence one paper states in two of its chunks (a caption's note, an overlap) is cited
                # once, by the first; another paper stating it is cited too
                if all(paper_of(contexts[n - 1]) != paper_of(ctx) for n in seen[norm].cited):
                    seen[norm].cited.append(i + 1)
                continue
            about = [name for _, name in find_entities(text, prof.vocab)]
            # a sentence of the named paper itself is about that paper even when it says "we"
            about += [e for e in prof.entities if e not in about and (mentions(text, e, prof.vocab) or is_document_of(ctx, e, prof.vocab))]
            s = Sentence(i, pos, text, term_set(text), about, [i + 1])
            seen[norm] = s
            pool.append(s)
    pool = [s for s in pool if not _broken_off_of(s, pool)]
    if prof.bibliographic:
        pool[:0] = publication_sentences(contexts, keep, prof)
    weigh(prof, pool)
    return pool


def paper_of(ctx: RetrievedContext) -> str:
    """The paper a chunk belongs to: its document id, else its source, else the chunk itself."""
    return ctx.doc_id or ctx.source or ctx.chunk_id


def _broken_off_of(sent: Sentence, pool: list[Sentence]) -> bool:
    """Whether ``sent`` is a sentence broken off at its chunk's end ("… lower precision than REVERB and")
    whose whole another retrieved chunk holds: the whole is quoted, never the piece."""
    text = sent.text.rstrip()
    if text.endswith((".", "!", "?", ":", "。", "？", "！")) or len(text.split()) < 4:
        return False
    return any(o is not sent and len(o.text) > len(text) and o.text.startswith(text) for o in pool)


def _asks_beyond(key: list[str], ents: list[str], vocab: Vocabulary, words: frozenset[str]) -> bool:
    """Whether a question's key terms (its English ones: a Chinese question's character pairs are read
    by its cue) hold anything besides its names and ``words`` (those of a kind of question about a
    paper: its publication, its gist)."""
    terms = [(e, entity(e, vocab)) for e in ents]
    names = {t for e, x in terms for t in content_terms(f"{e} {x.name if x else ''}", parts=True)}
    # a name as the question spells it ("TrustRank" for the term "Trust-Rank", stemmed "mapreduc")
    compact = {re.sub(r"[^a-z0-9]", "", f.lower()) for e, x in terms for f in (e, *(x.aliases if x else ()))}

    def named(t: str) -> bool:
        return t in names or any(len(t) >= 3 and c.startswith(t) for c in compact)

    return any(t.isascii() and not named(t) and t not in words for t in key)


def publication_sentences(contexts: list[RetrievedContext], keep: set[int], prof: Profile) -> list[Sentence]:
    """For a question about a paper's publication: one sentence per paper among the kept chunks with
    what its metadata says (authors, venue, year), cited to the paper's first kept chunk."""
    out: list[Sentence] = []
    seen: set[str] = set()
    for i in sorted(keep):
        ctx = contexts[i]
        key = ctx.doc_id or ctx.source or ctx.title
        text = publication_of(ctx)
        if not text or key in seen:
            continue
        seen.add(key)
        about = [e for e in prof.entities if mentions(text, e, prof.vocab) or is_document_of(ctx, e, prof.vocab)]
        out.append(Sentence(i, 0, text, term_set(text), about, [i + 1], published=True))
    return out


def weigh(prof: Profile, pool: list[Sentence]) -> None:
    """IDF-style weights in [0.5, 1.5] for the key terms over this pool of sentences."""
    n = len(pool)
    if n < 2:
        return
    for t in prof.key_terms:
        df = sum(1 for s in pool if t in s.terms)
        prof.weights[t] = 0.5 + (math.log(n / df) / math.log(n) if df else 1.0)
    for e in prof.entities:  # an entity every sentence names tells sentences apart less
        df = sum(1 for s in pool if e in s.about)
        prof.weights["@" + e] = 0.5 + (math.log(n / df) / math.log(n) if df else 1.0)


def attributed(sent: Sentence, name: str, contexts: list[RetrievedContext], vocab: Vocabulary) -> bool:
    """Whether a sentence is about ``name``: it names it, or its chunk is about it and it names no rival."""
    if name in sent.about or mentions(sent.text, name, vocab):
        return True
    ctx = contexts[sent.ctx]
    head = f"{ctx.title} {ctx.breadcrumb} {ctx.entity or ''}"
    return not sent.about and (bool(mentions(head, name, vocab)) or is_document_of(ctx, name, vocab))


def subject(sent: Sentence, vocab: Vocabulary) -> str | None:
    """The entity a sentence is about: the one it names first, if named near its start."""
    from core.brains.offline.lexicon import mention_pattern

    firsts = []
    for e in sent.about:
        m = mention_pattern(e, vocab).search(sent.text)
        if m and m.start() <= 40:
            firsts.append((m.start(), e))
    return min(firsts)[1] if firsts else None


def dim_hits(text: str, name: str) -> int:
    return dimension_hits(text, name)


def expand_terms(names: list[str], vocab: Vocabulary) -> set[str]:
    """Stemmed terms of entity names and their aliases (for relevance weighting)."""
    out: set[str] = set()
    for n in names:
        ent = entity(n, vocab)
        for alias in (n, *(ent.aliases if ent else ())):
            out |= term_set(alias)
    return out
