"""A chain whose later step points back at what an earlier step found ("…, and what corpus did that model
introduce?"): the step is asked about the thing the earlier step's evidence names (offline brain,
the bundled hub as a real stdio process, invented papers)."""

from __future__ import annotations

import asyncio

from tests.integration.helpers import ask_all, papers_home

LIB = "marsh"

PAPERS = {
    "kite.md": """# Kite: Distilled Speech Recognition for Small Devices

Amara Okonkwo and Piet Lindqvist

## Abstract

In this paper, we introduce Kite, a distilled variant of Wren that runs on a phone.
Kite keeps nine tenths of Wren's accuracy with a fifth of its parameters.

## Method

Kite is trained to match the output distribution of its teacher on unlabeled audio.
""",
    "wren.md": """# Wren: Speech Recognition from Reed Recordings

Jonas Feldmann and Rita Okafor

## Abstract

We present Wren, an encoder-decoder speech recognizer trained from scratch.
To train it, we introduce the Reedbed Corpus, 9,000 hours of transcribed speech recorded outdoors.

## Results

Wren reaches a word error rate of 7.2% on the held-out reed recordings.
""",
    "heron.md": """# Heron: Sparse Routing for Long Documents

Sun Wei

## Abstract

We present Heron, which routes each token of a long document to a few experts.
We introduce a new pre-training corpus of long legal filings, the Docket Corpus.
""",
}

QUESTION = "Which model is Kite distilled from, and what training corpus did that model introduce?"


def test_a_step_that_points_back_is_asked_about_what_the_step_before_found(tmp_path, monkeypatch):
    """"that model" is Wren, the name Kite's evidence gives that the question does not: the second
    step searches for Wren's corpus. Before, it searched for "that model"'s corpus as written and
    quoted another paper's ("the Docket Corpus")."""
    s = papers_home(tmp_path, monkeypatch, PAPERS, LIB)
    (turn,) = asyncio.run(ask_all([QUESTION], s))
    r = turn.result
    assert r.strategy == "multi_hop", (r.strategy, r.final_answer)
    steps = [e.sub_questions for e in turn.of("plan_updated")][-1]
    assert any("Wren" in q and "that model" not in q for q in steps), steps
    conclusion = r.final_answer.split("**Conclusion:**")[-1]
    assert "Reedbed Corpus" in conclusion and "Docket" not in conclusion, r.final_answer
