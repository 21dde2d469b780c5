"""Against the upstream server's nobitalqs variant (every hit titled "[Source: file]", snippets cut
at 200 characters with ".."): sources carry the papers' titles from get_document_summary, and no cut
sentence reaches the evidence."""

from __future__ import annotations

from core.config import MCPConnection, MCPSettings
from core.tools.hub_client import HubClient
from core.tools.parse import clean_snippet
from core.tools.titles import summary_title
from tests.hub.helpers import REPO, STUB


def _client(variant: str) -> HubClient:
    conn = MCPConnection(args=[str(STUB)], cwd=str(REPO), env={"STUB_VARIANT": variant})
    return HubClient(MCPSettings(connection="upstream", collection="knowledge_hub", call_timeout=120,
                                 connections={"upstream": conn}))


async def test_hits_titled_with_a_source_label_get_the_papers_title_and_lose_their_cut_sentence():
    from tests.stubs.upstream_server import DOCS

    titles = {d["title"] for d in DOCS.values()}
    async with _client("nobitalqs") as client:
        ctxs = await client.search("QLoRA 4-bit NormalFloat paged optimizers", top_k=5)
        more = await client.search("DPO preference loss reference policy", top_k=5)
        raw = await client.call("query_knowledge_hub", {"query": "DPO preference loss", "top_k": 3})
    assert '"title": "[Source: ' in raw.text and '.."' in raw.text  # the server does label and cut
    assert ctxs and more
    for c in ctxs + more:
        assert c.title in titles, c.title  # not "[Source: qlora.md]", not "qlora.md"
        assert not c.content.rstrip().endswith(("..", "…")) and c.content.rstrip()[-1] in ".!?)\"'"


async def test_the_canonical_variant_keeps_its_titles_without_asking_again():
    async with _client("canonical") as client:
        calls: list[str] = []
        real = client.get_document_summary

        async def counted(doc_id, collection=None):
            calls.append(doc_id)
            return await real(doc_id, collection)

        client._titles._summary = counted
        ctxs = await client.search("LoRA low-rank adaptation", top_k=3)
    assert ctxs and not calls  # its hits carry real titles already


def test_a_cut_snippet_keeps_only_its_whole_sentences():
    assert clean_snippet("[Source: a.md] LoRA freezes the weights. It was fine-tuned on a..") == \
        "LoRA freezes the weights."
    assert clean_snippet("[Source: a.md] the adapter was fine-tuned on a…") == ""
    assert clean_snippet("[Source: a.md] A whole sentence.") == "A whole sentence."


def test_summary_titles_in_both_formats():
    class R:
        def __init__(self, text, structured=None):
            self.text, self.structured = text, structured

    assert summary_title(R("## 文档摘要\n\n**文档ID:** `ab12`\n**标题:** QLoRA: Efficient Finetuning\n")) == \
        "QLoRA: Efficient Finetuning"
    assert summary_title(R("", {"title": "LoRA: Low-Rank Adaptation"})) == "LoRA: Low-Rank Adaptation"
    assert summary_title(R("**Title:** DPO")) == "DPO"
