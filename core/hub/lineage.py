"""``get_citations`` and ``get_lineage``: a document's place in the library's citation graph, and
the papers on a topic ordered by year with the cite edges among them (:mod:`core.hub.citegraph`).

A lineage's papers are the documents a hybrid search of the topic ranks first (one per document,
its best chunk inside a section kept as the paper's passage), or a topic's documents (an id or label from
``list_topics``), or the given ``doc_ids``; a document that at least two of those papers cite is
added too (the line's origin is often cited by every later step without being about the topic's
words). Papers without a year come last.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from core.hub import citegraph
from core.hub.search import Hit

MAX_PAPERS = 8
SEARCH_HITS = 20


class CitedPaper(BaseModel):
    """The other end of one edge, with what the edge knows."""

    doc_id: str
    title: str
    year: int | None = None
    confidence: float
    how: str = Field(description="doi, arxiv, title, title_in_entry or title_words: what the match rests on")
    reference: str = Field(description="the citing paper's reference entry")
    sentence: str = Field("", description="the citing paper's sentence that cites it, when found")
    chunk_id: str = Field("", description="the chunk holding that sentence")


class CitationsResult(BaseModel):
    doc_id: str
    collection: str
    title: str
    year: int | None = None
    references_parsed: int = 0
    cites: list[CitedPaper] = Field(default_factory=list)
    cited_by: list[CitedPaper] = Field(default_factory=list)


class LineagePaper(BaseModel):
    doc_id: str
    title: str
    year: int | None = None
    authors: list[str] = Field(default_factory=list)
    chunk_id: str = Field("", description="a passage of the paper on the topic (its best hit)")
    passage: str = ""
    breadcrumb: str = ""
    page: int | None = None
    source: str = ""


LineageEdge = citegraph.Edge  # one definition of an edge, in the store's module


class LineageResult(BaseModel):
    collection: str
    topic: str = ""
    papers: list[LineagePaper] = Field(default_factory=list, description="oldest first")
    edges: list[LineageEdge] = Field(default_factory=list, description="citing -> cited, among the papers")


def citations(store, collection: str, doc: dict) -> CitationsResult:
    """What ``doc`` cites in the library and what cites it, most certain first."""
    citegraph.current(store, collection)
    docs = {d["doc_id"]: d for d in store.documents(collection)}
    out = CitationsResult(doc_id=doc["doc_id"], collection=collection, title=doc["title"], year=doc.get("year"),
                          references_parsed=len(_refs(store, doc["doc_id"])))
    for e in citegraph.edges_of(store, collection, [doc["doc_id"]]):
        other = e.cited if e.citing == doc["doc_id"] else e.citing
        if other not in docs:
            continue
        paper = CitedPaper(doc_id=other, title=docs[other]["title"], year=docs[other].get("year"),
                           confidence=e.confidence, how=e.how, reference=e.reference, sentence=e.sentence,
                           chunk_id=e.chunk_id)
        (out.cites if e.citing == doc["doc_id"] else out.cited_by).append(paper)
    for group in (out.cites, out.cited_by):
        group.sort(key=lambda p: (-p.confidence, p.year or 9999, p.title))
    return out


def lineage(store, collection: str, topic: str, chosen: list[str], hits: list[Hit]) -> LineageResult:
    """The lineage of ``chosen`` documents (in this order of preference) or of ``hits``' documents."""
    citegraph.current(store, collection)
    docs = {d["doc_id"]: d for d in store.documents(collection)}
    best: dict[str, Hit] = {}
    for h in hits:  # a paper's passage: its best hit inside a section (the root chunk is its front matter)
        if h.chunk.doc_id in docs and (h.chunk.doc_id not in best or _front(best[h.chunk.doc_id].chunk)
                                       and not _front(h.chunk)):
            best[h.chunk.doc_id] = h
    picked = [d for d in dict.fromkeys(chosen or list(best)) if d in docs][:MAX_PAPERS]
    edges = citegraph.edges_of(store, collection, picked) if picked else []
    counts: dict[str, int] = {}
    for e in edges:
        if e.citing in picked and e.cited not in picked:
            counts[e.cited] = counts.get(e.cited, 0) + 1
    picked += [d for d, n in sorted(counts.items(), key=lambda kv: -kv[1]) if n >= 2 and d in docs][
        : max(0, MAX_PAPERS + 2 - len(picked))]
    keep = set(picked)
    papers = [_paper(docs[d], best.get(d), store) for d in picked]
    papers.sort(key=lambda p: (p.year is None, p.year or 0, p.title.lower()))
    return LineageResult(collection=collection, topic=topic, papers=papers, edges=[
        e for e in edges if e.citing in keep and e.cited in keep])


def _front(chunk) -> bool:
    """A chunk at the document's root (a PDF's title block and authors), not inside a section."""
    return len(chunk.section_path) < 2


def _paper(doc: dict, hit: Hit | None, store) -> LineagePaper:
    chunks = store.doc_chunks(doc["doc_id"])
    chunk = hit.chunk if hit is not None else next((c for c in chunks if not _front(c)), chunks[0] if chunks else None)
    return LineagePaper(doc_id=doc["doc_id"], title=doc["title"], year=doc.get("year"), authors=doc.get("authors") or [],
                        chunk_id=chunk.chunk_id if chunk else "", passage=chunk.text if chunk else "",
                        breadcrumb=chunk.breadcrumb if chunk else "", page=chunk.page if chunk else None,
                        source=doc.get("path") or "")


def _refs(store, doc_id: str) -> list:
    import json

    return json.loads(store.get_meta(f"references:{doc_id}") or "[]")


def citations_markdown(res: CitationsResult) -> str:
    def line(p: CitedPaper) -> str:
        said = f' — "{p.sentence}"' if p.sentence else ""
        return f"- {p.title}" + (f" ({p.year})" if p.year else "") + f" `{p.doc_id}` · {p.confidence:.2f} {p.how}{said}"

    return "\n".join([f"## Citations of {res.title} (`{res.doc_id}`)",
                      f"{res.references_parsed} reference entries parsed", "", "**Cites:**",
                      *([line(p) for p in res.cites] or ["- none in the library"]), "", "**Cited by:**",
                      *([line(p) for p in res.cited_by] or ["- none in the library"])])


def lineage_markdown(res: LineageResult) -> str:
    titles = {p.doc_id: p.title for p in res.papers}
    lines = [f"## Lineage: {res.topic}" if res.topic else "## Lineage"]
    lines += [f"{i}. {p.year or '?'} · {p.title} (`{p.doc_id}`)" for i, p in enumerate(res.papers, 1)]
    if res.edges:
        lines += ["", "**Cite edges:**"]
        lines += [f"- {titles[e.citing]} → {titles[e.cited]} ({e.confidence:.2f})" for e in res.edges]
    return "\n".join(lines)
