"""Tool result shapes: output-schema models, citations, and the Markdown + References JSON text.

Every retrieval result is sent twice: as MCP ``structuredContent`` (validated against the tool's
output schema; citations carry the full chunk ``text``) and as text — a Markdown hit list followed
by the upstream server's machine-readable block (``**References (JSON):**`` + a fenced ```json
block with ``text_snippet`` instead of the full text), so clients written for either server work.
The batch search (:func:`batch_result`) is ours alone: each distinct chunk is cited once, and its
text is a short per-query list of chunk ids.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from core.hub.search import Hit
from core.hub.topics import Topic, TopicSet

SNIPPET_CHARS = 300


class CitationMeta(BaseModel):
    title: str
    chunk_index: int
    doc_type: str
    doc_id: str
    breadcrumb: str
    lexical_rank: int | None = None
    dense_rank: int | None = None
    dense_score: float | None = None
    # the document's own metadata, where known (a paper fetched with `ingest arxiv:ID`)
    authors: list[str] | None = None
    year: int | None = None
    url: str | None = None
    version: int | None = None  # the document version the chunk belongs to
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    citation_key: str | None = None


class VocabularyTerm(BaseModel):
    name: str
    aliases: list[str] = Field(default_factory=list)
    year: int = 0
    related: list[str] = Field(default_factory=list)
    case_sensitive: list[str] = Field(default_factory=list)
    kind: str = "method"
    paper: str = ""  # the title of the paper that introduces the name as its own


class VocabularyResult(BaseModel):
    collection: str
    revision: int | None = None
    unchanged: bool = False
    terms: list[VocabularyTerm] = Field(default_factory=list)


class Citation(BaseModel):
    index: int
    chunk_id: str
    source: str
    score: float
    text_snippet: str
    text: str
    page: int | None = None
    metadata: CitationMeta


class ResultMeta(BaseModel):
    query: str
    result_count: int
    collection: str
    mode: str | None = None


class SearchResult(BaseModel):
    """Hits of ``query_knowledge_hub`` or ``keyword_search``, best first."""

    citations: list[Citation]
    metadata: ResultMeta


class DocRef(BaseModel):
    doc_id: str
    title: str
    year: int | None = None  # its publication year, where known


class CollectionInfo(BaseModel):
    name: str
    document_count: int | None = None
    chunk_count: int | None = None
    embedded_chunks: int | None = None
    documents: list[DocRef] | None = None


class CollectionList(BaseModel):
    collections: list[CollectionInfo]


class VersionInfo(BaseModel):
    """One kept version of a document (see core.hub.versions)."""

    version: int
    created_at: str  # ISO datetime, local time (for people)
    chunk_count: int
    content_hash: str  # SHA-256 of the file
    current: bool = False
    created: float | None = None  # the same moment in epoch seconds (for programs: no time zone, no rounding)

    @classmethod
    def of(cls, row: dict, current: bool) -> VersionInfo:
        from datetime import datetime

        when = datetime.fromtimestamp(row["created_at"]).isoformat(timespec="seconds")
        return cls(version=row["version"], created_at=when, chunk_count=row["chunk_count"],
                   content_hash=row["file_hash"], current=current, created=float(row["created_at"]))


class DocumentSummary(BaseModel):
    doc_id: str
    collection: str
    title: str
    source: str
    doc_type: str
    version: int
    authors: list[str] = Field(default_factory=list)
    year: int | None = None
    pages: int | None = None
    chunk_count: int
    sections: list[str]
    summary: str
    url: str | None = None  # where the document came from (an arXiv abs page), when it was fetched
    # bibliographic metadata (core.hub.library.metadata): from a .bib or Zotero import, or arXiv
    venue: str | None = None
    doi: str | None = None
    arxiv_id: str | None = None
    citation_key: str | None = None
    tags: list[str] = Field(default_factory=list)
    source_kind: str | None = None  # zotero, bib, arxiv; None for a file ingested by path
    abstract_only: bool = False  # indexed from a library entry's abstract: no file was attached
    versions: list[VersionInfo] = Field(default_factory=list)  # kept versions, oldest first
    deleted: bool = False  # a watched file that was deleted: its versions stay queryable by number
    # sentences of the document that read like instructions to a model (core.memory.hygiene), at most 3:
    # the agent learns no fact from such a document
    instruction_like: list[str] = Field(default_factory=list)
    # a PDF's parsed reference list (label, authors, title, year, venue, doi, arxiv as found)
    references: list[dict] = Field(default_factory=list)


def library_line(s: DocumentSummary) -> str:
    """One Markdown line of a document's bibliographic metadata ("" when it has none)."""
    parts = [f"**Venue:** {s.venue}" if s.venue else "", f"**DOI:** {s.doi}" if s.doi else "",
             f"**arXiv:** {s.arxiv_id}" if s.arxiv_id else "", f"**Key:** `@{s.citation_key}`" if s.citation_key else "",
             f"**Tags:** {', '.join(s.tags)}" if s.tags else "",
             "abstract only (no file attached)" if s.abstract_only else ""]
    return " · ".join(p for p in parts if p)


