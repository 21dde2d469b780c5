"""Turn a knowledge-hub tool result into :class:`RetrievedContext` objects.

A batch result (``query_knowledge_hub_batch``) is read by :func:`parse_batch_result`. For a single
result the order is: MCP ``structuredContent`` if present; else the fenced ```json block after
``**References (JSON):**`` in any text block; else a Markdown fallback. Scores from a foreign
server are carried as given and never thresholded.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from core.types import DocMeta, RetrievedContext

_FENCE = re.compile(r"```json\s*(\{.*?\})\s*```", re.S)


def find_json_block(texts: list[str]) -> dict | None:
    """The last fenced JSON object holding ``citations`` in any of the text blocks."""
    for text in reversed(texts):
        for m in reversed(list(_FENCE.finditer(text))):
            try:
                data = json.loads(m.group(1))
            except json.JSONDecodeError:
                continue
            if isinstance(data, dict) and "citations" in data:
                return data
    return None


def _int_or_none(v: Any) -> int | None:
    try:
        return int(v) if v is not None and v != "" else None
    except (TypeError, ValueError):
        return None


_DOC_KEYS = ("doc_id", "document_id", "source_ref", "doc_hash")
# Upstream chunk ids: <document hash>_<chunk index>_<content hash>, e.g. 71ba55d8_0026_367f4a30.
_UPSTREAM_CHUNK = re.compile(r"^([0-9A-Za-z]+)_\d+_[0-9A-Za-z]+$")
_SOURCE_PREFIX = re.compile(r"^\s*\[Source:[^\]]*\]\s*", re.I)
_HEADING_LINE = re.compile(r"^\s*#{1,6}\s+\S")


def document_id(meta: dict, c: dict, chunk_id: str, source: str) -> str:
    """The document a hit belongs to: a document field when the server gives one; else the
    document hash that leads an upstream chunk id (what its get_document_summary accepts); else
    one id per source file. Never the chunk id itself: that would make each chunk a document."""
    for key in _DOC_KEYS:
        value = meta.get(key) or c.get(key)
        if value:
            return str(value)
    if (m := _UPSTREAM_CHUNK.match(chunk_id)):
        return m.group(1)
    if source:
        return "src-" + hashlib.sha1(source.encode()).hexdigest()[:10]
    return chunk_id.rsplit("_", 1)[0] if "_" in chunk_id else chunk_id


_CUT = re.compile(r"(?:\.\.|…|\.\.\.)\s*$")
_SENTENCE_END = re.compile(r"[.!?。！？][\"')\]]*(?=\s)")
_ENDS_SENTENCE = re.compile(r"[.!?。！？][\"')\]]*\s*$")


def clean_snippet(text: str, *, excerpt: bool = False) -> str:
    """A hit's text without the ``[Source: file]`` label some servers put in front of it, and without
    the cut sentence a server's short snippet ends in ("…fine-tuned on a.."): a cut sentence is never
    quoted as evidence or memorized. An ``excerpt`` (a field the server names a snippet, cut at a
    fixed length with no mark) is cut too when it does not end a sentence. A snippet that is one cut
    sentence gives nothing."""
    text = _SOURCE_PREFIX.sub("", text, count=1)
    if not _CUT.search(text) and not (excerpt and not _ENDS_SENTENCE.search(text)):
        return text
    body = _CUT.sub("", text)
    ends = [m.end() for m in _SENTENCE_END.finditer(body + " ")]
    return body[: ends[-1]].rstrip() if ends else ""


def label_title(title: str) -> str | None:
    """The file a ``[Source: file]`` label names, when a server gives that label as a hit's title."""
    m = re.fullmatch(r"\s*\[Source:\s*([^\]]+)\]\s*", title or "", re.I)
    return m.group(1).strip() if m else None


def heading_only(text: str) -> bool:
    """A chunk that is nothing but section headings: no evidence for any claim."""
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and all(_HEADING_LINE.match(line) for line in lines)


def citation_to_context(c: dict, query: str = "") -> RetrievedContext:
    """One citation dict (structured or References-JSON form) as a context."""
    meta = c.get("metadata") or {}
    chunk_id = str(c.get("chunk_id") or meta.get("chunk_id") or "")
    source = str(c.get("source") or meta.get("source_path") or "")
    doc_id = document_id(meta, c, chunk_id, source)
    title = str(meta.get("title") or c.get("title") or source.rsplit("/", 1)[-1])
    return RetrievedContext(
        content=clean_snippet(str(c.get("text") or c.get("content") or c.get("text_snippet") or ""),
                              excerpt=not (c.get("text") or c.get("content"))),
        source=source,
        title=label_title(title) or title,  # the file, for now: HubClient asks the server for the real title
        doc_id=doc_id,
        chunk_id=chunk_id,
        relevance_score=float(c.get("score") or 0.0),
        chunk_index=_int_or_none(meta.get("chunk_index")),
        breadcrumb=str(meta.get("breadcrumb") or c.get("breadcrumb") or ""),
        page=_int_or_none(c.get("page") if c.get("page") is not None else meta.get("page")),
        url=c.get("url") or meta.get("url"),
        query=query,
        meta=doc_meta(meta),
    )


def doc_meta(meta: dict) -> DocMeta | None:
    """The bibliographic part of a citation's metadata, or None when it has none."""
    authors = meta.get("authors")
    year = _int_or_none(meta.get("year"))
    text = {k: str(meta[k]) for k in ("venue", "doi", "arxiv_id", "citation_key") if meta.get(k)}
    dm = DocMeta(authors=[str(a) for a in authors] if isinstance(authors, list) else [], year=year, **text)
    return None if dm.empty() else dm


