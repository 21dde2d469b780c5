"""The stricter eval-qa measures on invented answers: each would read differently if computed wrongly."""

from __future__ import annotations

import random

import pytest

from core.citations import check_citations
from core.events import TurnResult
from core.state import CriticVerdict, Intent, Source
from core.types import RetrievedContext
from training import eval_qa_measures as m
from training.eval_qa import Question, score, summarize

DOCS = {
    "heron": "Heron is a sparse retrieval model. Heron indexes 40 million passages with a 12 ms latency.",
    "osprey": "Osprey is a dense retriever. Osprey reaches a recall of 91.4 on the harbour benchmark.",
}


def test_direct_answer_is_the_first_paragraph_not_the_padding() -> None:
    answer = "## Answer\nHeron indexes passages quickly [1].\nIt is sparse [1].\n\nHeron indexes 40 million passages [1]."
    assert m.direct_answer(answer) == "Heron indexes passages quickly [1].\nIt is sparse [1]."
    assert not m.answer_first_hit(answer, ["40 million"])
    assert m.answer_first_hit(answer, ["quickly"])
    assert m.answer_first_hit("40 million passages [1].\n\nMore.", ["40 million"])


def test_direct_answer_of_a_multi_hop_answer_is_its_conclusion() -> None:
    answer = ("1. **What does Heron index?** Heron indexes 40 million passages [1].\n"
              "2. **How fast is it?** It answers in 12 ms [1].\n\n"
              "**Conclusion:** Heron is a sparse retrieval model [1].\n\nFrom earlier sessions: Heron is fast.")
    assert m.direct_answer(answer) == "Heron is a sparse retrieval model [1]."
    assert not m.answer_first_hit(answer, ["40 million"])  # only in a step, not in the conclusion
    assert m.direct_answer("# Conclusion\nIt is sparse.\nAnd fast.\n\nPadding.") == "It is sparse.\nAnd fast."


def test_direct_answer_skips_a_recalled_line_and_keeps_a_table_whole() -> None:
    assert m.direct_answer("From earlier sessions: Heron is old.\n\nHeron is sparse [1].") == "Heron is sparse [1]."
    table = "| | Latency |\n|---|---|\n| **Heron** | 12 ms [1] |"
    assert m.direct_answer(table + "\n\n**Comparison.** Both retrieve [1].") == table


def test_per_document_gold_needs_each_documents_own_gold_in_its_own_cited_unit() -> None:
    gold = ["40 million", "91.4"]
    srcs = {1: "heron", 2: "osprey"}
    both = "| | Scale |\n|---|---|\n| **Heron** | 40 million passages [1] |\n| **Osprey** | recall of 91.4 [2] |"
    assert m.per_document_hit(both, srcs, ["heron", "osprey"], gold, DOCS)
    one_sided = "| | Scale |\n|---|---|\n| **Heron** | 40 million passages [1] |\n| **Osprey** | a dense retriever [2] |"
    assert not m.per_document_hit(one_sided, srcs, ["heron", "osprey"], gold, DOCS)
    # Osprey's number in a row that cites Heron: the wrong paper in the row
    swapped = "Heron indexes 40 million passages [1]. Heron gets 91.4 recall [1]. Osprey is dense [2]."
    assert not m.per_document_hit(swapped, srcs, ["heron", "osprey"], gold, DOCS)
    # both strings in one sentence citing both: the two documents do not get a unit each
    merged = "Heron indexes 40 million passages and Osprey reaches 91.4 [1][2]."
    assert not m.per_document_hit(merged, srcs, ["heron", "osprey"], gold, DOCS)
    split = "Heron indexes 40 million passages [1]. Osprey reaches 91.4 [2]."
    assert m.per_document_hit(split, srcs, ["heron", "osprey"], gold, DOCS)


def test_a_document_that_holds_no_gold_accepts_any_gold_string() -> None:
    texts = {"heron": DOCS["heron"], "osprey": "Osprey is a dense retriever."}
    answer = "Heron indexes 40 million passages [1]. Osprey, unlike Heron's 40 million, is dense [2]."
    assert m.gold_owners(["40 million"], texts) == {"40 million": {"heron"}}
    assert m.per_document_hit(answer, {1: "heron", 2: "osprey"}, ["heron", "osprey"], ["40 million"], texts)


def test_reliability_curve_and_ece() -> None:
    curve, ece = m.reliability([0.95, 0.95, 0.15, 0.15], [True, False, False, False])
    assert curve == [{"bin": "0.1-0.2", "n": 2, "mean_score": 0.15, "accuracy": 0.0},
                     {"bin": "0.9-1.0", "n": 2, "mean_score": 0.95, "accuracy": 0.5}]
    assert ece == pytest.approx(0.5 * 0.15 + 0.5 * 0.45)
    assert m.reliability([0.0, 1.0], [False, True]) == (
        [{"bin": "0.0-0.1", "n": 1, "mean_score": 0.0, "accuracy": 0.0},
         {"bin": "0.9-1.0", "n": 1, "mean_score": 1.0, "accuracy": 1.0}], 0.0)


def _ctx(doc: str, text: str) -> RetrievedContext:
    return RetrievedContext(chunk_id=f"{doc}#0", doc_id=doc, content=text, source=f"/p/{doc}.md", title=doc)


