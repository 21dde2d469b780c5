"""A comparison whose sides are written as author citations ("Okafor et al.", "Lindqvist and Reyes
(2022)"), end to end on invented papers: the real bundled hub as a stdio server with real SQLite, the
real encoder and the offline brain. Neither paper's text names its authors; only its byline (front
matter the hub returns as each chunk's metadata) does, so each side gets the row of the paper whose
byline carries it, quoting that paper only."""

from __future__ import annotations

import asyncio

import pytest

from tests.integration.helpers import ask_all, papers_home

COLLECTION = "bylines"
PAPERS = {
    "plover.md": "---\ntitle: Sparse Adapters for Frozen Speech Encoders\nauthors: [Adaeze Okafor, Minh Tran]\n"
                 "year: 2021\n---\n\n# Sparse Adapters for Frozen Speech Encoders\n\n## Abstract\n\n"
                 "Fine-tuning a speech encoder usually updates every weight. PLOVER trains sparse adapters inside "
                 "a frozen encoder and cuts the memory use of fine-tuning to 3 GB on one device. PLOVER reaches "
                 "a word error rate of 7.2% on CallSet, an accuracy close to full fine-tuning.\n",
    "skua.md": "---\ntitle: 'SKUA: Low-Rank Speech Adapters'\nauthors: [Elin Lindqvist, Paulo Reyes]\nyear: 2022\n"
               "---\n\n# SKUA: Low-Rank Speech Adapters\n\n## Abstract\n\nSKUA adds low-rank adapters to every "
               "attention layer of a speech encoder. SKUA needs 11 GB of memory during training. SKUA matches "
               "the accuracy of full fine-tuning on CallSet with a word error rate of 7.0%.\n",
}


def _rows(answer: str) -> dict[str, str]:
    return {ln.split("|")[1].strip(" *"): ln for ln in answer.splitlines() if ln.startswith("| **")}


@pytest.mark.slow
def test_sides_cited_by_their_authors_get_the_rows_of_the_papers_their_bylines_name(tmp_path, monkeypatch):
    s = papers_home(tmp_path, monkeypatch, PAPERS, COLLECTION)
    s.memory.enabled = False

    etal, pair = asyncio.run(ask_all([
        "Compare Okafor et al. and Lindqvist et al. in memory use and accuracy",
        "Compare Okafor et al. (2021) with Lindqvist and Reyes (2022) in memory use",
    ], s))
    for turn, names in ((etal, ["Okafor et al.", "Lindqvist et al."]),
                        (pair, ["Okafor et al. (2021)", "Lindqvist and Reyes (2022)"])):
        answer = turn.result.final_answer
        assert turn.result.strategy == "comparative", answer
        rows = _rows(answer)
        assert list(rows) == names, answer
        okafor, lindqvist = rows[names[0]], rows[names[1]]
        assert "3 GB" in okafor and "11 GB" not in okafor, answer
        assert "11 GB" in lindqvist and "3 GB" not in lindqvist, answer
    assert "7.2%" in _rows(etal.result.final_answer)["Okafor et al."], etal.result.final_answer
    assert "7.0%" in _rows(etal.result.final_answer)["Lindqvist et al."], etal.result.final_answer