_HIT = re.compile(r"^###\s*\[(\d+)\]\s*(.*)$")
_FIELD = re.compile(r"^\*\*([^*:：]+)[:：]?\*\*[:：]?\s*(.*)$")
_NO_RESULTS = ("## 未找到相关结果", "## No results")
_STOP_SECTIONS = ("## 引用来源", "**References (JSON):**", "## References")
_SCORE_KEYS = {"相关度", "score", "relevance"}
_SOURCE_KEYS = {"来源", "source"}
_PAGE_KEYS = {"页码", "page"}
_CHUNK_KEYS = {"chunk", "chunk_id", "块"}


def _score(text: str) -> float:
    m = re.search(r"-?\d+(?:\.\d+)?", text)
    if not m:
        return 0.0
    value = float(m.group(0))
    return value / 100.0 if "%" in text else value


def _fields(line: str) -> dict[str, str]:
    """``**Score:** 0.03 · **Source:** `a.md` · page 3`` → {"score": "0.03", "source": "a.md", ...}."""
    out: dict[str, str] = {}
    for part in re.split(r"\s+[·|]\s+", line.strip()):
        m = _FIELD.match(part.strip())
        if m:
            out[m.group(1).strip().lower()] = m.group(2).strip().strip("`").strip()
        elif (pm := re.match(r"^page\s+(\d+)$", part.strip(), re.I)):
            out["page"] = pm.group(1)
    return out


def _first(fields: dict[str, str], keys: set[str]) -> str:
    return next((v for k, v in fields.items() if k in keys), "")


def parse_markdown(texts: list[str], query: str = "") -> list[RetrievedContext]:
    """Last-resort parse of a Markdown hit list: the upstream Chinese-labelled format
    (``### [n] 结果 n``, ``**相关度:** 65.40%``, ``**来源:** `path```, ``> snippet``) or ours."""
    text = "\n".join(texts)
    if any(marker in text for marker in _NO_RESULTS) and not _HIT.search(text.replace("\r", "")):
        return []
    hits: list[dict] = []
    for line in text.replace("\r", "").split("\n"):
        if line.strip().startswith(_STOP_SECTIONS):
            break
        m = _HIT.match(line.strip())
        if m:
            hits.append({"index": int(m.group(1)), "heading": m.group(2).strip(), "quote": [], "fields": {}})
        elif hits and line.lstrip().startswith(">"):
            hits[-1]["quote"].append(line.lstrip()[1:].strip())
        elif hits and line.strip().startswith("**"):
            hits[-1]["fields"].update(_fields(line))
    out = []
    for h in hits:
        f = h["fields"]
        source = _first(f, _SOURCE_KEYS)
        content = " ".join(q for q in h["quote"] if q)
        chunk_id = _first(f, _CHUNK_KEYS)
        if not chunk_id:
            stem = re.sub(r"[^A-Za-z0-9-]+", "-", source.rsplit("/", 1)[-1].rsplit(".", 1)[0]).strip("-") or "hit"
            digest = hashlib.sha1(f"{source}\n{content}".encode()).hexdigest()[:8]
            chunk_id = f"{stem}_md{digest}"
        heading = h["heading"]
        generic = re.fullmatch(r"(结果|result)\s*\d*", heading, re.I) is not None
        out.append(citation_to_context({
            "chunk_id": chunk_id, "source": source, "score": _score(_first(f, _SCORE_KEYS)), "text": content,
            "page": _int_or_none(_first(f, _PAGE_KEYS)),
            "metadata": {"breadcrumb": "" if generic else heading},
        }, query))
    return out


def parse_search_result(
    texts: list[str], structured: dict | None, query: str = ""
) -> list[RetrievedContext]:
    """Contexts from one ``query_knowledge_hub`` result, best first; empty and heading-only hits
    are left out (they cannot support a claim)."""
    if structured and isinstance(structured.get("citations"), list):
        contexts = [citation_to_context(c, query) for c in structured["citations"]]
    elif (block := find_json_block(texts)) is not None:
        contexts = [citation_to_context(c, query) for c in block.get("citations") or []]
    else:
        contexts = parse_markdown(texts, query)
    return _usable(contexts)


def _usable(contexts: list[RetrievedContext]) -> list[RetrievedContext]:
    return [c for c in contexts if c.content.strip() and not heading_only(c.content)]


def parse_batch_result(structured: dict | None, queries: list[str]) -> list[list[RetrievedContext]]:
    """Contexts per query from one ``query_knowledge_hub_batch`` result, each list what
    :func:`parse_search_result` gives for that query's ``query_knowledge_hub`` result (each hit its
    own score and query, fresh objects). ValueError if the result does not answer these queries."""
    if not structured or not isinstance(structured.get("queries"), list) \
            or not isinstance(structured.get("citations"), list):
        raise ValueError("the batch result has no structured content")
    answered = structured["queries"]
    if len(answered) != len(queries):
        raise ValueError(f"the batch result answers {len(answered)} of {len(queries)} queries")
    chunks = {c["chunk_id"]: citation_to_context(c) for c in structured["citations"]}  # each chunk parsed once
    if any(h["chunk_id"] not in chunks for res in answered for h in res["hits"]):
        raise ValueError("the batch result refers to a chunk it does not cite")
    usable = {cid for cid, c in chunks.items() if _usable([c])}
    return [[chunks[h["chunk_id"]].model_copy(update={"relevance_score": float(h.get("score") or 0.0), "query": query})
             for h in res["hits"] if h["chunk_id"] in usable] for query, res in zip(queries, answered)]
