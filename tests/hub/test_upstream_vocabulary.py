"""Upstream Modular-RAG MCP servers as first-class hubs: recorded responses in both variants' exact
formats, and whole turns against the upstream-format stub process (no get_vocabulary, Markdown
list_collections with no titles, snippets cut at a fixed length).

- every source title is the paper's title, never a "[Source: file]" label;
- no cut sentence reaches the evidence, an answer or a memorized fact;
- the vocabulary is built from what the server returns, so "Direct Preference Optimization" maps to DPO.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys

import pytest

from core.config import MCPConnection
from core.tools.parse import parse_search_result
from tests.hub.helpers import STUB
from tests.integration.helpers import ask_all, settings

# A citation of each variant as its server writes it in **References (JSON):** (text abridged to
# one hit; the fields, labels and cut are the servers' own).
CANONICAL = {"index": 1, "chunk_id": "5f1c2a9e_0003_8d0e4b21", "source": "/data/papers/dpo.md", "score": 0.0312,
             "text_snippet": "[Source: dpo.md] DPO optimises the policy directly on preference pairs with a "
                             "binary cross-entropy loss. It needs no reward model and no sampling from the policy "
                             "during training. Compared with PPO-based RLHF, DPO is simpler to tune and its trai",
             "page": None, "metadata": {"title": "Direct Preference Optimization", "chunk_index": 3,
                                        "doc_type": "md", "breadcrumb": "Direct Preference Optimization > Method"}}
NOBITALQS = {**CANONICAL, "text_snippet": "[Source: dpo.md] DPO optimises the policy directly on preference pairs "
                                          "with a binary cross-entropy loss. It needs no reward model and no samplin..",
             "metadata": {**CANONICAL["metadata"], "title": "[Source: dpo.md]"}}


def recorded(citation: dict) -> list[str]:
    refs = {"citations": [citation], "metadata": {"query": "DPO", "result_count": 1, "collection": "knowledge_hub"}}
    return ["## 检索结果\n\n### [1] 结果 1\n**相关度:** 3.12%\n**来源:** `/data/papers/dpo.md`\n> "
            + citation["text_snippet"] + "\n\n## 引用来源\n\n[1] /data/papers/dpo.md\n\n**References (JSON):**\n"
            "```json\n" + json.dumps(refs, ensure_ascii=False) + "\n```"]


@pytest.mark.parametrize("citation, content, title", [
    (CANONICAL, "DPO optimises the policy directly on preference pairs with a binary cross-entropy loss. It needs "
                "no reward model and no sampling from the policy during training.", "Direct Preference Optimization"),
    (NOBITALQS, "DPO optimises the policy directly on preference pairs with a binary cross-entropy loss.",
     "dpo.md"),  # the file until the client asks get_document_summary for the title
])
def test_recorded_results_keep_whole_sentences_only(citation, content, title):
    (ctx,) = parse_search_result(recorded(citation), None, "DPO")
    assert ctx.content == content and ctx.title == title
    assert ctx.doc_id == "5f1c2a9e" and ctx.source == "/data/papers/dpo.md"


QUESTION = "Compare Direct Preference Optimization and Proximal Policy Optimization in training stability"
CUT = re.compile(r"(?:\.\.|…)\s*(?:\[\d+\])?\s*$|\w\s*\[\d+\]\s*$")


@pytest.fixture(scope="module", params=["nobitalqs", "canonical"])
def upstream(request, tmp_path_factory):
    from tests.stubs.upstream_server import _load

    notes = "lora,qlora,dpo,instructgpt_rlhf,rlhf_ppo"
    s = settings()
    s.paths.home = str(tmp_path_factory.mktemp("home"))
    s.mcp.connections["upstream"] = MCPConnection(
        transport="stdio", command=sys.executable, args=[str(STUB)],
        env={"STUB_VARIANT": request.param, "STUB_NOTES": notes})
    s.mcp.connection, s.mcp.collection = "upstream", "knowledge_hub"
    agents = []

    async def keep(agent):
        agents.append(agent)

    turns = asyncio.run(ask_all([QUESTION, "How does LoRA reduce the number of trainable parameters?"], s,
                                persist=True, setup=keep))
    return turns, agents[0], {d["title"] for d in _load(notes.split(","))[1].values()}  # the titles it serves


def test_the_vocabulary_maps_long_forms_to_acronyms(upstream):
    turns, agent, _ = upstream
    dpo = agent.vocabulary.get("DPO")
    assert dpo is not None and "Direct Preference Optimization" in dpo.aliases
    assert "Proximal Policy Optimization" in agent.vocabulary.get("PPO").aliases
    entities = turns[0].result.intent.entities
    assert "DPO" in entities and "PPO" in entities, entities


def test_titles_are_the_papers_and_no_cut_sentence_reaches_an_answer_or_a_fact(upstream):
    turns, _, titles = upstream
    assert turns[1].result.sources  # the LoRA question is answered from the server's hits
    for turn in turns:
        r = turn.result
        for src in r.sources:
            assert src.title in titles and not src.title.startswith("[Source"), src.title
            assert not src.text.rstrip().endswith(("..", "…")) and src.text.rstrip()[-1] in ".!?)\"'", src.text
        assert ".." not in r.final_answer and "…" not in r.final_answer, r.final_answer
        for fact in (f for e in turn.of("memory_written") for f in e.facts):
            assert not CUT.search(fact) and fact.rstrip()[-1] in ".!?", fact
