"""Pure parts: outline files, outline diffs, facets, dedupe across points, queries per point, the
review's References list."""

from __future__ import annotations

import pytest

import re

from core.research.outline import OutlineError, clarifying_questions, diff, facets, load_outline
from core.research.review import Section, assemble
from core.research.search import PointHits, dedupe, queries
from core.research.types import KnowledgePoint, Outline
from core.types import RetrievedContext
from core.vocabulary import Term, Vocabulary


def outline_dict(**over) -> dict:
    points = [{"id": f"KP{i}", "category": "C", "topic": f"topic {i}", "importance": "high"} for i in (1, 2, 3)]
    return {"title": "T", "knowledge_points": points, **over}


def test_a_malformed_outline_names_the_field():
    bad = outline_dict()
    bad["knowledge_points"][2]["importance"] = "urgent"
    with pytest.raises(OutlineError, match=r"^knowledge_points\[2\]\.importance: "):
        load_outline(bad)
    with pytest.raises(OutlineError, match=r"^title: "):
        load_outline({"knowledge_points": []})
    dup = outline_dict()
    dup["knowledge_points"][1]["id"] = "KP1"
    with pytest.raises(OutlineError, match=r"knowledge_points\[1\]\.id: duplicate"):
        load_outline(dup)
    with pytest.raises(OutlineError, match="JSON object"):
        load_outline([1, 2])
    assert load_outline(outline_dict()).knowledge_points[0].id == "KP1"


def test_diff_lists_added_removed_and_changed_points():
    before = load_outline(outline_dict())
    after = before.model_copy(deep=True)
    after.knowledge_points.pop(0)
    after.knowledge_points[0].topic = "new topic"
    after.knowledge_points.append(KnowledgePoint(id="KP7", category="C", topic="added"))
    assert diff(before, after) == (["KP7"], ["KP1"], ["KP2"])
    assert diff(before, before) == ([], [], [])
    assert isinstance(after, Outline)


def test_facets_split_a_topic_on_its_conjunctions():
    assert facets("Parameter-efficient fine-tuning and alignment of LLMs") == [
        "Parameter-efficient fine-tuning", "alignment of LLMs"]
    assert facets("RLHF vs DPO, reward models") == ["RLHF", "DPO", "reward models"]


def test_each_chunk_is_kept_under_the_point_that_scored_it_highest():
    def ctx(cid: str) -> RetrievedContext:
        return RetrievedContext(content=cid, chunk_id=cid)

    a = PointHits("KP1", [ctx("x"), ctx("y")], {"x": 0.9, "y": 0.2})
    b = PointHits("KP2", [ctx("y"), ctx("z")], {"y": 0.8, "z": 0.5})
    c = PointHits("KP3", [ctx("x")], {"x": 0.9})  # a tie goes to the earlier point
    dedupe([a, b, c])
    assert [x.chunk_id for x in a.contexts] == ["x"] and a.also_under == {"x": ["KP3"]}
    assert [x.chunk_id for x in b.contexts] == ["y", "z"] and b.also_under == {"y": ["KP1"]}
    assert c.contexts == [] and c.also_under == {}


def test_a_point_is_searched_with_its_topic_and_keyword_sub_queries():
    p = KnowledgePoint(id="KP1", category="C", topic="LoRA (2021): fine-tuning", search_keywords=["rank", "LoRA memory"])
    assert queries(p) == ["LoRA (2021): fine-tuning", "LoRA rank", "LoRA memory"]


