"""A question about the library itself ("What papers do I have?", "这个知识库里有哪些论文？") is answered
by the collection's list of papers, each with the first sentence of its abstract, end to end on
invented papers: the real bundled hub as a stdio server with real SQLite, the real encoder and the
offline brain. The papers' bodies say "papers" and "documents" often, so a search of the question's
words alone quotes those sentences (as it did before) instead of saying what the library holds."""

from __future__ import annotations

import asyncio

import pytest

from tests.integration.helpers import Turn, ask_all, papers_home

COLLECTION = "shelf"
BODY = ("We crawled {n} documents and kept the papers whose documents cite at least two other papers; "
        "the documents were then split into papers by venue.")
PAPERS = {
    f"{key}.md": f"---\ntitle: '{title}'\nyear: {year}\n---\n\n# {title}\n\n## Abstract\n\n{lead} {more}\n\n"
                 f"## Data\n\n{BODY.format(n=1000 * year)}\n"
    for key, title, year, lead, more in (
        ("wrenfield", "Wrenfield: Calibrating Sensor Networks", 2019,
         "Large sensor networks drift out of calibration within weeks of deployment.",
         "We calibrate a whole network from a few trusted gauges."),
        ("tessel", "Tessel: Compressing Road Maps", 2020,
         "Road maps take more space than phones can spare.", "Tessel shares the geometry of similar junctions."),
        ("ammonite", "Ammonite: Counting Spiral Shells", 2018,
         "Counting fossil shells by hand, as in [2, 3], is slow and error-prone.", "Ammonite counts them from photographs."),
    )
}
LEADS = {"Ammonite": "Counting fossil shells by hand, as in [ref 2, 3], is slow and error-prone.",  # the paper's own
         "Tessel": "Road maps take more space than phones can spare.",
         "Wrenfield": "Large sensor networks drift out of calibration within weeks of deployment."}


def _check_listing(turn: Turn, head: str, names: list[str]) -> None:
    r = turn.result
    answer = r.final_answer
    assert answer.startswith(head), answer
    bullets = [ln for ln in answer.splitlines() if ln.startswith("- **")]
    assert [b.split("**")[1].split(":")[0] for b in bullets] == names, bullets  # by title
    for b, name in zip(bullets, names):
        assert LEADS[name] in b, b
    assert all(src.breadcrumb.endswith("Abstract") for src in r.sources), [src.breadcrumb for src in r.sources]
    assert len({src.doc_id for src in r.sources}) == len(names)
    assert r.critic.passed and not r.critic.forced, r.critic
    assert not [n for n in r.notices if "re-pointed" in n or "dropped" in n], r.notices  # no marker was the paper's


@pytest.mark.slow
def test_a_question_about_the_library_lists_its_papers_with_their_abstracts(tmp_path, monkeypatch):
    s = papers_home(tmp_path, monkeypatch, PAPERS, COLLECTION)
    s.memory.enabled = False
    have, zh, overview, topical = asyncio.run(ask_all([
        "What papers do I have?",
        "这个知识库里有哪些论文？",
        "Give me an overview of the collection.",
        "Which papers compress road maps?",  # asks about a topic: searched as before
    ], s))
    assert (have.result.strategy, overview.result.strategy) == ("simple", "exploratory")  # both paths (rule router)
    for turn in (have, zh, overview):
        _check_listing(turn, "### The 3 papers of the collection", ["Ammonite", "Tessel", "Wrenfield"])
        assert "(2018)" in turn.result.final_answer
    assert topical.result.sources[0].doc_id == "tessel", topical.result.sources
    assert not topical.result.final_answer.startswith("###"), topical.result.final_answer


@pytest.mark.slow
def test_a_large_library_lists_some_papers_and_names_the_rest(tmp_path, monkeypatch):
    from core.strategies import library

    monkeypatch.setattr(library, "LIBRARY_PAPERS", 2)
    s = papers_home(tmp_path, monkeypatch, PAPERS, COLLECTION)
    s.memory.enabled = False
    (turn,) = asyncio.run(ask_all(["Which documents are in this collection?"], s))
    _check_listing(turn, "### 2 of the 3 papers of the collection, by title", ["Ammonite", "Tessel"])
    assert turn.result.final_answer.rstrip().endswith("#### Also here: Wrenfield: Calibrating Sensor Networks")


@pytest.mark.slow
def test_a_turn_scoped_to_one_paper_is_not_asked_about_the_library(tmp_path, monkeypatch):
    from core.agent import open_agent
    from core.brains.offline.brain import OfflineBrain

    s = papers_home(tmp_path, monkeypatch, PAPERS, COLLECTION)
    s.memory.enabled = False

    async def run() -> Turn:
        t = Turn()
        async with open_agent(s, brain=OfflineBrain(s), persist=False) as agent:
            async for ev in agent.run_turn("Which documents are in this collection?", doc_id="tessel"):
                t.events.append(ev)
        return t

    r = asyncio.run(run()).result
    assert "papers of the collection" not in r.final_answer, r.final_answer
    assert {src.doc_id for src in r.sources} == {"tessel"}


@pytest.mark.slow
def test_a_library_question_after_a_question_on_one_paper_still_lists_the_library(tmp_path, monkeypatch):
    """A second turn reads as a follow-up (这个 is a pronoun to the router) and its rewrite names the first
    turn's paper; what the library holds needs no antecedent, so the question as typed decides."""
    s = papers_home(tmp_path, monkeypatch, PAPERS, COLLECTION)
    s.memory.enabled = False
    first, zh = asyncio.run(ask_all(["How does Tessel compress road maps?", "这个知识库里有哪些论文？"], s,
                                    session="shelf", persist=True))
    assert zh.result.intent.type == "follow_up", zh.result.intent  # the rule router's reading
    _check_listing(zh, "### The 3 papers of the collection", ["Ammonite", "Tessel", "Wrenfield"])


@pytest.mark.slow
def test_the_oldest_or_newest_paper_is_asked_by_the_library_in_year_order(tmp_path, monkeypatch):
    """"Which paper in my library is the oldest?" is a library question with an order: the list runs by
    the years the hub keeps for its documents (list_collections gives them), oldest or newest first."""
    s = papers_home(tmp_path, monkeypatch, PAPERS, COLLECTION)
    s.memory.enabled = False
    oldest, newest, zh = asyncio.run(ask_all(["Which paper in my library is the oldest?",
                                              "What is the most recent paper I have?", "我的知识库里哪篇论文最新？"], s))
    _check_listing(oldest, "### The 3 papers of the collection, oldest first", ["Ammonite", "Wrenfield", "Tessel"])
    for turn in (newest, zh):
        _check_listing(turn, "### The 3 papers of the collection, newest first", ["Tessel", "Wrenfield", "Ammonite"])


@pytest.mark.slow
def test_a_follow_up_about_the_papers_just_listed_is_not_the_library(tmp_path, monkeypatch):
    """"Which of these papers is the oldest?" after a question that found some papers asks about those;
    a follow-up lists the library only when it owns the papers ("my papers", "the library")."""
    s = papers_home(tmp_path, monkeypatch, PAPERS, COLLECTION)
    s.memory.enabled = False
    _, these, mine = asyncio.run(ask_all(["Which papers compress road maps?", "Which of these papers is the oldest?",
                                          "And which of my papers is the oldest?"], s, session="shelf", persist=True))
    assert "papers of the collection" not in these.result.final_answer, these.result.final_answer
    _check_listing(mine, "### The 3 papers of the collection, oldest first", ["Ammonite", "Wrenfield", "Tessel"])
