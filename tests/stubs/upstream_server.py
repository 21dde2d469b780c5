"""A stand-in for the upstream MODULAR-RAG-MCP-SERVER, speaking exactly its text-only format.

Run over stdio: ``python tests/stubs/upstream_server.py``. Three tools — ``query_knowledge_hub``,
``list_collections``, ``get_document_summary`` — return text only (no ``structuredContent``, no
output schema): a Chinese-labelled Markdown list (``## 检索结果``, ``### [n] 结果 n``,
``**相关度:** 65.40%``, ``**来源:** `path```, ``> snippet`` cut at 300 chars, ``## 引用来源``) then
``**References (JSON):**`` and a fenced json block whose citations carry no ``doc_id``. Scores mix
two scales like the real server (≈0.02 fused, ≈0.6 cosine). No hits → ``## 未找到相关结果``;
failures → ``## 查询失败`` with ``isError=true``.

As upstream does: chunk ids are ``<doc hash>_<index:04d>_<content hash>`` (``71ba55d8_0026_367f4a30``);
every snippet starts with ``[Source: <file name>]``; a section heading with no text of its own is a
chunk of its own (heading only); ``get_document_summary`` counts the chunks whose id starts with the
given id, so a chunk-id prefix longer than the document hash counts one chunk.
Scoring is a small idf-weighted term overlap, deterministic and model-free.

``STUB_VARIANT=nobitalqs`` speaks the variant seen from nobitalqs/MODULAR-RAG-MCP-SERVER at fa0a280:
each citation's ``metadata.title`` is the ``[Source: <file name>]`` label itself (the paper's title
is only in ``get_document_summary``), and snippets are cut at 200 characters with ".." appended.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import sys
from pathlib import Path

from mcp.server.fastmcp import FastMCP
from mcp.types import CallToolResult, TextContent

CORPUS = Path(__file__).resolve().parents[2] / "core" / "hub" / "corpus"
NOTES = os.environ.get("STUB_NOTES", "lora,qlora,dpo,instructgpt_rlhf").split(",")
VARIANT = os.environ.get("STUB_VARIANT", "canonical")
COLLECTION = "knowledge_hub"
ID_SALT = os.environ.get("STUB_ID_SALT", "")
_WORD = re.compile(r"[a-z0-9]+")


def _load(notes: list[str] = NOTES) -> tuple[list[dict], dict[str, dict]]:
    """The chunks and documents of the bundled ``notes`` as the server serves them."""
    chunks: list[dict] = []
    docs: dict[str, dict] = {}
    for name in notes:
        path = CORPUS / f"{name.strip()}.md"
        if not path.exists():
            continue
        text = re.sub(r"\A---\n.*?\n---\n", "", path.read_text(encoding="utf-8"), flags=re.S)
        title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), name)
        # named by the file, not its absolute path: the search breaks score ties by chunk id, so ids
        # that depend on where the checkout lives gave each checkout its own tie order (a test passed
        # in one folder and failed in another); STUB_ID_SALT lets a test try other tie orders
        doc_id = hashlib.md5((ID_SALT + path.name).encode()).hexdigest()[:8]
        parts = [p for p in re.split(r"\n(?=#{2,3} )", text) if p.strip()]
        summary = ""
        for part in parts:
            lines = part.strip().splitlines()
            head = lines[0].lstrip("#").strip() if lines[0].startswith("#") else ""
            body = " ".join(line.strip() for line in lines[1:] if line.strip() and not line.startswith("# "))
            if not body and not lines[0].startswith("## "):
                continue
            summary = summary or body[:400]
            body = body or lines[0].strip()  # a section heading with no text of its own
            index = sum(1 for c in chunks if c["doc"] == doc_id)
            chunk_id = f"{doc_id}_{index:04d}_{hashlib.md5(body.encode()).hexdigest()[:8]}"
            chunks.append({"chunk_id": chunk_id, "index": index, "doc": doc_id, "source": str(path),
                           "title": title, "section": head, "text": f"[Source: {path.name}] {body}"})
        docs[doc_id] = {"title": title, "source": str(path), "summary": summary}
    return chunks, docs


CHUNKS, DOCS = _load()
_DF: dict[str, int] = {}
for _c in CHUNKS:
    for _t in set(_WORD.findall(_c["text"].lower())):
        _DF[_t] = _DF.get(_t, 0) + 1

mcp = FastMCP("modular-rag-stub", log_level="ERROR")


def _fail(message: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=f"## 查询失败\n\n{message}")], isError=True)


def _search(query: str, top_k: int) -> list[tuple[float, dict]]:
    terms = [t for t in set(_WORD.findall(query.lower())) if len(t) > 2 and t in _DF]
    scored = []
    for c in CHUNKS:
        words = set(_WORD.findall(c["text"].lower()))
        s = sum(math.log(1 + len(CHUNKS) / _DF[t]) for t in terms if t in words)
        if s > 0:
            scored.append((s, c))
    scored.sort(key=lambda x: (-x[0], x[1]["chunk_id"]))
    top = scored[:top_k]
    best = top[0][0] if top else 1.0
    # Mixed scales, as upstream: even ranks look like fused RRF scores, odd ranks like cosine.
    return [((0.016 + 0.016 * s / best) if i % 2 == 0 else (0.45 + 0.25 * s / best), c)
            for i, (s, c) in enumerate(top)]


@mcp.tool()
def query_knowledge_hub(query: str, top_k: int = 5, collection: str = COLLECTION) -> CallToolResult:
    if not query.strip():
        return _fail("查询内容不能为空")
    if not 1 <= top_k <= 20:
        return _fail(f"top_k 必须在 1 到 20 之间 (收到 {top_k})")
    if collection not in (COLLECTION, "default"):
        return _fail(f"集合不存在: {collection}")
    hits = _search(query, top_k)
    refs = {"citations": [], "metadata": {"query": query, "result_count": len(hits), "collection": collection}}
    if not hits:
        text = f"## 未找到相关结果\n\n查询: {query}"
    else:
        lines = ["## 检索结果", "", f"查询: {query}", ""]
        for i, (score, c) in enumerate(hits, start=1):
            snippet = c["text"][:300] if VARIANT != "nobitalqs" else c["text"][:200] + ".."
            lines += [f"### [{i}] 结果 {i}", f"**相关度:** {score * 100:.2f}%", f"**来源:** `{c['source']}`",
                      f"> {snippet}", ""]
            refs["citations"].append({
                "index": i, "chunk_id": c["chunk_id"], "source": c["source"], "score": round(score, 4),
                "text_snippet": snippet, "page": None,
                "metadata": {"title": c["title"] if VARIANT != "nobitalqs" else f"[Source: {Path(c['source']).name}]",
                             "chunk_index": c["index"],
                             "doc_type": "md", "breadcrumb": f"{c['title']} > {c['section']}"}})
        lines += ["## 引用来源", ""] + [f"[{i}] {c['source']}" for i, (_, c) in enumerate(hits, start=1)]
        text = "\n".join(lines)
    block = "**References (JSON):**\n```json\n" + json.dumps(refs, ensure_ascii=False, indent=2) + "\n```"
    return CallToolResult(content=[TextContent(type="text", text=f"{text}\n\n{block}")])


@mcp.tool()
def list_collections(include_stats: bool = True) -> CallToolResult:
    stats = f": {len(DOCS)} 个文档, {len(CHUNKS)} 个块" if include_stats else ""
    return CallToolResult(content=[TextContent(type="text", text=f"## 知识库集合\n\n- **{COLLECTION}**{stats}")])


@mcp.tool()
def get_document_summary(doc_id: str, collection: str = COLLECTION) -> CallToolResult:
    hits = [c for c in CHUNKS if doc_id and c["chunk_id"].startswith(doc_id)]
    if not hits:
        return _fail(f"文档不存在: {doc_id}")
    d = DOCS[hits[0]["doc"]]
    text = (f"## 文档摘要\n\n**文档ID:** `{doc_id}`\n**标题:** {d['title']}\n**来源:** `{d['source']}`\n"
            f"**块数量:** {len(hits)}\n\n{d['summary']}")
    return CallToolResult(content=[TextContent(type="text", text=text)])


if __name__ == "__main__":
    mcp.run("stdio")
    sys.exit(0)
