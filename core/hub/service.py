"""The hub's tool logic, independent of MCP: validate arguments, search, browse, summarize.

:class:`Hub` owns the store and the searcher. ``start()`` runs the start-up work in a background
thread — sync the bundled notes into ``default``, embed chunks stored without vectors, load the
encoder — so the MCP ``initialize`` answers at once; every tool waits for the index to be ready.
A new SQLite hub starts from the per-user copy of the indexed bundled notes when there is one, and
the first one to index them leaves that copy (:mod:`core.hub.bundled_cache`).
Bad arguments raise :class:`HubError` (the server turns it into ``isError=true``).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
from pathlib import Path

from core.hub import bundled_cache, lineage, render, topics
from core.hub.ingest import backfill_embeddings, sync_bundled
from core.hub.library.metadata import ABSTRACT_DOC_TYPE
from core.hub.lru import LRU
from core.hub.pdf.clean import join_lines
from core.hub.runon import MAX_TAIL, SENTENCE_DONE, continues, prose_tail
from core.hub.search import CACHED_COLLECTIONS, Hit, Searcher, load_reranker
from core.hub.store import ChunkRow, HubStore
from core.hub.versions import Scope, parse_as_of
from core.memory.claims import instruction_sentences
from core.text import CHUNK_ABBREVIATION, CHUNK_SENTENCE_END, split_sentences
from core.vocabulary import DocumentText, Vocabulary, build

# the last breadcrumb of a chunk the PDF reader sets apart from the running text (core.hub.pdf)
_FLOAT_CRUMB = re.compile(r"^(?:Footnote|Table|Figure|Equation|Algorithm)\b")

log = logging.getLogger("paperpilot.hub")
MAX_TOP_K = 20
MAX_BATCH = 32  # queries in one query_knowledge_hub_batch call


def _next_in_section(after: list[ChunkRow], path: list[str]) -> tuple[ChunkRow | None, bool]:
    """The next chunk of the section ``path`` among the chunks ``after`` a chunk (in order), past the
    section's own floats read at the break (the footnotes at the foot of the page, and the tables,
    figures, equations and listings set at the top of the next one: crumbs under ``path`` that
    :data:`_FLOAT_CRUMB` names), as :func:`_prev_in_section` looks back past them; and whether a float
    other than a footnote was stepped over. None once anything else comes between. Whether its text
    continues the sentence is the caller's check (:func:`continues`)."""
    stepped = False
    for n in after:
        if n.section_path == path:
            return n, stepped
        if (len(n.section_path) <= len(path) or n.section_path[:len(path)] != path
                or not _FLOAT_CRUMB.match(n.section_path[len(path)])):
            return None, stepped
        stepped = stepped or not n.section_path[len(path)].startswith("Footnote")
    return None, stepped



def _prev_in_section(before: list[ChunkRow], path: list[str]) -> ChunkRow | None:
    """The previous chunk of the section ``path`` among the chunks ``before`` a chunk (nearest
    first), past the section's own floats read at the break (its footnotes, tables, figures and
    captions, whose breadcrumbs extend ``path``): a paragraph that a page or column break cuts
    often has a table or figure set between its two halves. None once another section comes between."""
    for n in before:
        if n.section_path == path:
            return n
        if len(n.section_path) <= len(path) or n.section_path[:len(path)] != path:
            return None
    return None


def _key(chunk: ChunkRow) -> tuple[str, int, int]:
    """A chunk's place: its document, version and position."""
    return chunk.doc_id, chunk.version, chunk.position


class HubError(Exception):
    """A bad request: the message is shown to the client as is."""


