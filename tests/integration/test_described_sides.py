"""A comparison whose sides are described rather than named: each paper by a word of its text
("the HRX paper") that its title and file name do not carry.
No title or file names a side, so each side's paper is the document its own retrieval mostly came
from; the side's search is scoped to it and the side's cells quote it (offline brain, the bundled
hub as a real stdio process, invented papers)."""

from __future__ import annotations

import asyncio
import re

from tests.integration.helpers import ask_all, papers_home

LIB = "herons"

# Invented papers; the file names (paper1.md …) name none of them.
PAPERS = {
    "paper1.md": """# Sparse Routing for Long Heron Documents

Amara Okonkwo, Piet Lindqvist and Sun Wei

## Abstract

We present HRX, which routes each token of a long document to a few heron experts chosen by a learned gate.
HRX keeps the cost linear in the document length.

## Method

The gate scores every heron expert for a token and keeps the top two experts.
A balancing loss spreads the tokens evenly over the heron experts.

## Results

HRX reaches 81.4 accuracy on the heron reading benchmark while using a third of the compute.
Accuracy stays within one point of the dense model on documents of sixty thousand tokens.
""",
    "paper2.md": """# Listening for Boundaries in Birdsong Streams

Jonas Feldmann and Rita Okafor

## Abstract

We present FRB, a frame-rate boundary detector that segments birdsong streams into calls.
FRB reads the spectrogram one frame at a time and marks where a call starts.

## Method

FRB scores each frame with a small convolutional network and smooths the scores over time.
A boundary is placed where the smoothed score crosses a learned threshold.

## Results

FRB finds call boundaries with 92.7 accuracy on the marsh recordings benchmark.
Its accuracy falls by four points when two birds call at once.
""",
    "paper3.md": """# A Survey of Wading Bird Datasets

Carla Mendes

## Abstract

We survey twelve public datasets of wading bird recordings and images.
Most datasets report accuracy on a single marsh, which limits how far results carry.

## Findings

Accuracy figures across the surveyed datasets are rarely comparable, since their splits differ.
We recommend that benchmarks report accuracy per site and per season.
""",
}

QUESTION = "Compare the HRX paper and the FRB paper in accuracy"


def test_described_sides_are_each_read_from_the_paper_their_retrieval_comes_from(tmp_path, monkeypatch):
    s = papers_home(tmp_path, monkeypatch, PAPERS, LIB)  # all three papers added
    (turn,) = asyncio.run(ask_all([QUESTION], s))
    r = turn.result
    assert r.strategy == "comparative"
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| \*\*(.+?)\*\* \|(.*)$", r.final_answer, re.M)}
    by_index = {src.index: src.title for src in r.sources}
    titles = {name: {by_index[int(n)] for n in re.findall(r"\[(\d+)\]", row)} for name, row in rows.items()}
    assert titles.get("HRX") == {"Sparse Routing for Long Heron Documents"}, r.final_answer
    assert titles.get("FRB") == {"Listening for Boundaries in Birdsong Streams"}, r.final_answer
    assert "81.4" in rows["HRX"] and "92.7" in rows["FRB"], r.final_answer


def test_sides_described_by_ordinary_words_are_the_papers_whose_titles_hold_them(tmp_path, monkeypatch):
    """"the sparse routing paper" and "the birdsong streams paper" carry no name shape or vocabulary
    term: each is the paper whose title holds its words (:mod:`core.described`). Before, the question
    had no sides, was read as a factual question and answered as one."""
    s = papers_home(tmp_path, monkeypatch, PAPERS, LIB)
    question = "Compare the sparse routing paper and the birdsong streams paper in accuracy"
    (turn,) = asyncio.run(ask_all([question], s))
    r = turn.result
    assert r.strategy == "comparative", (r.strategy, r.final_answer)
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| \*\*(.+?)\*\* \|(.*)$", r.final_answer, re.M)}
    by_index = {src.index: src.title for src in r.sources}
    titles = {name: {by_index[int(n)] for n in re.findall(r"\[(\d+)\]", row)} for name, row in rows.items()}
    assert titles == {"Sparse Routing for Long Heron Documents": {"Sparse Routing for Long Heron Documents"},
                      "Listening for Boundaries in Birdsong Streams": {"Listening for Boundaries in Birdsong Streams"}}, \
        r.final_answer
    assert "81.4" in rows["Sparse Routing for Long Heron Documents"], r.final_answer
    assert "92.7" in rows["Listening for Boundaries in Birdsong Streams"], r.final_answer


def test_sides_described_as_what_the_papers_build_are_the_papers_whose_titles_hold_those_words(tmp_path, monkeypatch):
    """"the sparse heron router" and "the birdsong stream listener" call no paper a paper: each is a noun
    phrase whose words a title holds (:func:`core.described.phrase_descriptions`). Before, the question had
    no two sides and was answered as a factual question about one of them ("→one side")."""
    s = papers_home(tmp_path, monkeypatch, PAPERS, LIB)
    question = "Compare the sparse heron router and the birdsong stream listener in accuracy"
    (turn,) = asyncio.run(ask_all([question], s))
    r = turn.result
    assert r.strategy == "comparative", (r.strategy, r.intent, r.final_answer)
    rows = {m.group(1): m.group(2) for m in re.finditer(r"^\| \*\*(.+?)\*\* \|(.*)$", r.final_answer, re.M)}
    assert set(rows) == {"Sparse Routing for Long Heron Documents", "Listening for Boundaries in Birdsong Streams"}, \
        r.final_answer
    assert "81.4" in rows["Sparse Routing for Long Heron Documents"], r.final_answer
    assert "92.7" in rows["Listening for Boundaries in Birdsong Streams"], r.final_answer
