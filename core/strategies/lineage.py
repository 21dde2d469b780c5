"""A lineage answer for the exploratory strategy: "trace how X evolved" answered from the library's
citation graph (the hub's ``get_lineage``, :mod:`core.hub.lineage`) instead of text retrieval alone.

Each step of the answer is a paper of the library with its year, oldest first, cited by a passage of
it on the topic; a step that cites an earlier step quotes the sentence that cites it, cited by the
chunk that holds that sentence ("B cites A: “…” [k]"). A step's year is a heading above it: a year
written into the step would be a number its passage must show for the citation to stand. Only papers joined to another by a cite edge
are steps: a paper the search found but that neither cites nor is cited by the others is not part
of a line of work. A hub without ``get_lineage`` (an upstream server), a question that does not ask
how something developed over time, or a graph with no edge among the topic's papers leaves the
question to the ReAct loop.
"""

from __future__ import annotations

import re
from typing import Any

from core.text import LETTER_WORD, split_sentences
from core.types import RetrievedContext

# a question that asks how something developed over time (a kind of question, not a topic)
_ASKS_LINEAGE = re.compile(
    r"\b(?:evolv\w*|evolution|lineage|trace\b|traced|history of|timeline|progress(?:ed|ion)|developed over|"
    r"develop(?:ed|ment) (?:over|through) time|over the years)", re.I)
LEAD_CHARS = 240
MIN_PAPERS = 2


def asks_for_lineage(question: str) -> bool:
    """Whether ``question`` asks how a line of work developed ("trace how…", "how did … evolve")."""
    return bool(_ASKS_LINEAGE.search(question or ""))


async def lineage_answer(hub: Any, question: str, collection: str) -> tuple[str, list[RetrievedContext]] | None:
    """The answer and its numbered sources, or None when the hub or its graph cannot give one."""
    get = getattr(hub, "get_lineage", None)
    if get is None or not asks_for_lineage(question):
        return None
    from core.tools.hub_client import ToolError

    try:
        res = await get(topic=question, collection=collection)
    except ToolError:  # a hub without the tool, or one that refused: the ReAct loop answers
        return None
    data = res.structured if isinstance(res.structured, dict) else {}
    return compose(data.get("result", data), question)


def compose(lineage: dict, question: str) -> tuple[str, list[RetrievedContext]] | None:
    """A ``get_lineage`` result as a year-ordered answer whose steps cite their papers (see the module)."""
    papers = [p for p in lineage.get("papers") or [] if isinstance(p, dict) and p.get("doc_id")]
    edges = [e for e in lineage.get("edges") or [] if isinstance(e, dict)]
    linked = {e.get("citing") for e in edges} | {e.get("cited") for e in edges}
    steps = [p for p in papers if p["doc_id"] in linked and p.get("year")]
    if len(steps) < MIN_PAPERS:
        return None
    by_id = {p["doc_id"]: p for p in steps}
    terms = _terms(question)
    contexts: list[RetrievedContext] = []

    def cite(chunk_id: str, content: str, paper: dict) -> int:
        for i, c in enumerate(contexts, 1):
            if c.chunk_id == chunk_id:
                return i
        contexts.append(RetrievedContext(
            content=content, chunk_id=chunk_id or f"{paper['doc_id']}_lineage", doc_id=paper["doc_id"],
            title=paper.get("title") or "", source=paper.get("source") or "", breadcrumb=paper.get("breadcrumb") or "",
            page=paper.get("page"), query=question))
        return len(contexts)

    first, last = steps[0]["year"], steps[-1]["year"]
    lines = [f"### {len(steps)} papers of the library, {first} → {last}, oldest first", ""]
    for i, p in enumerate(steps, 1):
        n = cite(p.get("chunk_id") or "", p.get("passage") or "", p)
        quoted = {" ".join(str(e.get("sentence") or "").split()) for e in edges if e.get("citing") == p["doc_id"]}
        lead = _lead(p.get("passage") or "", terms, quoted)
        lines += [f"#### {p['year']}", f"{i}. **{p['title']}**" + (f": {lead}" if lead else "") + f" [{n}]"]
        for e in edges:
            if e.get("citing") != p["doc_id"] or (cited := by_id.get(e.get("cited"))) is None:
                continue
            if e.get("sentence") and e.get("chunk_id"):
                k = cite(e["chunk_id"], e["sentence"], p)
                lines.append(f"   - It cites *{cited['title']}*: “{e['sentence']}” [{k}]")
            else:
                lines.append(f"   - Its reference list cites *{cited['title']}*.")
    return "\n".join(lines), contexts


def _lead(passage: str, terms: set[str], quoted: set[str]) -> str:
    """The passage's sentence that shares the most words with the question (the first on a tie),
    other than a sentence the step quotes below it; "" when none shares a word."""
    sents = [s for s in split_sentences(" ".join(passage.split())) if s not in quoted]
    scored = [(len(terms & _terms(s)), -i, s) for i, s in enumerate(sents)]
    if not scored or max(scored)[0] == 0:
        return ""
    best = max(scored)[2]
    return best if len(best) <= LEAD_CHARS else best[: LEAD_CHARS - 1].rstrip() + "…"


def _terms(text: str) -> set[str]:
    """The words of four letters or more that ``text`` and a passage's sentence can share."""
    return {w for w in LETTER_WORD.findall(text.lower()) if len(w) >= 4}
