"""A library answer: a question about the library itself ("What papers do I have?", "Give me an
overview of the collection", "这个知识库里有哪些论文？", :attr:`~core.brains.offline.evidence.Profile.library`)
answered from the hub's list of the collection's documents, not by a search of their text.

Each paper (at most :data:`LIBRARY_PAPERS`, by title, or by year when the question asks for the oldest
or newest: "Which paper in my library is the oldest?") is one bullet: its title, its year when the hub
knows it, and the first sentence of its abstract, cited by the abstract's chunk (found as a question
about one paper's gist finds it, :func:`abstract_chunks`). A search of the question's words would
instead quote whichever chunks say "papers" or "documents". The papers not listed are named (or, when
many, counted) in a closing heading; a paper with no summary gives its place to the next. A turn
scoped to one document or to a topic (whose clause the question's words would have to be read
without), a hub that cannot list its documents or search one of them (an upstream server), or a
collection none of whose papers has a summary leaves the question to the strategy's usual path.
"""

from __future__ import annotations

import asyncio
import re

from core.brains.offline.evidence import library_form, library_order, library_owned, profile
from core.nodes.common import AgentContext, document_summary, hub_takes, retrieve, topic_of
from core.state import AgentState
from core.text import split_sentences
from core.types import RetrievedContext

LIBRARY_PAPERS = 12  # papers listed with their gist; the others are named or counted
LEAD_CHARS = 300
MORE_TITLES = 10  # the papers not listed are named by title up to this many, else counted
LOOKED_AT = 2 * LIBRARY_PAPERS  # papers whose abstract is looked for, when some have none


async def library_answer(ctx: AgentContext, state: AgentState) -> tuple[str, list[RetrievedContext]] | None:
    """The answer and its numbered sources, or None when the question or the hub is not for one."""
    if ctx.doc_id or topic_of(state) or not library_form(state.question) or not hub_takes(ctx.hub, "doc_id"):
        return None
    # the question as typed: a follow-up's rewrite names the previous turn's paper, and the library needs
    # none; but a follow-up's "the papers" may be the previous answer's, so it must own them ("my papers")
    if not profile(state.question, None, vocab=ctx.vocabulary).library:
        return None
    if state.intent is not None and state.intent.type == "follow_up" and not library_owned(state.question):
        return None
    papers = await _papers(ctx)
    if not papers:
        return None
    dated = sum(1 for _, _, year in papers if year)
    order = library_order(state.question) if dated >= 2 else ""  # an order of one year is no order
    papers.sort(key=lambda p: p[1].casefold())
    if order:  # by year, the papers whose year the hub knows first, by title within a year
        papers.sort(key=lambda p: (p[2] is None, (-(p[2] or 0) if order == "newest" else (p[2] or 0))))
    contexts: list[RetrievedContext] = []
    tried = 0  # a paper with no summary gives its place to the next, up to LOOKED_AT papers in all
    while len(contexts) < LIBRARY_PAPERS and tried < min(len(papers), LOOKED_AT):
        batch = papers[tried:min(tried + LIBRARY_PAPERS - len(contexts), LOOKED_AT)]
        tried += len(batch)
        found = await asyncio.gather(*(abstract_chunks(ctx, doc, 1) for doc, _, _ in batch))
        contexts += [chunks[0] for chunks in found if chunks]
    if not contexts:
        return None
    listed = {c.doc_id for c in contexts}
    rest = [title for doc, title, _ in papers if doc not in listed]
    return compose(contexts, rest, order, undated=len(papers) - dated if order else 0), contexts


async def abstract_chunks(ctx: AgentContext, doc: str, top_k: int) -> list[RetrievedContext]:
    """The first ``top_k`` chunks of ``doc``'s abstract: a search of that document for the first
    sentence of the summary the hub keeps for it; [] when the hub has none or cannot give it."""
    summary = str((await document_summary(ctx, doc) or {}).get("summary") or "")
    first = next(iter(split_sentences(summary)), "").strip()
    return await retrieve(ctx, first, top_k=top_k, doc_id=doc) if first else []


async def _papers(ctx: AgentContext) -> list[tuple[str, str, int | None]]:
    """(doc_id, title, year) of the collection's documents; [] when the hub cannot say."""
    from core.tools.hub_client import ToolError

    try:
        res = await ctx.hub.list_collections()
    except (ToolError, AttributeError):  # a hub without the tool (an upstream server), or one that refused
        return []
    data = res.structured if isinstance(res.structured, dict) else {}
    colls = (data.get("result", data) or {}).get("collections") or []
    docs = next((c.get("documents") or [] for c in colls if c.get("name") == ctx.collection), [])
    return [(d["doc_id"], d.get("title") or d["doc_id"], d.get("year") if isinstance(d.get("year"), int) else None)
            for d in docs if isinstance(d, dict) and d.get("doc_id")]


def compose(contexts: list[RetrievedContext], rest: list[str], order: str = "", undated: int = 0) -> str:
    """One cited bullet per paper (the abstract's first sentence), under a heading that counts them and
    says their order (by title, or by year: ``order`` "oldest" or "newest" first, the ``undated`` papers
    last); the titles of the ``rest`` (papers not listed) in a closing heading, or their number when many."""
    where, total = "the collection", len(contexts) + len(rest)
    by = f", {order} first" if order else ", by title" if rest else ""
    by += f" ({undated} with no year last)" if undated else ""
    head = (f"### The one paper of {where}" if total == 1 else f"### The {total} papers of {where}{by}" if not rest
            else f"### {len(contexts)} of the {total} papers of {where}{by}")
    lines = [head, ""]
    for n, c in enumerate(contexts, 1):
        year = f" ({c.meta.year})" if c.meta is not None and c.meta.year else ""
        lead = _lead(c.content)
        lines.append(f"- **{c.title or c.doc_id}**{year}" + (f": {lead}" if lead else "") + f" [{n}]")
    if rest:
        lines += ["", f"#### Also here: {'; '.join(rest)}" if len(rest) <= MORE_TITLES else
                  f"#### {len(rest)} more not listed here: ask about their topic, or type @ in the app to pick one by title"]
    return "\n".join(lines)


# a paper's own bracket citations ("[2]", "[2, 3]", "[4-6]"), which would read as this answer's markers
_OWN_CITATION = re.compile(r"\[(\d+(?:\s*[,–-]\s*\d+)*)\]")


def _lead(text: str) -> str:
    """The chunk's first sentence, cut to :data:`LEAD_CHARS`; the paper's own bracket citations read
    "[ref 2, 3]", as the PDF reader writes them, not as this answer's markers."""
    first = next(iter(split_sentences(" ".join(_OWN_CITATION.sub(r"[ref \1]", text).split()))), "")
    return first if len(first) <= LEAD_CHARS else first[: LEAD_CHARS - 1].rstrip() + "…"