class SectionNode(BaseModel):
    title: str
    breadcrumb: str
    depth: int
    pages: list[int] = Field(default_factory=list)
    chunk_ids: list[str] = Field(default_factory=list)
    children: list[SectionNode] = Field(default_factory=list)


class DocumentStructure(BaseModel):
    doc_id: str
    collection: str
    title: str
    root: SectionNode


class Neighbour(BaseModel):
    chunk_id: str
    breadcrumb: str
    page: int | None = None
    text_snippet: str


class NodeContent(BaseModel):
    chunk_id: str
    doc_id: str
    collection: str
    title: str
    source: str
    breadcrumb: str
    section_path: list[str]
    page: int | None = None
    position: int
    text: str
    previous: Neighbour | None = None
    next: Neighbour | None = None


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + "…"


def citation(index: int, hit: Hit, cls: type[Citation] | None = None) -> Citation:
    """``hit`` as a :class:`Citation`; as a :class:`BatchCitation` (no snippet) with ``cls``."""
    c = hit.chunk
    return (cls or Citation)(
        index=index, chunk_id=c.chunk_id, source=c.path, score=round(hit.score, 6),
        text_snippet=None if cls else snippet(c.text), text=c.text, page=c.page,
        metadata=CitationMeta(title=c.title, chunk_index=c.position, doc_type=c.doc_type, doc_id=c.doc_id,
                              breadcrumb=c.breadcrumb, lexical_rank=hit.lexical_rank, dense_rank=hit.dense_rank,
                              dense_score=None if hit.dense_score is None else round(hit.dense_score, 4),
                              authors=c.authors or None, year=c.year, url=c.url, version=c.version,
                              venue=c.venue, doi=c.doi, arxiv_id=c.arxiv_id, citation_key=c.citation_key))


def references_block(result: SearchResult) -> str:
    """The upstream-compatible machine-readable block (snippets, not full texts)."""
    data = result.model_dump(mode="json", exclude_none=True)
    for c in data["citations"]:
        c.pop("text", None)
    return "**References (JSON):**\n```json\n" + json.dumps(data, ensure_ascii=False, indent=2) + "\n```"


def search_markdown(result: SearchResult, heading: str) -> str:
    meta = result.metadata
    if not result.citations:
        return f"## No results\n\nNothing in collection `{meta.collection}` matches {heading}."
    lines = [f"## Results for {heading}", f"Collection `{meta.collection}` · {meta.result_count} hit(s)", ""]
    for c in result.citations:
        where = f" · page {c.page}" if c.page is not None else ""
        lines += [f"### [{c.index}] {c.metadata.breadcrumb or c.metadata.title}",
                  f"**Score:** {c.score:.4f} · **Source:** `{c.source}`{where} · **Chunk:** `{c.chunk_id}`",
                  "> " + c.text_snippet.replace("\n", " "), ""]
    return "\n".join(lines).rstrip()


def search_result(hits: list[Hit], query: str, collection: str, mode: str | None = None) -> CallToolResult:
    result = SearchResult(citations=[citation(i, h) for i, h in enumerate(hits, start=1)],
                          metadata=ResultMeta(query=query, result_count=len(hits), collection=collection, mode=mode))
    heading = f"“{query}”" + (f" ({mode} keyword match)" if mode else "")
    return CallToolResult(
        content=[TextContent(type="text", text=search_markdown(result, heading)),
                 TextContent(type="text", text=references_block(result))],
        structuredContent=result.model_dump(mode="json"))


class BatchHit(BaseModel):
    """One ranked hit of one query: a reference to its chunk's citation, with this query's score and ranks."""

    chunk_id: str
    score: float
    lexical_rank: int | None = None
    dense_rank: int | None = None
    dense_score: float | None = None


class BatchCitation(Citation):
    """A batch's citation: ``query_knowledge_hub``'s without the snippet (the full text is there)."""

    text_snippet: str | None = None  # type: ignore[assignment]


class BatchQuery(BaseModel):
    query: str
    result_count: int
    hits: list[BatchHit]


class BatchSearchResult(BaseModel):
    """``query_knowledge_hub_batch``: each query's hits, best first, as references into ``citations``,
    which cite each distinct chunk once (``query_knowledge_hub``'s citation; its index is its place in
    this list, its score and ranks are those of the chunk's first hit: each hit carries its own)."""

    collection: str
    queries: list[BatchQuery]
    citations: list[BatchCitation]


