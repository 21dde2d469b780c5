"""Topics: computed clusters of a collection's documents, the two MCP tools, retrieval restricted to a
topic, the schema migration, and a question scoped to the topic it names (core.scope, slot filling)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from core import scope
from core.hub import topics
from core.hub.clustering import cluster, k_range
from core.hub.ingest import Ingestor
from core.hub.service import HubError
from core.hub.store import HubStore
from tests.hub.helpers import hub_params

REPO = Path(__file__).resolve().parents[2]


def _topic_of(res, doc_id: str):
    return next(t for t in res.topics if doc_id in {d.doc_id for d in t.documents})


def test_bundled_topics_group_related_papers_and_are_labelled_from_their_text(hub):
    res = hub.list_topics("default")
    docs = {d["doc_id"] for d in hub.store.documents("default")}
    assert 3 <= len(res.topics) <= 6, [t.label for t in res.topics]
    assert docs == {d.doc_id for t in res.topics for d in t.documents}  # every document has a topic
    # papers that build on each other land together; unrelated lines of work do not
    assert _topic_of(res, "lora") is _topic_of(res, "qlora")
    assert _topic_of(res, "dpo") is _topic_of(res, "rlhf-ppo")
    assert _topic_of(res, "react") is _topic_of(res, "rewoo")
    assert len({_topic_of(res, d).topic_id for d in ("lora", "dpo", "react")}) == 3
    for t in res.topics:
        assert t.document_count == len(t.documents) and t.label and len(t.keyphrases) >= 3
        assert len({t.topic_id for t in res.topics}) == len(res.topics)
        assert t.label.split(" / ")[0] in t.keyphrases
        text = " ".join(c.text.lower() + " " + " ".join(c.section_path).lower()
                        for d in t.documents for c in hub.store.doc_chunks(d.doc_id))
        assert all(k in text for k in t.keyphrases), (t.label, t.keyphrases)  # keyphrases come from the text
        assert [d.score for d in t.documents] == sorted((d.score for d in t.documents), reverse=True)


def test_topics_are_reproducible_and_stored_with_the_revision(hub):
    a = topics.compute(hub.store, "default")
    b = topics.compute(hub.store, "default")
    assert [(t.topic_id, t.label, t.documents) for t in a.topics] == [(t.topic_id, t.label, t.documents) for t in b.topics]
    stored = topics.current(hub.store, "default")
    assert stored.revision == hub.store.revision("default")
    assert [t.label for t in topics.load(hub.store, "default").topics] == [t.label for t in a.topics]


def test_clustering_is_seeded_and_k_follows_the_silhouette():
    rng = np.random.default_rng(3)
    centres = rng.normal(size=(3, 16))
    x = np.concatenate([c + 0.05 * rng.normal(size=(6, 16)) for c in centres])
    labels, cents, score = cluster(x)
    assert len(cents) == 3 and score > 0.5
    assert len({tuple(labels[i:i + 6]) for i in range(0, 18, 6)}) == 3  # each blob is one cluster
    assert all(len(set(labels[i:i + 6])) == 1 for i in range(0, 18, 6))
    again, _, _ = cluster(x)
    assert (again == labels).all()
    assert list(k_range(2)) == [1] and list(k_range(14)) == [3, 4, 5] and list(k_range(45)) == list(range(5, 10))


def _note(path: Path, title: str, headings: dict[str, str]) -> Path:
    path.write_text(f"# {title}\n\n" + "\n\n".join(f"## {h}\n\n{t}" for h, t in headings.items()), encoding="utf-8")
    return path


SPEECH = "Self-supervised speech recognition learns acoustic representations from raw audio waveforms; " \
         "the speech encoder is fine-tuned on transcribed audio for phoneme and word recognition."
VISION = "Image classification with convolutional networks on labelled images; the vision backbone is " \
         "pretrained on ImageNet images and transferred to object detection in photographs."


def _empty_store(request, hub_backend: str, tmp_path: Path):
    """An empty store of the backend under test."""
    if hub_backend == "sqlite":
        return HubStore(tmp_path / "hub.sqlite3")
    from core.hub.pg.store import PgStore

    return PgStore(request.getfixturevalue("pg_dsn"))


def test_ingest_recomputes_a_collections_topics_and_a_delete_is_seen_lazily(hub, hub_backend, request, tmp_path):
    store = _empty_store(request, hub_backend, tmp_path)
    docs = tmp_path / "papers"
    docs.mkdir()
    for i in range(3):
        _note(docs / f"speech{i}.md", f"Speech Model {i}", {"Acoustic Modelling": SPEECH, "Audio Pretraining": SPEECH})
        _note(docs / f"vision{i}.md", f"Vision Model {i}", {"Image Backbones": VISION, "Detection Transfer": VISION})
    Ingestor(store).ingest([docs], collection="mine")
    ts = topics.load(store, "mine")
    assert ts is not None and ts.revision == store.revision("mine")  # computed by the ingest itself
    groups = sorted(sorted(d for d, _ in t.documents) for t in ts.topics)
    assert groups == [[f"speech{i}" for i in range(3)], [f"vision{i}" for i in range(3)]]
    labels = {t.topic_id: t.keyphrases for t in ts.topics}
    assert any("speech" in kp for kp in labels.values()) and any("image" in " ".join(kp) for kp in labels.values())
    store.delete_document("vision0")
    assert "vision0" not in {d for t in topics.current(store, "mine").topics for d, _ in t.documents}
    assert topics.load(store, "mine").revision == store.revision("mine")


def test_small_and_uniform_collections_still_get_labelled_topics(tmp_path):
    from core.hub.store import NewChunk

    store = HubStore(tmp_path / "hub.sqlite3")
    rng = np.random.default_rng(0)

    def put(i: int, embedded: bool = True) -> None:
        vec = rng.normal(size=384).astype(np.float32)
        store.put_document({"doc_id": f"d{i}", "collection": "c", "path": f"/x/d{i}.md", "doc_type": "markdown",
                            "file_hash": str(i), "title": f"Note {i}"},
                           [NewChunk(["Note", "Audio Coding"], f"speech audio codec number {i}",
                                     vector=vec / np.linalg.norm(vec) if embedded else None)])

    put(0)
    only = topics.current(store, "c").topics
    assert len(only) == 1 and only[0].documents == [("d0", 1.0)] and "speech" in only[0].keyphrases
    put(1, embedded=False)  # not clustered until it has a vector
    assert [d for t in topics.current(store, "c").topics for d, _ in t.documents] == ["d0"]
    for i in range(2, 9):
        put(i)
    many = topics.current(store, "c").topics
    assert len(many) >= 2 and all(t.keyphrases and t.label for t in many)  # every word is shared: kept anyway


def test_an_existing_store_gets_the_topic_tables(tmp_path):
    db = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(db)
    conn.executescript("CREATE TABLE collections(name TEXT PRIMARY KEY, created_at REAL NOT NULL,"
                       " revision INTEGER NOT NULL DEFAULT 0);")
    conn.close()
    store = HubStore(db)
    names = {r[0] for r in store.conn().execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"topic_sets", "topics", "document_topics", "documents", "chunks"} <= names


def test_query_with_a_topic_searches_only_its_documents(hub):
    res = hub.list_topics("default")
    align = _topic_of(res, "dpo")
    members = {d.doc_id for d in align.documents}
    plain = hub.query("How much GPU memory does 4-bit quantization save?", 5, "default")
    assert plain[0].chunk.doc_id == "qlora"
    scoped = hub.query("How much GPU memory does 4-bit quantization save?", 5, "default", topic=align.topic_id)
    assert scoped and {h.chunk.doc_id for h in scoped} <= members
    assert {h.chunk.doc_id for h in hub.query("reward", 5, "default", topic=align.label)} <= members  # a label works too
    with pytest.raises(HubError, match="unknown topic"):
        hub.query("reward", 5, "default", topic="no-such-topic")
    got = hub.topic_documents(align.topic_id, "default")
    assert [d.doc_id for d in got.topic.documents] == [d.doc_id for d in align.documents]


async def test_topic_tools_over_mcp(hub_home, tmp_path):
    errlog = (tmp_path / "stderr.txt").open("w")
    async with stdio_client(hub_params(hub_home), errlog=errlog) as (r, w):
        async with ClientSession(r, w) as s:
            await s.initialize()
            listed = {t.name: t for t in (await s.list_tools()).tools}
            assert listed["list_topics"].outputSchema and listed["get_topic_documents"].outputSchema
            assert "topic" in listed["query_knowledge_hub"].inputSchema["properties"]
            res = await s.call_tool("list_topics", {"collection": "default"})
            assert not res.isError
            data = res.structuredContent
            assert data["collection"] == "default" and data["topics"]
            first = data["topics"][0]
            assert set(first) >= {"topic_id", "label", "keyphrases", "document_count", "documents"}
            text = res.content[0].text
            assert f"**{first['label']}** (`{first['topic_id']}`)" in text
            got = await s.call_tool("get_topic_documents", {"topic": first["topic_id"]})
            docs = got.structuredContent["topic"]["documents"]
            assert [d["doc_id"] for d in docs] == [d["doc_id"] for d in first["documents"]]
            assert all(0 < d["score"] <= 1 for d in docs) and "**Score:**" in got.content[0].text
            hits = await s.call_tool("query_knowledge_hub", {"query": "attention", "topic": first["topic_id"]})
            assert {c["metadata"]["doc_id"] for c in hits.structuredContent["citations"]} <= {d["doc_id"] for d in docs}
            bad = await s.call_tool("get_topic_documents", {"topic": "nope"})
            assert bad.isError and "unknown topic" in bad.content[0].text


# -- naming a topic in a question (core.scope) ---------------------------------------------------------
TOPICS = [scope.Topic("reward", "reward / policy", ("reward", "policy", "dpo", "rlhf"), doc_ids=("dpo", "rlhf")),
          scope.Topic("reasoning", "reasoning / react", ("reasoning", "react", "prompting", "chain-of-thought")),
          scope.Topic("lora", "lora / qlora", ("lora", "qlora", "quantization", "frozen weights"))]


@pytest.mark.parametrize("question, topic", [
    ('In the topic "reward / policy": how is the reward model trained?', "reward"),
    ("Within the reasoning topic, which method interleaves thoughts and actions?", "reasoning"),
    ("topic: lora — how much memory is saved?", "lora"),
    ("What do the papers about quantization say about memory?", "lora"),
    ("Tell me about reward / policy", "reward"),
    ("在“reward / policy”主题下，DPO 如何训练？", "reward"),
    ("主题：reasoning，ReAct 是什么？", "reasoning"),
])
def test_a_question_naming_a_topic_is_scoped_to_it(question, topic):
    found = scope.match(question, TOPICS)
    assert found is not None and found.topic.topic_id == topic


@pytest.mark.parametrize("question, rest", [
    ('In the topic "reward / policy": how is the reward model trained?', "How is the reward model trained?"),
    ("How is it trained, in the topic reward / policy?", "How is it trained?"),
    ("在“reward / policy”主题下，DPO 如何训练？", "DPO 如何训练？"),
    ("What do the papers about quantization say about memory?", "What do the papers about quantization say about memory?"),
])
def test_slot_filling_reads_the_question_without_its_topic_clause(question, rest):
    assert scope.match(question, TOPICS).rest == rest


@pytest.mark.parametrize("question", [
    "What does ReAct say about reasoning?",  # a keyphrase in an ordinary question is not a topic
    "How does QLoRA save memory with quantization?",
    "What topics does the collection cover?",
    "In the topic of cooking, what is a roux?",  # names no topic of this collection
    "Compare LoRA and QLoRA in memory use and accuracy",
    "Which papers on alignment exist?",
])
def test_an_ordinary_question_is_not_scoped(question):
    assert scope.match(question, TOPICS) is None


@pytest.mark.parametrize("question, routed", [
    ('In the topic "reward / policy": how is the reward model trained?', "How is the reward model trained?"),
    ("Within the reasoning topic, which method interleaves thoughts and actions?",
     "Which method interleaves thoughts and actions?"),
    ("What is the main topic of DPO?", "What is the main topic of DPO?"),  # no clause set off: kept
    ("In 2021, which paper introduced LoRA?", "In 2021, which paper introduced LoRA?"),
])
def test_the_router_classifies_the_question_without_its_topic_clause(question, routed):
    assert scope.without_topic_clause(question) == routed


def test_the_bundled_questions_are_not_scoped(hub):
    tl = scope.parse_topics(hub.list_topics("default").model_dump(mode="json"))
    rows = [json.loads(line) for line in (REPO / "tests" / "data" / "bundled_qa.jsonl").open()]
    assert rows and tl
    assert [r["question"] for r in rows if scope.match(r["question"], tl)] == []
    assert all(scope.without_topic_clause(r["question"]) == r["question"] for r in rows)


async def test_a_turn_naming_a_topic_retrieves_and_cites_only_its_documents(hub, hub_home, monkeypatch):
    from core.agent import open_agent
    from core.brains.offline import OfflineBrain
    from core.config import Settings
    from core.events import RetrievalFinished, SlotsFilled

    monkeypatch.setenv("PAPERPILOT_HOME", str(hub_home))
    align = _topic_of(hub.list_topics("default"), "dpo")
    members = {d.doc_id for d in align.documents}
    question = f'In the topic "{align.label}": how much GPU memory does 4-bit quantization save?'
    async with open_agent(Settings(), brain=OfflineBrain(), persist=False) as agent:
        events = [ev async for ev in agent.run_turn(question)]
    slots = next(e for e in events if isinstance(e, SlotsFilled))
    assert slots.intent.constraints["topic_id"] == align.topic_id
    assert slots.intent.reformulated_query.startswith("How much GPU memory")  # the topic clause is not searched
    assert slots.intent.type == "factual"  # routed on the question, not on its topic clause
    retrieved = {cid for e in events if isinstance(e, RetrievalFinished) for cid in e.chunk_ids}
    assert retrieved and {hub.store.chunk(c).doc_id for c in retrieved} <= members
    result = events[-1].result
    assert {s.doc_id for s in result.sources} <= members  # never QLoRA, which answers the unscoped question
    assert any("scoped to the topic" in getattr(e, "message", "") for e in events)
