"""Arrange selected evidence by strategy: direct answer, chain, themed sections (the comparison table is
:mod:`core.brains.offline.comparison`).

Every sentence or table cell produced here is a sentence (or clause) of a retrieved chunk with its
``[n]`` marker; the only unmarked text is headings, labels, explicit "no evidence" statements and
the optional "From earlier sessions:" line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from core.brains.offline import reader, scorer
from core.brains.offline.planner import points_back
from core.brains.offline.evidence import (Profile, Sentence, attributed, is_document_of, own_contexts, paper_of, profile,
                                          row_sentences, subject)
from core.brains.offline.lexicon import entity as lex_entity
from core.brains.offline.lexicon import (asks_limitation, asks_name, gives_new_name, mention_pattern, mentions,
                                         states_limitation, states_time)
from core.brains.offline.lexicon import asks_time as lexicon_asks_time
from core.brains.offline.comparison import _CONTRAST
from core.brains.offline.extremes import direction, extreme_row, named_cell_row, table_rows
from core.brains.offline.sides import abstract_of, gist, gist_paper, own_work
from core.brains.offline.synthesis import LEAD_MAX, OVERVIEW_PREFIXES, cited, lead_size, mmr, quoted, relevance, step_terms
from core.brains.offline.text import step_asks
from core.text import short_title, term_set
from core.types import RetrievedContext
from core.vocabulary import Vocabulary


# A chain step that found nothing says so (the critic reads it as a gap: critic_checks._STEP_GAP).
NO_STEP_EVIDENCE = "The knowledge base holds no evidence for this step."

def simple(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> tuple[str, list[str]]:
    """Direct answer first (the best sentence, and the next ones the scorer rates nearly as high,
    :func:`~core.brains.offline.synthesis.lead_size`; for a question asking for a number, opening
    with the best that states one), then the other supporting sentences (four in all). A publication
    question is answered by its metadata (a question about one paper as a whole by its abstract, before
    any strategy's composition: :func:`paper_gist`).

    Whether a sentence comes from the paper the question names (by its file or title) is one of
    the scorer's features.
    """
    named = [s for s in pool if prof.publication_only and s.published
             and any(is_document_of(contexts[s.ctx], e, prof.vocab) for e in prof.entities)]
    if named:  # only where or when a named paper was published, or by whom: its metadata says so, and
        # nothing else (the paper's sentences that share its words would be padding), so nothing is scored
        lead = named[:2]
        return quoted(lead), [s.text for s in lead]
    own = own_contexts(contexts, prof.entities, prof.vocab)
    scorer.prime([prof.question, *(s.text for s in pool)])

    # the scorer's probability, read again by the cross-encoder (:mod:`~core.brains.offline.reader`)
    # against Profile.query (a follow-up or a Chinese question as the slot filler rewrote it)
    # (not run when the scorer is already confident: then the scores and the lead's share are its own)
    probs = [relevance(s, prof, own=s.ctx in own) for s in pool]
    read = reader.rescore(prof.query or prof.question, [s.text for s in pool], probs)
    blended = dict(zip((id(s) for s in pool), read))

    def score(s: Sentence) -> float:
        return blended[id(s)]

    chosen = mmr(pool, score, 4, min_ratio=0.35, group=lambda s: table_of(s, contexts), per_group=2)
    if not chosen:
        return "", []
    # the direct answer opens with a chosen sentence that states the kind of thing the question asks for:
    # a value for a number (as a comparison's cells do, not a caption or a table row that only names the
    # measure), a time taken for "how long did it take", a limitation (what it cannot do) for its
    # limitations, a name the question does not already hold for "what is it called"
    def home(s: Sentence) -> str:
        return paper_of(contexts[s.ctx])

    chosen = _with_extreme_row(chosen, pool, prof.question, contexts)
    if asks_value(prof):
        chosen = _with_named_cell(chosen, pool, prof.question, contexts)
    timed = asks_time(prof)
    if timed:
        chosen = _with_kind(chosen, pool, score, states_time, home)
    if prof.numeric:
        chosen = _with_kind(chosen, pool, score, lambda t: states_new_value(t, prof.question), home)
        chosen = _open_with(chosen, lambda t: bool(scorer.stated_values(t)))
    if timed:
        chosen = _open_with(chosen, states_time)
    if asks_limitation(prof.question):
        chosen = _open_with(chosen, states_limitation)
    if asks_name(prof.question):
        chosen = _open_with(chosen, lambda t: gives_new_name(t, prof.question))
    # a row sentence already names its table's caption ("In Table 1 (English POS results …), …"): the
    # caption's own sentence after it says it again
    rows_of = {table_of(s, contexts) for s in chosen} - {None}
    chosen = chosen[:1] + [s for s in chosen[1:] if caption_of(s, contexts) not in rows_of]
    n = lead_size(chosen, score, lambda s: paper_of(contexts[s.ctx]), share=reader.lead_share() if read != probs else None)
    # the direct answer stays as chosen (the question names what its "it" is); a supporting sentence
    # that points back is quoted with the sentence it points at
    # past the direct answer, a sentence joins only when it is more likely to answer than not (the scorer's,
    # or the reader's, probability): below that it is padding a reader skips
    lead, rest = chosen[:n], with_antecedents([s for s in chosen[n:] if score(s) >= 0.5], pool, chosen[:n])
    lines = [quoted(lead)]
    if rest:
        lines.append(quoted(rest))
    return "\n\n".join(lines), [s.text for s in lead + rest]


# How far down the ranking a question asking for a number (or a time) looks for a sentence that states
# one, when no chosen sentence does: on the scorer's generated held-out groups the answering sentence is
# among the scorer's first 8 in 98% of them (the note on reader.SHORTLIST).
VALUE_DEPTH = 8
_LABEL = re.compile(r"\(\d{1,2}[a-z]?\)")


def states_new_value(text: str, question: str) -> bool:
    """Whether ``text`` states a quantity (:func:`~core.brains.offline.scorer.stated_values`) that
    ``question`` does not already hold. A number alone in parentheses labels an example or an
    equation ("like the example in (1)"); it states nothing."""
    return scorer.value_features(_LABEL.sub(" ", text), question, set())[1] > 0


def _with_extreme_row(chosen: list[Sentence], pool: list[Sentence], question: str,
                      contexts: list[RetrievedContext]) -> list[Sentence]:
    """``chosen`` opening with the row that holds the best, highest or lowest value the question asks
    for (:func:`~core.brains.offline.extremes.extreme_row`), among the rows of the table of the first
    chosen row; as it is when the question asks for no extreme or no row can be told to hold it."""
    first = next((s for s in chosen if table_of(s, contexts) or caption_of(s, contexts)), None)
    if first is None or not direction(question):
        return chosen
    table = table_of(first, contexts) or caption_of(first, contexts)
    members = [s for s in pool if table_of(s, contexts) == table]
    cells = table_rows([contexts[i] for i in dict.fromkeys(s.ctx for s in members)])
    paper = paper_of(contexts[first.ctx])
    texts = [*(s.text for s in pool if paper_of(contexts[s.ctx]) == paper),
             *(c.breadcrumb for c in contexts if paper_of(c) == paper)]
    hit = extreme_row(question, [(s.text, cells[s.text]) for s in members if s.text in cells], texts)
    top = next((s for s in members if s.text == hit), None)
    return chosen if top is None else [top, *(s for s in chosen if s is not top)][:4]


# a question about what a thing is or gets ("What accuracy does …", "Which score …"), not why or how it
# comes about ("How is its accuracy computed?" names the row and the column too)
_WHAT = re.compile(r"\b(?:what|which)\b", re.I)
_WHY_HOW = re.compile(r"\b(?:why|how)\b|为什么|如何|怎么", re.I)


def asks_value(prof: Profile) -> bool:
    """Whether the question asks for a value: a number (``Profile.numeric``), or what or which thing
    something is or gets, and not why or how."""
    return prof.numeric or (_WHAT.search(prof.question) is not None and _WHY_HOW.search(prof.question) is None)


def _with_named_cell(chosen: list[Sentence], pool: list[Sentence], question: str,
                     contexts: list[RetrievedContext]) -> list[Sentence]:
    """``chosen`` opening with the table row whose label and valued column the question names
    (:func:`~core.brains.offline.extremes.named_cell_row`), among the pool's rows; as it is when no one
    row is named. The scorer rates a caption or a sentence that names the measure ("Listed is the
    accuracy of each method") above the row that states it, and every row of a table alike."""
    rows = table_rows([contexts[i] for i in dict.fromkeys(s.ctx for s in pool if table_of(s, contexts))])
    members = [s for s in pool if s.text in rows]
    if not members:
        return chosen
    papers = {paper_of(contexts[s.ctx]) for s in members}
    texts = [s.text for s in pool if paper_of(contexts[s.ctx]) in papers]
    hit = named_cell_row(question, [(s.text, rows[s.text]) for s in members], texts)
    top = next((s for s in members if s.text == hit), None)
    return chosen if top is None else [top, *(s for s in chosen if s is not top)][:4]


def asks_time(prof: Profile) -> bool:
    """Whether the question asks for a time taken or a rate (:func:`~core.brains.offline.lexicon.asks_time`)."""
    return lexicon_asks_time(prof.question, prof.numeric)


def _with_kind(chosen: list[Sentence], pool: list[Sentence], score: Callable[[Sentence], float],
               states: Callable[[str], bool], paper: Callable[[Sentence], str]) -> list[Sentence]:
    """``chosen`` for a question that asks for a kind of statement (a value, a time taken): as it is
    when one of its sentences ``states`` one; else with the best-ranked sentence of the first one's
    paper among the :data:`VALUE_DEPTH` best of ``pool`` that does, in place of the last chosen (so
    the answer keeps its length). The scorer and the reader rate "we measure performance on a large
    cluster" above "the cluster consisted of 1800 machines" for "how large were the clusters": the
    sentence that echoes the question's words is not its answer."""
    if not chosen or any(states(s.text) for s in chosen):
        return chosen
    home = paper(chosen[0])
    ranked = sorted(pool, key=lambda s: (-score(s), s.ctx, s.pos))[:VALUE_DEPTH]
    found = next((s for s in ranked if s not in chosen and paper(s) == home and states(s.text)), None)
    return chosen if found is None else [*chosen[:3], found]


def _open_with(chosen: list[Sentence], states: Callable[[str], bool]) -> list[Sentence]:
    """``chosen`` opening with its first sentence whose text ``states`` the asked kind of thing, when the
    first does not and another does; else as it is."""
    if states(chosen[0].text):
        return chosen
    lead = next((s for s in chosen[1:] if states(s.text)), None)
    return [lead, *(s for s in chosen if s is not lead)] if lead is not None else chosen


def paper_gist(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> tuple[str, list[str]] | None:
    """The answer to a question about one paper as a whole (``Profile.whole_paper``), whichever strategy
    it was routed to (the brain asks before composing a direct answer or an overview): the start of that
    paper's abstract (:func:`gist`), which sets out the problem and what the paper does about it; scored,
    its sentences would be those that repeat the paper's name (its results). None when the paper's
    abstract is not among the chunks."""
    abstract = abstract_of(pool, contexts, gist_paper(contexts, prof))
    if not abstract:
        return None
    if prof.mechanism:  # how it works: from where the paper speaks of its own work, past the problem it sets out
        abstract = own_work(abstract, prof.entities, prof.vocab)
    lead = gist(abstract)
    return quoted(lead), [s.text for s in lead]


# A sentence that points back at what the sentence before it said: it opens with a pronoun ("They train
# …") or speaks of "these"/"those" things ("… among these sites without inlinks"). Not an "it" that
# stands for nothing ("It is well known that …", "It should be noted that …"), nor "those" that a phrase
# of its own sentence defines ("those of the seeds", "those in Table 1", "those reported in [12]").
_REFERS_BACK = re.compile(r"^(?:It|They)\b(?!\s+(?:is|was|should|can|could|may|might|must|will|would|seems|appears)"
                          r"\b[^.;]*?\bthat\b)"
                          r"|\b[Tt]h(?:ese|ose)\s+(?!(?:in|of|that|which|who|whose|with|for|from|at|on|by|where|are|"
                          r"were|is|was)\b|\w+ed\b)[a-z]")


def with_antecedents(quoted: list[Sentence], pool: list[Sentence], before: list[Sentence] = ()) -> list[Sentence]:
    """``quoted`` with each sentence that refers back (:data:`_REFERS_BACK`) preceded by the sentence
    before it in its chunk, when that one is in the pool and not quoted in ``before``: "… among these
    sites without inlinks" says which sites only with "more than one third of the sites (13,197,046)
    were unreferenced" before it. An antecedent quoted later in ``quoted`` moves up to its place;
    one quoted earlier stays where it is."""
    at = {(s.ctx, s.pos): s for s in pool}
    out: list[Sentence] = []
    for s in quoted:
        if s in out:  # moved up already, as an antecedent
            continue
        prev = at.get((s.ctx, s.pos - 1)) if _REFERS_BACK.search(s.text) else None
        if prev is not None and prev not in out and prev not in before:
            out.append(prev)
        out.append(s)
    return out


_ROW_OF = re.compile(r"^In (Table\s*[\dIVX]+[a-z]?|the table on page \d+)\b")
_CAPTION_OF = re.compile(r"^(Table\s*[\dIVX]+[a-z]?)\s*[:.]")


def caption_of(sent: Sentence, contexts: list[RetrievedContext]) -> str | None:
    """The table whose caption ``sent`` is ("Table 3: Improvement in …"), keyed as :func:`table_of` keys
    its rows; None for any other sentence."""
    m = _CAPTION_OF.match(sent.text)
    return f"{contexts[sent.ctx].doc_id or contexts[sent.ctx].source}|{m.group(1)}" if m else None


def table_of(sent: Sentence, contexts: list[RetrievedContext]) -> str | None:
    """The table a row sentence belongs to (its paper and label), None for any other sentence.
    The rows of one table are alternatives to each other: a direct answer quotes at most two, so the
    rows of a table whose caption shares the question's words do not crowd out every other sentence."""
    m = _ROW_OF.match(sent.text)
    return f"{contexts[sent.ctx].doc_id or contexts[sent.ctx].source}|{m.group(1)}" if m else None


def multi_hop(pool: list[Sentence], prof: Profile, sub_questions: list[str],
              contexts: list[RetrievedContext] | None = None) -> tuple[str, list[str]]:
    """One numbered step per sub-question with its cited sentence(s), then a cited conclusion: the
    sentences that best answer the last step in the question's context, as many as the direct answer
    of a simple question would hold (:func:`~core.brains.offline.synthesis.lead_size`). A step (and the
    conclusion) that names a paper's system reads its sentences with the scorer's own-paper feature set,
    as a simple answer does: that paper's "we introduce a new corpus" need not repeat the name."""
    lines: list[str] = []
    picked: list[Sentence] = []
    steps = shown_steps(sub_questions, prof.question) or [prof.question]
    scorer.prime([prof.question, *sub_questions, *(s.text for s in pool)])

    # each later step's best sentence is kept for it, so an earlier step quotes another where one exists
    best_of = [_step_best(pool, sq, prof.vocab) for sq in steps]
    found_before = True

    def paper(s: Sentence) -> str:
        return paper_of(contexts[s.ctx]) if contexts else ""
    before: set[str] = set()  # the papers the last step that found evidence quoted
    by_step: list[tuple[int, list[Sentence]]] = []  # (line, its sentences) of each step that found evidence
    for i, sq in enumerate(steps, start=1):
        label = f"{i}. **{sq.strip()}**"
        if i > 1 and not found_before and points_back(sq):
            # "that model" is whatever the step before found, and it found nothing
            lines.append(f"{label} {NO_STEP_EVIDENCE}")
            continue
        sp = profile(sq, vocab=prof.vocab)
        focus = step_terms(sq)
        home = own_contexts(contexts or [], sp.entities, prof.vocab)
        named = frozenset(t for e in sp.entities for t in term_set(e))
        def score(s: Sentence, sp=sp, focus=focus, home=home) -> float:
            return relevance(s, sp, focus, own=s.ctx in home)

        def holds(s: Sentence, focus=focus, home=home, named=named) -> bool:
            """At least two of the step's words (its name included where the sentence is its paper's own)."""
            return len(focus & (s.terms | named if s.ctx in home else s.terms)) >= min(2, len(focus))
        # a step about a named method reads sentences about it, not about another method that cites it
        own = [s for s in pool if (subj := subject(s, prof.vocab)) is None or subj in sp.entities] if sp.entities else pool
        own = own or pool
        step_pool = pool
        if follows(sq) and before:  # "what does it keep?": it is what the step before found, in its paper
            scoped = [s for s in pool if paper(s) in before]  # whatever names it holds: "it" is their subject
            if any(holds(s) for s in scoped):
                own = step_pool = scoped
        later = [b for b in best_of[i:] if b is not None]
        chosen = mmr(own, score, 2, min_ratio=0.75, exclude=picked + later)
        chosen = [s for s in chosen if holds(s)] or mmr(own, score, 2, min_ratio=0.75, exclude=picked)
        chosen = [s for s in chosen if holds(s) and all(s is not p for p in picked)]
        if not chosen:  # a weaker sentence of its own, else reuse earlier evidence rather than claim a gap
            fits = [s for s in step_pool if holds(s)]
            fresh = [s for s in fits if all(s is not p for p in picked)]
            chosen = mmr(fresh or fits, score, 1)
        found_before = bool(chosen)
        if chosen:
            before = {paper(s) for s in chosen}
            picked += chosen
            by_step.append((len(lines), chosen))
            lines.append(f"{label} " + quoted(chosen))
        else:
            lines.append(f"{label} {NO_STEP_EVIDENCE}")
    if not picked:  # no step found evidence: a conclusion would be an unrelated sentence; the brain declines
        return "", []
    # The conclusion answers what the last asking step asks (the question's own last clause), in context:
    # a keyword step a replan added after it ("teacher model") asks nothing of its own.
    last = next((q for q in reversed(steps) if step_asks(q)), steps[-1])
    lp, lfocus = profile(last, vocab=prof.vocab), step_terms(last)
    lhome = own_contexts(contexts or [], lp.entities, prof.vocab)

    def concl_score(s: Sentence) -> float:
        return relevance(s, lp, lfocus, question=prof.question, own=s.ctx in lhome)

    # a last step that points back ("what does it keep?") is answered in the paper its step found
    home_of_last = [s for s in pool if paper(s) in before] if follows(last) and before else []
    concl = mmr(home_of_last or pool, concl_score, LEAD_MAX)
    concl = concl[:lead_size(concl, concl_score, paper=lambda s: "")]  # a chain's conclusion may bridge its papers
    if concl and lp.numeric:  # as a direct answer does: a step asking for a number is answered by one that states it
        def states(t: str) -> bool:
            return states_new_value(t, last)
        concl = _open_with(_with_kind(concl, pool, concl_score, states, paper), states)
    # The conclusion says what the steps did not: past its opening (the answer, wherever a step quoted it),
    # no sentence a step quoted; and a last step it answers in the same words is not said twice.
    if concl and len(by_step) >= 2 and by_step[-1][0] == len(lines) - 1 and any(s is concl[0] for s in by_step[-1][1]):
        lines.pop()  # the last step's answer opens the conclusion: the step is answered there
        said = by_step[-1][1]
        picked = [p for p in picked if all(p is not s for s in said)]
    concl = concl[:1] + [c for c in concl[1:] if all(c is not p for p in picked)]
    if concl:
        lines.append("")
        lines.append("**Conclusion:** " + quoted(concl))
        picked += [c for c in concl if all(c is not p for p in picked)]
    return "\n".join(lines), [s.text for s in picked]


def shown_steps(steps: list[str], question: str) -> list[str]:
    """The steps a chain's answer numbers: not a keyword search a replan ran for an asking step that found
    nothing ("TrustRank PageRank seed" after "How many good seeds did they keep?"). Its evidence is in the
    pool the steps and the conclusion read; as a step of its own it showed a list of stems as a heading.
    Such a search asks nothing, is not the question's own words (a context clause is), and follows an
    asking step (a plan's steps per name, "HERON: conclude training", come before the question's)."""
    said = " ".join(question.lower().split())
    return [s for i, s in enumerate(steps)
            if step_asks(s) or " ".join(s.lower().split()) in said or i == 0 or not step_asks(steps[i - 1])]


# a step whose auxiliary's subject is a pronoun ("What fraction … does it keep?") asks about what the
# step before found
_PRONOUN_SUBJECT = re.compile(r"\b(?:does|did|do|is|was|are|were|has|have|had|can|could|will|would)\s+(?:it|they)\b"
                              r"|它", re.I)


def follows(step: str) -> bool:
    """Whether a chain step asks about the thing the step before found, in its paper: its subject is a
    pronoun ("What fraction … does it keep?"). A step that points back by a noun ("that image method",
    :func:`~core.brains.offline.planner.points_back`) names another paper's thing: the step before's
    paper built on it, so it is not scoped to that paper."""
    return _PRONOUN_SUBJECT.search(step) is not None


def _step_best(pool: list[Sentence], step: str, vocab: Vocabulary) -> Sentence | None:
    """The sentence that best answers one step on its own (None when none carries its words)."""
    focus = step_terms(step)
    sp = profile(step, vocab=vocab)
    top = mmr([s for s in pool if len(focus & s.terms) >= min(2, len(focus))], lambda s: relevance(s, sp, focus), 1)
    return top[0] if top else None


def exploratory(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> tuple[str, list[str]]:
    """Themed sections (one per paper, or per stage/method in chronological order). With two themes
    or more, the answer opens with its direct answer (:func:`survey_lead`): each theme's best sentence
    under its name; its section below then holds the theme's further sentences."""
    themes = _themes(pool, prof, contexts)
    told: list[tuple[str, list[Sentence]]] = []  # (theme, its picks, best first), in order
    used: list[Sentence] = []
    contrast = [s for s in pool if sum(1 for t in themes if mentions(s.text, t, prof.vocab)) >= 2 and _CONTRAST.search(s.text)]
    paper = [short_title(c.title) for c in contexts]  # each context's paper, as a theme names it
    by_paper = set(themes) <= set(paper)
    if not by_paper:  # themes are methods, not the collection's papers
        pool = [s for s in pool if subject(s, prof.vocab) is None or subject(s, prof.vocab) in themes]  # drop asides about other methods
    contrast = [s for s in contrast if s in pool]
    rows = [row_sentences(c) for c in contexts]
    scorer.prime([prof.question, *(s.text for s in pool)])
    for theme in themes:
        own = [s for s in pool if paper[s.ctx] == theme]
        # a paper's section quotes that paper, whichever paper a sentence names first; a method's section
        # the sentences that name it first (else its own paper's, when it has one)
        members = [s for s in (own if by_paper else pool) if s not in contrast
                   and (by_paper or _theme_of(s, themes, contexts, prof.vocab) == theme)] or own
        if not prof.numeric:  # an overview is told in prose; a table's rows only where there is none
            members = [s for s in members if s.text not in rows[s.ctx]] or members
        picks = mmr(members, lambda s: relevance(s, prof), 3, min_ratio=0.3, exclude=used)
        if picks:
            used += picks
            told.append((theme, picks))
    compare = mmr([s for s in contrast if s not in used], lambda s: relevance(s, prof), 3, exclude=used)
    used += compare
    if len(told) >= 2:
        sections = [survey_lead(told, by_paper)] + [_section(theme, picks[1:]) for theme, picks in told if picks[1:]]
    else:
        sections = [_section(theme, picks) for theme, picks in told]
    if compare:
        sections.append(_section("How they compare", compare))
    if not sections:
        picks = mmr(pool, lambda s: relevance(s, prof), 4)
        used += picks
        sections.append(_section("Overview", picks))
    return "\n\n".join(sections), [s.text for s in used]


def _section(heading: str, picks: list[Sentence]) -> str:
    return f"### {heading}\n" + "\n".join(f"- {cited(s)}" for s in picks)


def survey_lead(told: list[tuple[str, list[Sentence]]], by_paper: bool) -> str:
    """A themed answer's first paragraph: a label line (no claim, so no marker), then each theme's
    best sentence under the theme's name, in the sections' order: which papers (or which methods)
    the evidence bears on, and what each says, before the details."""
    return "\n".join([OVERVIEW_PREFIXES[0 if by_paper else 1],
                      *(f"- **{theme}:** {cited(picks[0])}" for theme, picks in told)])


def _themes(pool: list[Sentence], prof: Profile, contexts: list[RetrievedContext]) -> list[str]:
    counts: dict[str, int] = {}
    for s in pool:
        for e in s.about:
            counts[e] = counts.get(e, 0) + 1
    themes = list(prof.entities)
    near = {r for e in prof.entities if lex_entity(e, prof.vocab) for r in lex_entity(e, prof.vocab).related}
    near |= {x.name for x in (lex_entity(n, prof.vocab) for n in counts) if x and set(x.related) & set(prof.entities)}
    for name, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])):
        if name in themes or n < 2:
            continue
        if prof.entities and name not in near:
            continue  # a method merely mentioned alongside is not a stage of this story
        themes.append(name)
    themes = themes[:5]
    if not prof.entities or prof.collection_wide or not _names_a_paper(prof.entities, contexts, prof.vocab):
        # A question about the collection ("what do these papers do about X"), or one that names only
        # things no paper here is about ("which papers report an AUC"): one theme per paper.
        return list(dict.fromkeys(short_title(contexts[i].title) for i in sorted({s.ctx for s in pool})
                                  if contexts[i].title))[:6] or themes
    year = lambda n: (ent.year if (ent := lex_entity(n, prof.vocab)) and ent.year else 9999)  # noqa: E731
    return sorted(themes, key=lambda n: (year(n), themes.index(n)))


def _names_a_paper(names: list[str], contexts: list[RetrievedContext], vocab: Vocabulary) -> bool:
    """Whether any of ``names`` is a paper among ``contexts`` (its title or file names it): a survey of
    methods ("from RLHF to DPO") is told method by method; a survey that names only a measure, a task
    or a term the papers share is told paper by paper. A name the vocabulary knows as a paper counts
    too, when its own paper is not among the evidence (a survey that reaches DPO through a paper
    that uses it)."""
    return any((ent := lex_entity(n, vocab)) is not None and ent.kind == "paper" for n in names) or any(
        is_document_of(c, n, vocab) for n in names for c in contexts)


def _theme_of(s: Sentence, themes: list[str], contexts: list[RetrievedContext], vocab: Vocabulary) -> str | None:
    firsts = []
    for t in themes:
        m = mention_pattern(t, vocab).search(s.text)
        if m:
            firsts.append((m.start(), t))
    if firsts:
        return min(firsts)[1]
    for t in themes:
        if attributed(s, t, contexts, vocab):
            return t
    return None