def batch_result(results: list[list[Hit]], queries: list[str], collection: str) -> CallToolResult:
    """Several queries' hits with each chunk cited once, and a short text: per query its ranked chunk ids."""
    cited: dict[str, Citation] = {}
    per_query = []
    for query, hits in zip(queries, results):
        refs = []
        for h in hits:
            if h.chunk.chunk_id not in cited:
                cited[h.chunk.chunk_id] = citation(len(cited) + 1, h, BatchCitation)
            refs.append(BatchHit(chunk_id=h.chunk.chunk_id, score=round(h.score, 6), lexical_rank=h.lexical_rank,
                                 dense_rank=h.dense_rank,
                                 dense_score=None if h.dense_score is None else round(h.dense_score, 4)))
        per_query.append(BatchQuery(query=query, result_count=len(refs), hits=refs))
    result = BatchSearchResult(collection=collection, queries=per_query, citations=list(cited.values()))
    lines = [f"## Results for {len(queries)} queries",
             f"Collection `{collection}` · {len(cited)} distinct chunk(s); full texts in the structured content", ""]
    for q in per_query:
        lines.append(f"### “{q.query}” · {q.result_count} hit(s)")
        lines += [f"{i}. `{r.chunk_id}` · {r.score:.4f} · {cited[r.chunk_id].metadata.breadcrumb}"
                  for i, r in enumerate(q.hits, start=1)]
        lines.append("")
    return structured(result, "\n".join(lines).rstrip(), exclude_none=True)  # a third fewer bytes to send and check


def structured(model: BaseModel, text: str, exclude_none: bool = False) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=text)],
                          structuredContent=model.model_dump(mode="json", exclude_none=exclude_none))


def as_dict(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(mode="json")


# -- topics (core.hub.topics) -----------------------------------------------------------------------
class TopicDocument(BaseModel):
    doc_id: str
    title: str
    score: float  # cosine of the document to the topic's centroid
    source: str | None = None


class TopicInfo(BaseModel):
    topic_id: str
    label: str
    name: str | None = None  # a human name given through name_topics; null: the label names it
    keyphrases: list[str]
    document_count: int
    documents: list[TopicDocument] = Field(default_factory=list)


class TopicList(BaseModel):
    """``list_topics``: the collection's topics, largest first, at its revision."""

    collection: str
    revision: int | None = None
    topics: list[TopicInfo]


class TopicDocuments(BaseModel):
    """``get_topic_documents``: one topic and its documents, best first."""

    collection: str
    revision: int | None = None
    topic: TopicInfo


def _topic_info(t: Topic, docs: dict[str, dict]) -> TopicInfo:
    return TopicInfo(topic_id=t.topic_id, label=t.label, name=t.name or None, keyphrases=t.keyphrases,
                     document_count=len(t.documents),
                     documents=[TopicDocument(doc_id=d, title=docs.get(d, {}).get("title", d), score=s,
                                              source=docs.get(d, {}).get("path")) for d, s in t.documents])


def topic_list(ts: TopicSet, docs: dict[str, dict]) -> TopicList:
    return TopicList(collection=ts.collection, revision=ts.revision, topics=[_topic_info(t, docs) for t in ts.topics])


def topic_documents(ts: TopicSet, topic: Topic, docs: dict[str, dict]) -> TopicDocuments:
    return TopicDocuments(collection=ts.collection, revision=ts.revision, topic=_topic_info(topic, docs))


def topics_markdown(res: TopicList) -> str:
    if not res.topics:
        return f"## No topics\n\nCollection `{res.collection}` has no embedded documents yet."
    lines = [f"## Topics of `{res.collection}`", f"Revision {res.revision} · {len(res.topics)} topic(s)", ""]
    for t in res.topics:
        named = f"**{t.name}** (`{t.topic_id}`, {t.label})" if t.name else f"**{t.label}** (`{t.topic_id}`)"
        lines.append(f"- {named} — {t.document_count} document(s) · {', '.join(t.keyphrases)}")
        lines += [f"  - {d.title} (`{d.doc_id}`)" for d in t.documents]
    return "\n".join(lines)


def topic_documents_markdown(res: TopicDocuments) -> str:
    t = res.topic
    lines = [f"## Topic {t.name or t.label} (`{t.topic_id}`" + (f", {t.label})" if t.name else ")"), f"Collection `{res.collection}` · {t.document_count} document(s)"
             f" · {', '.join(t.keyphrases)}", ""]
    lines += [f"- {d.title} (`{d.doc_id}`) — **Score:** {d.score:.4f}" + (f" · **Source:** `{d.source}`" if d.source else "")
              for d in t.documents]
    return "\n".join(lines)