def test_claim_support_before_repair_counts_what_the_formatter_would_fix() -> None:
    contexts = [_ctx("heron", DOCS["heron"]), _ctx("osprey", DOCS["osprey"])]
    draft = ("Heron indexes 40 million passages [2]. Osprey reaches a recall of 91.4 on the harbour benchmark [2]. "
             "Heron answers in 12 ms [5].")
    assert m.draft_support(draft, contexts) == (1, 3)  # a wrong chunk, a right one, a marker no chunk has
    repaired, changes = check_citations(draft, contexts)
    assert changes and m.draft_support(repaired, contexts)[0] == 2  # after repair the same claims look better


def test_recalled_pieces_and_which_are_unrelated() -> None:
    answer = ("Heron indexes 40 million passages [1].\n\nFrom earlier sessions: Heron is a sparse retrieval model. "
              "Osprey reaches a recall of 91.4 on the harbour benchmark [2]. Bats sleep by day.")
    pieces = m.recalled_pieces(answer)
    assert pieces == ["Heron is a sparse retrieval model.", "Osprey reaches a recall of 91.4 on the harbour benchmark [2].",
                      "Bats sleep by day."]
    assert m.unrelated_pieces(pieces, ["heron"], DOCS) == pieces[1:]
    assert m.unrelated_pieces(pieces, [], DOCS) == pieces  # an unanswerable question: all of it
    assert m.recalled_pieces("No recall here.") == []


def test_a_recalled_fact_is_traced_by_the_title_it_names_or_the_text_it_quotes() -> None:
    titles = {"heron": "Heron: Sparse Retrieval", "osprey": "Osprey: Dense Retrieval"}
    pieces = ["Heron: Sparse Retrieval says: it is the fastest retriever ever built.",  # names the paper
              "Osprey: Dense Retrieval (and 2 other documents) says: Heron indexes 40 million passages",  # quotes heron
              "Osprey: Dense Retrieval says: Osprey is a dense retriever.",
              "Kestrel: Image Models says: Kestrel sees well."]
    assert m.unrelated_pieces(pieces, ["heron"], DOCS, titles) == pieces[2:]
    assert m.unrelated_pieces(pieces, ["osprey"], DOCS, titles) == [pieces[0], pieces[3]]


def test_review_sheet_is_a_seeded_blind_sample_with_a_score_column() -> None:
    rows = [{"id": f"q{i}", "question": f"Question {i}?", "answer": f"Answer {i} [1].\n\nMore {i}.",
             "sources": [{"index": 1, "title": f"Paper {i}", "doc": f"p{i}", "page": 3}], "gold": "SECRET"}
            for i in range(10)]
    sheet = m.review_sheet(rows, 4, seed=7, title="dev")
    picked = [r["id"] for r in random.Random(7).sample(rows, 4)]
    assert sheet == m.review_sheet(rows, 4, seed=7, title="dev")
    assert [ln.split("|")[2].strip() for ln in sheet.splitlines() if ln.startswith("| ") and "q" in ln] == picked
    assert "| # | id | score (1–5) | note |" in sheet and sheet.count("Score (1–5): ____") == 4
    assert "SECRET" not in sheet and "> More" in sheet and "[1] Paper" in sheet and ", p. 3" in sheet
    assert m.review_sheet(rows, 50).count("Score (1–5)") == 10


def _turn(answer: str, docs: list[str], score10: float = 8, passed: bool = True) -> TurnResult:
    sources = [Source(index=i + 1, chunk_id=f"{d}#0", doc_id=d, source=f"/x/{d}.md", title=d,
                      text=DOCS[d]) for i, d in enumerate(docs)]
    return TurnResult(question="q", session_id="s", trace_id="t", intent=Intent(type="comparative", confidence=0.9),
                      strategy="comparative", final_answer=answer, sources=sources,
                      critic=CriticVerdict(passed=passed, score=score10, completeness=1, faithfulness=1),
                      retry_count=0, llm_calls=0, tokens={}, timings_ms={})


def test_summary_reports_the_new_measures_beside_the_old() -> None:
    q = Question("c1", "Compare Heron and Osprey.", "comparative", ["heron", "osprey"], ["40 million", "91.4"])
    one_sided = _turn("Heron indexes 40 million passages [1]. Osprey is a dense retriever [2].", ["heron", "osprey"])
    both = _turn("Heron indexes 40 million passages [1]. Osprey reaches 91.4 [2].\n\nFrom earlier sessions: "
                 "Bats sleep by day.", ["heron", "osprey"], score10=3, passed=False)
    contexts = [_ctx("heron", DOCS["heron"]), _ctx("osprey", DOCS["osprey"])]
    rows = [score(q, one_sided, seconds=1.0, doc_texts=DOCS, draft="Heron indexes 40 million passages [2].",
                  contexts=contexts),
            score(q, both, seconds=1.0, doc_texts=DOCS)]
    r = summarize(rows)
    assert r["comparative"] == {"n": 2, "any_gold": 1.0, "per_document_gold": 0.5}
    assert r["gold_term"] == 1.0 and r["answer_first_gold"] == 1.0
    assert r["critic"]["ece"] == pytest.approx(0.5 * 0.2 + 0.5 * 0.7)
    # the first turn's draft cited the wrong chunk; the second has no draft, so its final answer stands in
    assert r["claim_precision_before_repair"] == pytest.approx(2 / 3, abs=1e-3)
    assert r["claim_citation_precision"] == 1.0
    assert r["recalled"] == {"answers_with_recalled": 1, "pieces": 1, "unrelated_pieces": 1,
                             "answers_with_unrelated": 1, "unrelated_ids": ["c1"]}
    assert r["provenance"] == {"answers": 0, "ids": [], "by_kind": {}}
