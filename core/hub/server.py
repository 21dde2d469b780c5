"""The knowledge hub as an MCP server (official ``mcp`` SDK, FastMCP).

Tools: ``query_knowledge_hub``, ``list_collections`` and ``get_document_summary`` (the upstream
contract), ``query_knowledge_hub_batch`` (several queries in one call, each chunk cited once), the DropQA browsing tools ``keyword_search``, ``get_document_structure`` and
``get_node_content``, ``remove_document``, ``get_vocabulary``, ``list_topics``, ``get_topic_documents`` and ``name_topics`` (:mod:`core.hub.topics`),
``get_citations`` and ``get_lineage`` (:mod:`core.hub.lineage`) and ``hub_status`` (start-up progress). Each returns ``structuredContent`` matching its output schema and a text
rendering; search results end with the upstream ``**References (JSON):**`` block. Bad arguments,
unknown collections and unknown ids are ``isError=true``; no hits is an empty, successful result.

Over HTTP the server stays bounded: a session with no request in flight and no open stream for
SESSION_IDLE_S (a client that was killed: a live client keeps its GET stream open) is dropped, at
most MAX_SESSIONS are open at once and at most PER_CLIENT_SESSIONS of them per client
(:mod:`core.hub.sessions`; another gets 503), and at most WORKERS tool calls run their
blocking work at a time (every extra worker thread keeps its own malloc arena). SDKs without an
idle timeout serve statelessly instead: nothing is kept between requests. A request body over
2 x ``limits.request_bytes`` + 64 kB gets 413; with a ``token_verifier`` (:mod:`core.hub.auth`) every
request needs its bearer token (401 otherwise).
"""

from __future__ import annotations

import functools
import inspect
from typing import Annotated, Any
from collections.abc import Callable

import anyio
from mcp.server.fastmcp import FastMCP
from mcp.types import CallToolResult
from pydantic import Field

from core.errors import BACKEND_FAULT
from core.hub import lineage, render
from core.hub.removal import RemovedDocument
from core.hub.service import MAX_BATCH, Hub, HubError
from core.limits import LimitExceeded, arguments_size

INSTRUCTIONS = (
    "PaperPilot knowledge hub: hybrid (BM25 + MiniLM) retrieval over AI/ML paper notes and your "
    "ingested documents. Start with query_knowledge_hub; read around a hit with get_node_content, "
    "get_document_structure and get_document_summary; use keyword_search for exact names and numbers."
)

TopK = Annotated[int, Field(description="number of hits, 1..20", json_schema_extra={"minimum": 1, "maximum": 20})]
SESSION_IDLE_S = 60.0
MAX_SESSIONS = 64
PER_CLIENT_SESSIONS = 32  # one client holds at most half: the others keep room
WORKERS = 4

Coll = Annotated[str, Field(description="collection name (see list_collections)")]
Version = Annotated[int | None, Field(description="search this version of each document (see get_document_summary)")]
AsOf = Annotated[str | None, Field(description="search what was current at this ISO date or datetime")]
DocScope = Annotated[str | None, Field(description="search only this document")]
Topic = Annotated[str | None, Field(description="search only this topic's documents (an id or label from list_topics)")]
PerDoc = Annotated[int | None, Field(description="at most this many hits from any one document (1..20): which "
                                                 "documents bear on the query, each by its best chunks",
                                     json_schema_extra={"minimum": 1, "maximum": 20})]
Queries = Annotated[list[str], Field(description=f"the queries, 1..{MAX_BATCH}",
                                     json_schema_extra={"minItems": 1, "maxItems": MAX_BATCH})]


