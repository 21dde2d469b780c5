""""Trace how X evolved" over a library whose papers cite each other: a real turn (offline brain, the
bundled hub as a real stdio process) answers with the papers in year order, each step citing its
paper, and each step that cites an earlier one quoting the sentence that does. A hub without
``get_lineage`` (an upstream server) and a graph without edges leave the question to ReAct."""

from __future__ import annotations

import asyncio

from core.config import load_settings
from core.strategies.lineage import asks_for_lineage, compose
from tests.hub.lineage_papers import ARXIV_2014, draw_all
from tests.integration.helpers import ask_all

LIB = "quokkas"


def _library(tmp_path, monkeypatch):
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    s = load_settings(use_user_file=False)
    s.agent.router = "rules"
    s.mcp.collection = LIB
    files = draw_all(tmp_path / "papers")
    store = HubStore(s.paths.resolve(s.paths.hub_db))
    try:
        meta = {str(files[0].resolve()): {"url": f"https://arxiv.org/abs/{ARXIV_2014}"}}
        assert len(Ingestor(store, embed=False).ingest(files, LIB, meta=meta).added) == 4  # the hub embeds at start
    finally:
        store.close()
    return s


def test_trace_how_it_evolved_answers_with_the_year_ordered_lineage(tmp_path, monkeypatch):
    s = _library(tmp_path, monkeypatch)
    (turn,) = asyncio.run(ask_all(["Trace how quokka attention evolved"], s))
    r = turn.result
    assert r.strategy == "exploratory"
    answer = r.final_answer
    lines = answer.splitlines()
    steps = [line for line in lines if line[:2] in ("1.", "2.", "3.", "4.")]
    assert [lines[lines.index(s_) - 1] for s_ in steps] == ["#### 2014", "#### 2016", "#### 2018", "#### 2020"], answer
    # each step cites its own paper; the cite edges quote the citing sentence, cited by its chunk
    by_index = {src.index: src for src in r.sources}
    for step, title in zip(steps, ("Quokka Attention for Sequence Labelling", "Gated Quokka Attention Networks",
                                   "Deep Quokka Attention at Scale", "Quokka Attention without Gates")):
        n = int(step.rsplit("[", 1)[1].rstrip("]"))
        assert step.startswith(f"{steps.index(step) + 1}. **{title}**") and by_index[n].title == title, (step, answer)
    assert "It cites *Quokka Attention for Sequence Labelling*: “Castellanos and Ferreira introduced" in answer
    assert "It cites *Gated Quokka Attention Networks*: “We remove the gates of Okafor" in answer
    assert r.critic is not None and r.critic.passed and not r.critic.issues
    assert [e.content for e in turn.of("thought")][0].startswith("The library's citation graph links 4 papers")
    assert not turn.of("sufficiency")  # no ReAct loop ran


def test_a_hub_without_lineage_or_a_graph_without_edges_leaves_the_question_to_react():
    assert asks_for_lineage("How did quokka attention evolve?") and asks_for_lineage("Trace the lineage of gates")
    assert not asks_for_lineage("What does quokka attention weigh tokens by?")
    lone = {"papers": [{"doc_id": "a", "title": "A", "year": 2014}, {"doc_id": "b", "title": "B", "year": 2016}],
            "edges": []}
    assert compose(lone, "how did it evolve") is None
    linked = dict(lone, edges=[{"citing": "b", "cited": "a", "confidence": 0.9, "how": "title", "reference": "A"}])
    answer, contexts = compose(linked, "how did it evolve")
    assert "Its reference list cites *A*." in answer and [c.doc_id for c in contexts] == ["a", "b"]

    from core.strategies.lineage import lineage_answer

    class Upstream:  # an upstream hub offers search only
        async def search(self, *a, **k):
            return []

    assert asyncio.run(lineage_answer(Upstream(), "How did quokka attention evolve?", "default")) is None