def test_headings_papers_share_are_not_a_point_s_search_keywords():
    from core.research.outline import build_outline
    from core.vocabulary import Vocabulary

    def hit(doc: str, title: str, heading: str, n: int) -> RetrievedContext:
        return RetrievedContext(content=f"{title} adapts models with few parameters.", chunk_id=f"{doc}_{n}",
                                doc_id=doc, title=title, breadcrumb=f"{title} > {heading}")

    hits = {"parameter-efficient fine-tuning": [
        hit("lora", "LoRA", "Key results", 0), hit("lora", "LoRA", "Low-rank update matrices", 1),
        hit("qlora", "QLoRA", "Key results", 0), hit("qlora", "QLoRA", "4-bit NormalFloat quantization", 1),
    ]}
    outline = build_outline("Parameter-efficient fine-tuning", hits, Vocabulary())
    keywords = {k for p in outline.knowledge_points for k in p.search_keywords}
    assert "Key results" not in keywords
    assert {"Low-rank update matrices", "4-bit NormalFloat quantization"} <= keywords


def test_each_reference_is_its_own_list_item_numbered_as_cited():
    """A Markdown list, not one paragraph: the chat showed ``[1] … [2] … [3] …`` run together."""
    contexts = [RetrievedContext(content=f"c{i}", chunk_id=f"c{i}", title=f"Paper {i}", breadcrumb=f"Paper {i} > Intro")
                for i in (1, 2, 3)]
    points = [KnowledgePoint(id=f"KP{i}", category="C", topic=f"topic {i}") for i in (1, 2)]
    sections = [Section(points[0], "First claim [3]. Second claim [1]."), Section(points[1], "Third claim [2].")]
    found = [PointHits("KP1", contexts[:1] + contexts[2:]), PointHits("KP2", contexts[1:2])]
    review = assemble(Outline(title="T", knowledge_points=points), sections, [], contexts, found,
                      {"KP1": [1, 3], "KP2": [2]}, Vocabulary(), retried=[], uncovered=[])
    body, refs = review.markdown.split("## References\n")
    items = [line for line in refs.splitlines() if line.strip()]
    assert items == ["- [1] Paper 3 — Paper 3 > Intro", "- [2] Paper 1 — Paper 1 > Intro",
                     "- [3] Paper 2 — Paper 2 > Intro"]
    cited = sorted({int(n) for n in re.findall(r"\[(\d+)\]", body)})
    assert cited == [s.index for s in review.sources] == [1, 2, 3]


def test_the_focus_question_names_only_papers_with_a_short_name():
    """A long title has no head (``title_head`` is empty): it is left out, not listed as ``, ,``."""
    long = "Training language models to follow instructions with human feedback"
    vocab = Vocabulary(terms=(Term(long, year=2022, kind="paper"), Term("DPO: Direct Preference Optimization",
                       year=2023, kind="paper"), Term("LoRA: Low-Rank Adaptation", year=2021, kind="paper")))
    focus = clarifying_questions("LoRA and DPO", vocab)[1].question
    assert focus.endswith("The library holds, among others: DPO, LoRA.")
    nameless = Vocabulary(terms=(Term(long, year=2022, kind="paper"),))
    assert clarifying_questions("LoRA", nameless)[1].question == "Which methods or papers should it focus on?"


def test_research_gaps_come_only_from_the_papers_the_sections_cite():
    from core.research.review import gaps, reviewed

    ctxs = [RetrievedContext(content="LoRA adapts frozen weights. A limitation is that LoRA cannot batch tasks "
                                     "with different adapters easily.", chunk_id="lora_1", doc_id="lora"),
            RetrievedContext(content="Future work should study rationales without costly annotated datasets "
                                     "of intermediate steps.", chunk_id="cot_1", doc_id="cot"),
            RetrievedContext(content="DPO trains on preference pairs. A limitation is that DPO was evaluated only "
                                     "up to 6B parameters.", chunk_id="dpo_1", doc_id="dpo")]
    sections = ["LoRA freezes the weights [1].", "DPO skips the reward model [3]."]
    assert reviewed(sections, ctxs) == {"lora", "dpo"}
    kept = gaps(ctxs, only=reviewed(sections, ctxs))
    assert len(kept) == 2 and kept[0].endswith("[1].") and kept[1].endswith("[3].")
    assert any("rationales" in g for g in gaps(ctxs))  # without the filter the brushed paper's sentence came in