async def _run(fn: Callable[..., Any], *args: Any, limiter: anyio.CapacityLimiter | None = None) -> Any:
    """Run blocking hub work off the event loop; HubError becomes a clean tool error, any other
    failure a tool error marked as the backend's (BACKEND_FAULT), which the client reports as one."""
    try:
        return await anyio.to_thread.run_sync(functools.partial(fn, *args), limiter=limiter)
    except HubError as exc:
        raise ValueError(str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - the store or the index failed, not the request
        lines = str(exc).strip().splitlines()
        raise RuntimeError(f"{BACKEND_FAULT}: {type(exc).__name__}" + (f": {lines[0]}" if lines else "")) from None


def http_bounds() -> dict[str, Any]:
    """FastMCP settings that drop abandoned HTTP sessions, for the installed SDK."""
    accepted = inspect.signature(FastMCP.__init__).parameters
    if "session_idle_timeout" in accepted:
        return {"session_idle_timeout": SESSION_IDLE_S} | (
            {"max_sessions": MAX_SESSIONS} if "max_sessions" in accepted else {})
    return {"stateless_http": True}


class HubServer(FastMCP):
    """FastMCP whose streamable HTTP app caps the sessions each client holds."""

    def streamable_http_app(self) -> Any:
        from core.hub.sessions import SessionQuota

        return SessionQuota(super().streamable_http_app(), PER_CLIENT_SESSIONS, SESSION_IDLE_S)


def build_server(hub: Hub, host: str = "127.0.0.1", port: int = 8000, request_bytes: int | None = None,
                 token_verifier: Any = None) -> FastMCP:
    """The MCP server over ``hub``. A tool call whose string arguments exceed ``request_bytes``
    (``limits.request_bytes``; default its default) is refused with a tool error before any work."""
    if request_bytes is None:
        from core.config import LimitsSettings

        request_bytes = LimitsSettings().request_bytes
    from core.hub.auth import auth_options

    body = {"max_request_body_size": 2 * request_bytes + 65_536} \
        if "max_request_body_size" in inspect.signature(FastMCP.__init__).parameters else {}
    mcp = HubServer("paperpilot-hub", instructions=INSTRUCTIONS, host=host, port=port, log_level="WARNING",
                  **http_bounds(), **body, **auth_options(token_verifier, host, port))
    workers: list[anyio.CapacityLimiter] = []  # made in the server's own event loop, on first use

    async def run(fn: Callable[..., Any], *args: Any) -> Any:
        size = arguments_size(args)
        if size > request_bytes:
            raise ValueError(str(LimitExceeded("this tool call", size, request_bytes, "request_bytes", "bytes")))
        if not workers:
            workers.append(anyio.CapacityLimiter(WORKERS))
        return await _run(fn, *args, limiter=workers[0])

    @mcp.tool(description="Hybrid search (BM25 + dense, reciprocal-rank fusion) of one collection's current "
                          "documents, or of an older version (version=N) or the state at a date (as_of), "
                          "optionally of one document (doc_id) or one topic's documents (topic), or at most "
                          "per_doc hits of any one document. Returns cited chunks with breadcrumb, page and "
                          "full text.")
    async def query_knowledge_hub(query: str, top_k: TopK = 5, collection: Coll = "default",
                                  version: Version = None, as_of: AsOf = None, doc_id: DocScope = None,
                                  topic: Topic = None,
                                  per_doc: PerDoc = None) -> Annotated[CallToolResult, render.SearchResult]:
        hits = await run(hub.query, query, top_k, collection, version, as_of, doc_id, topic, per_doc)
        return render.search_result(hits, query, collection)

    @mcp.tool(description="query_knowledge_hub for several queries at once (1..32, the same arguments for all): "
                          "each query's ranked hits (chunk_id, score, ranks) and each distinct chunk's citation "
                          "once. Cheaper than one call per query.")
    async def query_knowledge_hub_batch(queries: Queries, top_k: TopK = 5, collection: Coll = "default",
                                        version: Version = None, as_of: AsOf = None, doc_id: DocScope = None,
                                        topic: Topic = None,
                                        per_doc: PerDoc = None) -> Annotated[CallToolResult, render.BatchSearchResult]:
        results = await run(hub.query_many, queries, top_k, collection, version, as_of, doc_id, topic, per_doc)
        return render.batch_result(results, [q.strip() for q in queries], collection)

    @mcp.tool(description="List collections; with include_stats, document/chunk counts and document titles.")
    async def list_collections(include_stats: bool = True) -> Annotated[CallToolResult, render.CollectionList]:
        res: render.CollectionList = await run(hub.list_collections, include_stats)
        lines = ["## Collections"]
        for c in res.collections:
            stats = f" — {c.document_count} documents, {c.chunk_count} chunks" if include_stats else ""
            lines.append(f"- `{c.name}`{stats}")
            for d in c.documents or []:
                lines.append(f"  - {d.title} (`{d.doc_id}`)")
        return render.structured(res, "\n".join(lines))

    @mcp.tool(description="Names the collection uses (document title heads, defined acronyms with their long "
                          "forms, repeated headings and name-shaped terms), with the collection's revision. "
                          "With since_revision equal to the current revision, answers unchanged=true only.")
    async def get_vocabulary(collection: Coll = "default", since_revision: int | None = None) -> Annotated[
            CallToolResult, render.VocabularyResult]:
        v: render.VocabularyResult = await run(hub.vocabulary, collection, since_revision)
        text = (f"Vocabulary of `{v.collection}` (revision {v.revision}): "
                + ("unchanged" if v.unchanged else ", ".join(t.name for t in v.terms)))
        return render.structured(v, text)

    @mcp.tool(description="Topics of a collection: clusters of its documents labelled by keyphrases (c-TF-IDF), "
                          "with each topic's id, label, keyphrases, document count and documents.")
    async def list_topics(collection: Coll = "default") -> Annotated[CallToolResult, render.TopicList]:
        res: render.TopicList = await run(hub.list_topics, collection)
        return render.structured(res, render.topics_markdown(res))

    @mcp.tool(description="The documents of one topic (its id or label from list_topics) with their scores, "
                          "best first. query_knowledge_hub(topic=...) searches only these documents.")
    async def get_topic_documents(topic: str, collection: Coll = "default") -> Annotated[
            CallToolResult, render.TopicDocuments]:
        res: render.TopicDocuments = await run(hub.topic_documents, topic, collection)
        return render.structured(res, render.topic_documents_markdown(res))

    @mcp.tool(description="Give topics human names (names: topic id -> name, at most 80 characters; \"\" clears "
                          "one). A name stays while the topic has the same documents; list_topics returns it "
                          "as name beside the keyphrase label.")
    async def name_topics(names: dict[str, str], collection: Coll = "default") -> Annotated[
            CallToolResult, render.TopicList]:
        res: render.TopicList = await run(hub.name_topics, names, collection)
        return render.structured(res, render.topics_markdown(res))

    @mcp.tool(description="The citation graph around one document of the library: the documents it cites and "
                          "the documents citing it, each with a confidence, what the match rests on (doi, arxiv, "
                          "title...), the reference entry and the citing sentence where the text shows it.")
    async def get_citations(doc_id: str, collection: Coll = "default") -> Annotated[
            CallToolResult, lineage.CitationsResult]:
        res: lineage.CitationsResult = await run(hub.citations, doc_id, collection)
        return render.structured(res, lineage.citations_markdown(res))

    @mcp.tool(description="The lineage of a topic in the library: the papers on it (or the given doc_ids) ordered "
                          "by year, each with a passage on the topic, and the cite edges among them (citing -> "
                          "cited, confidence, citing sentence). Give topic or doc_ids.")
    async def get_lineage(topic: str | None = None, doc_ids: list[str] | None = None,
                          collection: Coll = "default") -> Annotated[CallToolResult, lineage.LineageResult]:
        res: lineage.LineageResult = await run(hub.lineage, topic, doc_ids, collection)
        return render.structured(res, lineage.lineage_markdown(res))

    @mcp.tool(description="Start-up progress: phase (indexing, embedding, warming, ready, failed) and, while "
                          "embedding, done of total chunks. Queries are fast once the phase is ready.")
    async def hub_status() -> dict[str, Any]:
        return hub.status()

    @mcp.tool(description="Title, source, authors/year, venue/DOI/arXiv id/citation key, pages, sections, a short summary and the kept versions "
                          "(number, date, chunk count, content hash) of one document, and its sentences that read "
                          "like instructions to a model, if any, and a PDF's parsed reference list. "
                          "doc_id may also be a chunk_id of that document.")
    async def get_document_summary(doc_id: str, collection: Coll = "default") -> Annotated[
            CallToolResult, render.DocumentSummary]:
        s: render.DocumentSummary = await run(hub.summary, doc_id, collection)
        by = ", ".join(s.authors) + (f" ({s.year})" if s.year else "") if s.authors or s.year else ""
        text = "\n".join(filter(None, [
            f"## {s.title}", f"**Document:** `{s.doc_id}` · **Source:** `{s.source}` · version {s.version}",
            f"**Authors:** {by}" if by else "", render.library_line(s), f"**Pages:** {s.pages}" if s.pages else "",
            "", s.summary, "", "**Sections:**", *[f"- {x}" for x in s.sections],
            "", "**Versions:**" if s.versions else "",
            *[f"- v{v.version} · {v.created_at} · {v.chunk_count} chunks · sha256 {v.content_hash[:12]}"
              + (" · current" if v.current else "") for v in s.versions],
            f"**Reads like instructions:** {len(s.instruction_like)} sentence(s)" if s.instruction_like else "",
            f"**References:** {len(s.references)} entries" if s.references else ""]))
        return render.structured(s, text)

    @mcp.tool(description="Remove one document (its exact doc_id) from a collection: its chunks, vectors and "
                          "keyword-index entries go with it, every kept version too. Not undoable: ingest the "
                          "file again to bring it back.")
    async def remove_document(doc_id: str, collection: Coll = "default") -> Annotated[
            CallToolResult, RemovedDocument]:
        r: RemovedDocument = await run(hub.remove_document, doc_id, collection)
        return render.structured(r, f"Removed `{r.doc_id}` ({r.title}) from `{r.collection}`: {r.chunk_count} chunks; "
                                    f"{r.document_count} documents left.")

    @mcp.tool(description="Exact (every keyword verbatim, case-insensitive) or fuzzy (any keyword, "
                          "prefix- and typo-tolerant) keyword search for names, numbers and terms.")
    async def keyword_search(keywords: list[str], mode: str = "exact", collection: Coll = "default",
                             top_k: TopK = 10) -> Annotated[CallToolResult, render.SearchResult]:
        hits = await run(hub.keyword, keywords, mode, collection, top_k)
        return render.search_result(hits, " ".join(map(str, keywords)), collection, mode=mode)

    @mcp.tool(description="Section tree of one document with the chunk ids (and pages) under each section.")
    async def get_document_structure(doc_id: str) -> Annotated[CallToolResult, render.DocumentStructure]:
        s: render.DocumentStructure = await run(hub.structure, doc_id)
        lines = [f"## {s.title} (`{s.doc_id}`)"]

        def walk(node: render.SectionNode) -> None:
            for child in node.children:
                ids = ", ".join(f"`{i}`" for i in child.chunk_ids)
                lines.append("  " * (child.depth - 1) + f"- {child.title}" + (f" — {ids}" if ids else ""))
                walk(child)

        if s.root.chunk_ids:
            lines.append("- (preamble) — " + ", ".join(f"`{i}`" for i in s.root.chunk_ids))
        walk(s.root)
        return render.structured(s, "\n".join(lines))

    @mcp.tool(description="Full text of one chunk with its breadcrumb, page and the neighbouring chunks.")
    async def get_node_content(chunk_id: str) -> Annotated[CallToolResult, render.NodeContent]:
        n: render.NodeContent = await run(hub.node, chunk_id)
        where = f" · page {n.page}" if n.page is not None else ""
        text = "\n".join(filter(None, [
            f"## {n.breadcrumb}", f"**Chunk:** `{n.chunk_id}` · **Source:** `{n.source}`{where}", "", n.text, "",
            f"**Previous:** `{n.previous.chunk_id}` — {n.previous.text_snippet}" if n.previous else "",
            f"**Next:** `{n.next.chunk_id}` — {n.next.text_snippet}" if n.next else ""]))
        return render.structured(n, text)

    return mcp