class Hub:
    def __init__(self, db_path: str | Path, rerank: str | None = None, sync: bool = True, dsn: str | None = None):
        """The hub over the SQLite file ``db_path``, or over PostgreSQL when ``dsn`` is given."""
        # a new SQLite hub starts from the per-user index of the bundled notes when there is one
        self._cacheable = dsn is None and sync
        self.restored = self._cacheable and bundled_cache.restore(Path(db_path))
        if dsn is None:
            self.store = HubStore(db_path)
            self.searcher = Searcher(self.store, reranker=load_reranker(rerank))
        else:  # hub.backend: postgres (core.hub.pg)
            from core.hub.pg import open_backend

            self.store, self.searcher = open_backend(dsn, load_reranker(rerank))
        self._sync = sync
        self._indexed = threading.Event()  # lexical index current: browsing tools may answer
        self._ready = threading.Event()  # vectors current too: hybrid queries may answer
        self._error: BaseException | None = None
        self._vocab: LRU[str, Vocabulary] = LRU(CACHED_COLLECTIONS)
        self._vocab_lock = threading.Lock()
        # what start-up is doing, for hub_status: indexing → embedding (done/total) → warming → ready
        self.phase, self.done, self.total = "indexing", 0, 0
        self.watcher = None  # a core.hub.watch.Watcher when this hub watches folders (the daemon's hub.watch)

    # -- start-up ---------------------------------------------------------------------------------
    def start(self, background: bool = True) -> None:
        if background:
            threading.Thread(target=self._warm, name="hub-warm", daemon=True).start()
        else:
            self._warm()

    def _warm(self) -> None:
        # an empty store that this process fills with the notes: its index is what this code makes of them
        fresh = self._cacheable and not self.restored and not self.store.collections()
        try:
            if self._sync:
                rep = sync_bundled(self.store, embed=False)
                if rep.added or rep.updated or rep.failed:
                    log.info("bundled notes: added %s updated %s failed %s", rep.added, rep.updated, rep.failed)
        except BaseException as exc:
            log.exception("hub start-up failed")
            self._error = exc
            self._ready.set()
        finally:
            self._indexed.set()
        if self._error is not None:
            self.phase = "failed"
            return
        try:
            self.phase = "embedding"
            for name in self.store.collections():
                n = backfill_embeddings(self.store, name, batch=32, progress=self._progress)
                if n:
                    log.info("embedded %d chunks of %s", n, name)
        except BaseException as exc:
            log.exception("hub start-up failed")
            self._error = exc
            self.phase = "failed"
        finally:
            self._ready.set()
        if self._error is not None:
            return
        try:
            self.phase = "warming"
            for name in self.store.collections():
                self.searcher.matrix(name)
                self.searcher.lexical_index(name)
            self.searcher.embed_query("warm up")  # loads the encoder before the first real query
            # and its batch path (the ONNX encoder's multi-threaded session, ~0.2 s to load), which the
            # first query_knowledge_hub_batch (a research run's searches) would otherwise wait for
            self.searcher.embed_queries(["warm up a batch", "of queries", "at start-up"])
            for name in self.store.collections():
                topics.current(self.store, name)  # computed once per revision, then read back
        except Exception:
            log.exception("encoder warm-up failed")
        self.phase = "ready"
        if fresh:  # a new data dir that found no copy: the next ones copy its index
            bundled_cache.save(self.store.path)

    def _progress(self, done: int, total: int) -> None:
        self.done, self.total = done, total

    def status(self) -> dict:
        """Start-up progress: ``phase`` (indexing, embedding, warming, ready, failed) and, while
        embedding, ``done`` of ``total`` chunks."""
        out = {"phase": self.phase, "done": self.done, "total": self.total,
               "error": str(self._error) if self._error is not None else None}
        if self.watcher is not None:  # watched folders: files waiting or being indexed, for the app's status bar
            out["indexing"] = self.watcher.busy()
            out["watching"] = [str(d) for d, _ in self.watcher.dirs]
        return out

    def wait_ready(self, timeout: float = 600, dense: bool = False) -> None:
        """Block until the index (and, with ``dense``, every vector) is current."""
        if not (self._ready if dense else self._indexed).wait(timeout):
            raise HubError("the knowledge hub is still indexing; try again shortly")
        if self._error is not None:
            raise HubError(f"the knowledge hub failed to start: {self._error}")

    def _collection(self, name: str, dense: bool = False) -> str:
        self.wait_ready(dense=dense)
        if not isinstance(name, str) or not name.strip():
            raise HubError("collection must be a non-empty name")
        if not self.store.has_collection(name):
            known = ", ".join(self.store.collections()) or "none"
            raise HubError(f"unknown collection {name!r} (available: {known})")
        return name

    # -- tools --------------------------------------------------------------------------------------
    def query(self, query: str, top_k: int = 5, collection: str = "default", version: int | None = None,
              as_of: str | None = None, doc_id: str | None = None, topic: str | None = None,
              per_doc: int | None = None) -> list[Hit]:
        """Hybrid search of the current chunks, or of ``version`` N / what was current ``as_of`` a
        date (one of the two), optionally within one document; with ``topic`` (an id or label from
        list_topics) only that topic's documents; with ``per_doc`` at most that many chunks of any
        one document (a survey's search: which papers bear on it, each by its best chunks)."""
        if not isinstance(query, str) or not query.strip():
            raise HubError("query must be a non-empty string")
        name, scope, only = self._search_args(top_k, collection, version, as_of, doc_id, topic, per_doc)
        return self._whole(self.searcher.search(name, query.strip(), top_k, scope=scope, only=only, per_doc=per_doc))

    def query_many(self, queries: list[str], top_k: int = 5, collection: str = "default", version: int | None = None,
                   as_of: str | None = None, doc_id: str | None = None, topic: str | None = None,
                   per_doc: int | None = None) -> list[list[Hit]]:
        """:meth:`query` of each of 1..MAX_BATCH queries with the same arguments: one list of hits per
        query, the same hits; the queries not in the query cache are embedded in one encoder batch."""
        if not isinstance(queries, list) or not 1 <= len(queries) <= MAX_BATCH:
            raise HubError(f"queries must be a list of 1 to {MAX_BATCH} strings")
        if bad := [i for i, q in enumerate(queries) if not isinstance(q, str) or not q.strip()]:
            raise HubError(f"every query must be a non-empty string (not query {bad[0] + 1})")
        name, scope, only = self._search_args(top_k, collection, version, as_of, doc_id, topic, per_doc)
        return [self._whole(hits) for hits in
                self.searcher.search_many(name, [q.strip() for q in queries], top_k, scope=scope, only=only,
                                          per_doc=per_doc)]

    def _whole(self, hits: list[Hit]) -> list[Hit]:
        """The hits with their first and last sentences whole: a chunk that stops inside a sentence (a
        PDF paragraph runs on over a page break or past a figure, and the reader's blocks end at the
        page) is returned with the sentence's end, taken from the next chunk of its section (past the
        footnotes at the foot of the page, and past a table or figure when the sentence reads as prose)
        when that one carries the sentence on (:func:`continues`: it opens in lower case, or the
        sentence broke off after a word no sentence ends with); a chunk that so carries on the sentence the
        previous chunk of its section leaves unfinished is returned
        with that sentence's start. The index is untouched: only the text served is. The two are joined
        as a paragraph's lines are (:func:`core.hub.pdf.clean.join_lines`: "index-" / "ing" is "indexing",
        "state-of-the-" / "art" keeps its hyphen)."""
        # each hit's sentence end, looked up once: a hit's start is not joined when the hit before it
        # is served with that sentence's end
        ends = {_key(h.chunk): self._sentence_end(h.chunk) for h in hits}
        for h in hits:
            end = ends[_key(h.chunk)]
            self._whole_start(h, ends)
            if end is not None:
                h.chunk = dataclasses.replace(h.chunk, text=join_lines([h.chunk.text.rstrip(), end[1]]))
        return hits

    def _sentence_end(self, c: ChunkRow) -> tuple[ChunkRow, str] | None:
        """(the next chunk of its section, the end of ``c``'s last sentence it opens with) when ``c`` stops
        inside a sentence whose end is within reach; else None (the chunk is served as stored)."""
        text = c.text.rstrip()
        if not text or text.endswith(SENTENCE_DONE) or text.lstrip().startswith("|"):
            return None
        nxt, past_float = _next_in_section(self.store.following(c.doc_id, c.position, c.version), c.section_path)
        if nxt is None or (past_float and not prose_tail(text)):
            return None  # past a table or figure, only a sentence that reads as prose is carried on
        head = nxt.text.lstrip()
        rest = split_sentences(head[:MAX_TAIL], end=CHUNK_SENTENCE_END, abbreviation=CHUNK_ABBREVIATION)
        if (not continues(head, text, pdf=c.doc_type == "pdf", past_float=past_float) or not rest or not rest[0].endswith(SENTENCE_DONE)
                or (len(rest) < 2 and len(head) > MAX_TAIL)):
            return None
        return nxt, rest[0]

    def _whole_start(self, h: Hit, ends: dict[tuple[str, int, int], tuple[ChunkRow, str] | None]) -> None:
        """``h`` served with its first sentence's start when it is a PDF's running text (not a footnote,
        table, figure, caption, equation or listing of the reader's) and carries on (:func:`continues`)
        the sentence that the previous chunk of its section (past the floats set at the break,
        :func:`_prev_in_section`) leaves unfinished, where that sentence's start is certain: after a
        sentence end within :data:`MAX_TAIL` characters of its end, or at the start of a chunk that opens
        its section. Not when that chunk is a hit of its own served with this sentence's end (``ends``:
        each hit's, from :meth:`_sentence_end`): the sentence goes out once, under the chunk that holds
        its start, and this one is served without the piece of it that it opens with."""
        c = h.chunk
        text = c.text.lstrip()
        if c.doc_type != "pdf" or not text or not c.section_path or _FLOAT_CRUMB.match(c.section_path[-1]):
            return
        prev = _prev_in_section(self.store.preceding(c.doc_id, c.position, c.version), c.section_path)
        if prev is None:
            return
        if (end := ends.get(_key(prev))) is not None and end[0].position == c.position:
            # that hit is served with this sentence's end: the sentence goes out once, under its start, and
            # this chunk without the piece of it that it opens with ("Section 2.3, REALM employs …" read alone
            # is a sentence that says nothing of what it was described in)
            if text.startswith(end[1]) and (rest := text[len(end[1]):].lstrip()):
                h.chunk = dataclasses.replace(c, text=rest)
            return
        before = prev.text.rstrip()
        if (not before or before.endswith(SENTENCE_DONE) or before.lstrip().startswith("|")
                or not continues(text, before, pdf=True, past_float=prev.position < c.position - 1)):
            return  # (past_float: anything set between the two halves; _prev_in_section steps over floats only)
        tail = split_sentences(before[-MAX_TAIL:], end=CHUNK_SENTENCE_END, abbreviation=CHUNK_ABBREVIATION)
        if not tail or not tail[-1][:1].isupper():
            return
        if len(tail) < 2 and (len(before) > MAX_TAIL or not self._opens_section(prev)):
            return  # no sentence start within reach: the chunk is served as stored
        h.chunk = dataclasses.replace(c, text=join_lines([tail[-1], text]))

    def _opens_section(self, chunk: ChunkRow) -> bool:
        """Whether ``chunk`` is the first of its section's text (what comes before it is another section's)."""
        before = self.store.preceding(chunk.doc_id, chunk.position, chunk.version, n=1)
        return not before or before[0].section_path[:len(chunk.section_path)] != chunk.section_path

    def _search_args(self, top_k: int, collection: str, version: int | None, as_of: str | None,
                     doc_id: str | None, topic: str | None,
                     per_doc: int | None = None) -> tuple[str, Scope | None, set[int] | None]:
        """A search's checked (collection, scope, topic's chunk rowids)."""
        if not isinstance(top_k, int) or isinstance(top_k, bool) or not 1 <= top_k <= MAX_TOP_K:
            raise HubError(f"top_k must be an integer from 1 to {MAX_TOP_K} (got {top_k!r})")
        if per_doc is not None and (not isinstance(per_doc, int) or isinstance(per_doc, bool)
                                    or not 1 <= per_doc <= MAX_TOP_K):
            raise HubError(f"per_doc must be an integer from 1 to {MAX_TOP_K} (got {per_doc!r})")
        name = self._collection(collection, dense=True)
        only = self._topic_chunks(name, topic) if topic else None
        return name, self._scope(name, version, as_of, doc_id), only

    def _scope(self, collection: str, version: int | None, as_of: str | None, doc_id: str | None) -> Scope | None:
        if version is None and as_of is None and doc_id is None:
            return None
        if version is not None and (not isinstance(version, int) or isinstance(version, bool) or version < 1):
            raise HubError(f"version must be a positive integer (got {version!r})")
        if version is not None and as_of is not None:
            raise HubError("give version or as_of, not both")
        try:
            when = parse_as_of(as_of) if isinstance(as_of, str) else None
        except ValueError as exc:
            raise HubError(str(exc)) from None
        if doc_id is not None:
            doc_id = self._document(doc_id, collection)["doc_id"]
            if version is not None and not any(v["version"] == version for v in self.store.versions(doc_id)):
                kept = ", ".join(str(v["version"]) for v in self.store.versions(doc_id)) or "none"
                raise HubError(f"{doc_id!r} has no version {version} (kept versions: {kept})")
        return Scope(version=version, as_of=when, doc_id=doc_id)

    def keyword(self, keywords: list[str], mode: str = "exact", collection: str = "default",
                top_k: int = 10) -> list[Hit]:
        if isinstance(keywords, str):
            keywords = [keywords]
        if not keywords or not any(isinstance(k, str) and k.strip() for k in keywords):
            raise HubError("keywords must be a non-empty list of strings")
        if mode not in ("exact", "fuzzy"):
            raise HubError(f"mode must be 'exact' or 'fuzzy' (got {mode!r})")
        if not isinstance(top_k, int) or not 1 <= top_k <= MAX_TOP_K:
            raise HubError(f"top_k must be an integer from 1 to {MAX_TOP_K} (got {top_k!r})")
        return self.searcher.keyword(self._collection(collection), [str(k) for k in keywords], mode, top_k)

    def vocabulary(self, collection: str = "default", since_revision: int | None = None) -> render.VocabularyResult:
        """The collection's names (see :mod:`core.vocabulary`), rebuilt only when its revision changes."""
        name = self._collection(collection)
        rev = self.store.revision(name)
        if since_revision is not None and since_revision == rev:
            return render.VocabularyResult(collection=name, revision=rev, unchanged=True)
        with self._vocab_lock:
            cached = self._vocab.get(name)
            if cached is None or cached.revision != rev:
                cached = build_vocabulary(self.store, name, rev)
                self._vocab.put(name, cached)
        terms = [render.VocabularyTerm(**t.to_dict()) for t in cached.terms]
        return render.VocabularyResult(collection=name, revision=rev, terms=terms)

    def list_collections(self, include_stats: bool = True) -> render.CollectionList:
        self.wait_ready()
        out = []
        for name in self.store.collections():
            if include_stats:
                docs = [render.DocRef(doc_id=d["doc_id"], title=d["title"], year=d.get("year") or None)
                        for d in self.store.documents(name)]
                out.append(render.CollectionInfo(name=name, documents=docs, **self.store.stats(name)))
            else:
                out.append(render.CollectionInfo(name=name))
        return render.CollectionList(collections=out)

    def _document(self, doc_id: str, collection: str | None) -> dict:
        self.wait_ready()
        if not isinstance(doc_id, str) or not doc_id.strip():
            raise HubError("doc_id must be a non-empty string")
        if collection is not None:
            self._collection(collection)
        doc = self.store.document(doc_id.strip())
        if doc is None and "_" in doc_id:  # a chunk id (or a prefix of one) names its document
            ch = self.store.chunk(doc_id.strip())
            doc = self.store.document(ch.doc_id if ch else doc_id.rsplit("_", 1)[0])
        if doc is None or (collection is not None and doc["collection"] != collection):
            where = f" in collection {collection!r}" if collection else ""
            raise HubError(f"unknown doc_id {doc_id!r}{where}")
        return doc

    def remove_document(self, doc_id: str, collection: str = "default"):
        """Delete one document of ``collection`` (:mod:`core.hub.removal`); only its exact id, never a
        chunk id, names it."""
        from core.hub.removal import remove

        doc = self._document(doc_id, collection)
        if doc["doc_id"] != doc_id.strip():
            raise HubError(f"unknown doc_id {doc_id!r} in collection {collection!r}")
        return remove(self.store, doc)

    def summary(self, doc_id: str, collection: str | None = "default") -> render.DocumentSummary:
        doc = self._document(doc_id, collection)
        chunks = self.store.doc_chunks(doc["doc_id"])
        sections = list(dict.fromkeys(c.breadcrumb for c in chunks))
        versions = [render.VersionInfo.of(v, current=v["version"] == doc["version"] and not doc.get("deleted_at"))
                    for v in self.store.versions(doc["doc_id"])]
        return render.DocumentSummary(versions=versions, deleted=bool(doc.get("deleted_at")),
            doc_id=doc["doc_id"], collection=doc["collection"], title=doc["title"], source=doc["path"],
            doc_type=doc["doc_type"], version=doc["version"], authors=doc["authors"], year=doc["year"],
            pages=doc["pages"], chunk_count=len(chunks), sections=sections, summary=doc["summary"] or "",
            url=doc.get("url"), venue=doc.get("venue"), doi=doc.get("doi"), arxiv_id=doc.get("arxiv_id"),
            citation_key=doc.get("citation_key"), tags=doc.get("tags") or [], source_kind=doc.get("source_kind"),
            abstract_only=doc["doc_type"] == ABSTRACT_DOC_TYPE, instruction_like=instruction_sentences([c.text for c in chunks]),
            references=json.loads(self.store.get_meta(f"references:{doc['doc_id']}") or "[]"))

    def structure(self, doc_id: str, collection: str | None = None) -> render.DocumentStructure:
        doc = self._document(doc_id, collection)
        root = render.SectionNode(title=doc["title"], breadcrumb=doc["title"], depth=0)
        for c in self.store.doc_chunks(doc["doc_id"]):
            node = root
            for depth, name in enumerate(c.section_path[1:], start=1):
                child = next((n for n in node.children if n.title == name), None)
                if child is None:
                    child = render.SectionNode(title=name, depth=depth,
                                               breadcrumb=" > ".join(c.section_path[: depth + 1]))
                    node.children.append(child)
                node = child
            node.chunk_ids.append(c.chunk_id)
            if c.page is not None and c.page not in node.pages:
                node.pages.append(c.page)
        return render.DocumentStructure(doc_id=doc["doc_id"], collection=doc["collection"],
                                        title=doc["title"], root=root)

    def node(self, chunk_id: str) -> render.NodeContent:
        self.wait_ready()
        if not isinstance(chunk_id, str) or not chunk_id.strip():
            raise HubError("chunk_id must be a non-empty string")
        c = self.store.chunk(chunk_id.strip())
        if c is None:
            raise HubError(f"unknown chunk_id {chunk_id!r}")
        around = {n.position: n for n in self.store.neighbours(c.doc_id, c.position, c.version)}

        def ref(pos: int) -> render.Neighbour | None:
            n = around.get(pos)
            return None if n is None else render.Neighbour(chunk_id=n.chunk_id, breadcrumb=n.breadcrumb,
                                                           page=n.page, text_snippet=render.snippet(n.text))

        return render.NodeContent(
            chunk_id=c.chunk_id, doc_id=c.doc_id, collection=c.collection, title=c.title, source=c.path,
            breadcrumb=c.breadcrumb, section_path=c.section_path, page=c.page, position=c.position,
            text=c.text, previous=ref(c.position - 1), next=ref(c.position + 1))


    # -- the citation graph (core.hub.citegraph, core.hub.lineage) -------------------------------------
    def citations(self, doc_id: str, collection: str = "default") -> lineage.CitationsResult:
        """What one document cites in its collection and what cites it (:func:`core.hub.lineage.citations`)."""
        doc = self._document(doc_id, collection)
        return lineage.citations(self.store, doc["collection"], doc)

    def lineage(self, topic: str | None = None, doc_ids: list[str] | None = None,
                collection: str = "default") -> lineage.LineageResult:
        """The papers on ``topic`` (or the documents ``doc_ids``) ordered by year, with the cite edges
        among them (:func:`core.hub.lineage.lineage`)."""
        has_topic = isinstance(topic, str) and bool(topic.strip())
        if has_topic == bool(doc_ids):
            raise HubError("give a topic or doc_ids (one of the two)")
        if doc_ids is not None and (not isinstance(doc_ids, list) or not all(isinstance(d, str) for d in doc_ids)):
            raise HubError("doc_ids must be a list of document ids")
        name = self._collection(collection, dense=has_topic)
        chosen = [self._document(d, name)["doc_id"] for d in doc_ids or []]
        hits = self.searcher.search(name, topic.strip(), lineage.SEARCH_HITS) if has_topic else []
        return lineage.lineage(self.store, name, topic.strip() if has_topic else "", chosen, hits)

    # -- topics (core.hub.topics) ------------------------------------------------------------------
    def list_topics(self, collection: str = "default") -> render.TopicList:
        """The collection's topics at its current revision (recomputed when it moved)."""
        ts = topics.current(self.store, self._collection(collection, dense=True))
        return render.topic_list(ts, {d["doc_id"]: d for d in self.store.documents(ts.collection)})

    def topic_documents(self, topic: str, collection: str = "default") -> render.TopicDocuments:
        """One topic (id or label) with its documents and their scores, best first."""
        if not isinstance(topic, str) or not topic.strip():
            raise HubError("topic must be a non-empty topic id or label (see list_topics)")
        ts = topics.current(self.store, self._collection(collection, dense=True))
        found = topics.topic_doc_ids(ts, topic)
        if found is None:
            known = ", ".join(t.topic_id for t in ts.topics) or "none"
            raise HubError(f"unknown topic {topic!r} in collection {ts.collection!r} (topics: {known})")
        docs = {d["doc_id"]: d for d in self.store.documents(ts.collection)}
        return render.topic_documents(ts, found[0], docs)

    def name_topics(self, names: dict[str, str], collection: str = "default") -> render.TopicList:
        """Store a human name for each given topic (id -> name; "" clears it), kept while the
        topic's documents stay the same (:func:`core.hub.topics.set_names`)."""
        ts = topics.current(self.store, self._collection(collection, dense=True))
        if not isinstance(names, dict) or not names:
            raise HubError("names must map topic ids (see list_topics) to names")
        known = {t.topic_id for t in ts.topics}
        if unknown := sorted(str(k) for k in names if k not in known):
            raise HubError(f"unknown topic(s) {', '.join(unknown)} in collection {ts.collection!r} "
                           f"(topics: {', '.join(sorted(known)) or 'none'})")
        clean = {k: " ".join(str(v).split()) if isinstance(v, str) else None for k, v in names.items()}
        if bad := [k for k, v in clean.items() if v is None or len(v) > topics.NAME_CHARS]:
            raise HubError(f"the name of {', '.join(bad)} must be a string of at most {topics.NAME_CHARS} characters")
        topics.set_names(self.store, ts, clean)  # type: ignore[arg-type]
        return render.topic_list(ts, {d["doc_id"]: d for d in self.store.documents(ts.collection)})

    def _topic_chunks(self, collection: str, topic: str) -> set[int]:
        found = topics.topic_doc_ids(topics.current(self.store, collection), str(topic))
        if found is None:
            raise HubError(f"unknown topic {topic!r} in collection {collection!r} (see list_topics)")
        return self.store.chunk_rowids(found[1])


def build_vocabulary(store: HubStore, collection: str, revision: int | None) -> Vocabulary:
    """Read every document of ``collection`` (title, year, headings, chunk texts) into a vocabulary."""
    docs = []
    for d in store.documents(collection):
        chunks = store.doc_chunks(d["doc_id"])
        headings = list(dict.fromkeys(h for c in chunks for h in c.section_path))
        docs.append(DocumentText(d.get("title") or "", int(d.get("year") or 0), headings, [c.text for c in chunks]))
    return build(docs, revision)
