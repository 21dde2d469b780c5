"""The vocabulary comes from the documents themselves: titles, defined acronyms, repeated headings
and name-shaped words, on invented papers the brain has never seen."""

from __future__ import annotations

import pytest

from core.vocabulary import DocumentText, Vocabulary, build, definitions

DOCS = [
    DocumentText(
        title="Zephyrine: Gated Recurrent Kernels for Long Audio", year=2024,
        headings=["Summary", "Kernel Gating"],
        chunks=["Zephyrine introduces gated recurrent kernels (GRK) for long audio. Kernel gating keeps state small.",
                "The GRK cell is trained on LibriLight-60k with a Kernel Gating schedule. Kernel Gating halves memory.",
                "Unlike the Transformer, which the authors call The GRK baseline, Zephyrine streams audio."]),
    DocumentText(
        title="BRISK: Bidirectional Residual Importance Sampling Kernels", year=2021,
        headings=["Overview"],
        chunks=["We define bidirectional residual importance sampling (BRIS) and use it with LibriLight-60k audio.",
                "BRISK beats GRK-style baselines; the Transformer is slower. We react quickly to drift, as ReAct does.",
                "ViTs and ViT are vision models; the Transformer again.", "A ViT baseline."]),
    DocumentText(title="Attention to Small Things in Audio", year=2019, chunks=["A short note."]),
]


def test_definitions_find_the_long_form_that_spells_the_acronym():
    assert definitions("we use gated recurrent kernels (GRK) here") == [("GRK", "gated recurrent kernels")]
    assert definitions("faster than trust region policy optimization (TRPO)") == [
        ("TRPO", "trust region policy optimization")]
    assert definitions("we react (WR) fast") == []


def test_title_heads_definitions_headings_and_name_shapes_become_terms():
    v = build(DOCS, revision=3)
    names = v.names()
    zeph, brisk = v.get("zephyrine"), v.get("BRISK")
    assert zeph.kind == "paper" and zeph.year == 2024
    assert brisk.kind == "paper" and brisk.aliases[0] == DOCS[1].title
    assert "Bidirectional Residual Importance Sampling Kernels" in brisk.aliases  # the subtitle spells it
    assert v.get("GRK").aliases == ("gated recurrent kernels",) and v.get("GRK").year == 2024
    assert v.get("BRIS").aliases == ("bidirectional residual importance sampling",) and v.get("BRIS").year == 2021
    assert "Kernel Gating" in names and "Summary" not in names and "Overview" not in names
    assert "LibriLight-60k" in names and "Transformer" in names
    assert "The GRK" not in names and "ViTs" not in names and "ViT" in names
    assert v.get("Attention to Small Things in Audio").kind == "paper"
    assert v.revision == 3


def test_a_name_that_is_also_an_ordinary_word_matches_only_as_written():
    v = build(DOCS + [DocumentText(title="x", chunks=["ReAct prompts", "ReAct again"])])
    assert v.get("ReAct").case_sensitive == ("ReAct",)


def test_the_vocabulary_round_trips_through_the_wire_format():
    v = build(DOCS, revision=7)
    assert Vocabulary.from_dict(v.to_dict()) == v
    assert Vocabulary.from_titles(["Kolmogorov Nets: a study"]).get("Kolmogorov Nets").kind == "paper"


def test_a_lower_case_compound_tail_is_not_part_of_a_name():
    from core.vocabulary import NAME

    found = lambda text: [m.group(0) for m in NAME.finditer(text)]  # noqa: E731
    assert found("GPT-3.5-written lecture notes") == ["GPT-3.5"]
    assert found("BERT-style encoders and ViT-based nets") == ["BERT", "ViT"]
    assert found("Transformer-XL, text-davinci-003, phi-1.5 and ViT-B") == ["Transformer-XL", "text-davinci-003",
                                                                           "phi-1.5", "ViT-B"]


def test_a_paper_titled_by_a_long_form_is_that_names_document():
    from core.brains.offline.evidence import is_document_of
    from core.types import RetrievedContext
    v = build([DocumentText(title="Video Gizmos", chunks=["We extend masked gizmo learners (MGL) to video. MGL again."])])
    paper = RetrievedContext(content="We mask 75% of the patches.", title="Masked Gizmo Learners Are Scalable",
                             doc_id="vit_mgl", chunk_id="vit_mgl#0", source="docs/vit_mgl.md")
    assert is_document_of(paper, "MGL", v)
    assert not is_document_of(paper, "MGL", Vocabulary())  # without the collection's vocabulary nothing says so


def test_a_long_form_the_collection_uses_as_a_common_phrase_is_not_the_acronym_s_alias():
    docs = [DocumentText(title="MusicGen: music generation", chunks=[
                "MusicGen is a single Language Model (LM) over several streams of audio tokens."]),
            DocumentText(title="LoRA: Low-Rank Adaptation of Large Language Models", chunks=[
                "Low-Rank Adaptation (LoRA) freezes the weights; LoRA trains rank decomposition matrices."])]
    docs += [DocumentText(title=f"Paper {n}", chunks=[f"We pre-train a language model on corpus {n}; the language "
                                                       f"model uses low-rank adaptation (LoRA) adapters."])
             for n in range(4)]
    vocab = build(docs)
    assert vocab.get("LM") is not None and "Language Model" not in vocab.get("LM").aliases
    assert "Low-Rank Adaptation" in vocab.get("LoRA").aliases


def test_a_work_cited_by_two_authors_is_one_name() -> None:
    """"Smith and Eisner (2005)" is one cited work: a question comparing a system with it has two sides,
    not three ("Smith", "Eisner" and the system), and "Och & Ney, 2003" reads the same way."""
    from core.brains.offline.slots import extract_entities

    doc = DocumentText("Prototype Tagging", 2006, [], [
        "Our tagger is compared with Smith and Eisner (2005), who use a tagging dictionary. Smith reported "
        "results earlier.", "Alignments follow (Och & Ney, 2003). Smith and Eisner (2005) reach 79.5% on it."])
    vocab = build([doc])
    term = vocab.get("Smith and Eisner")
    assert term is not None and term.kind == "citation" and term.year == 2005
    assert vocab.get("Och and Ney") is not None and vocab.get("Och and Ney").year == 2003
    q = "When PROTO is compared with Smith and Eisner on the coarse tag set, what accuracies do they get?"
    assert extract_entities(q, vocab) == ["PROTO", "Smith and Eisner"]
    assert build([DocumentText("Plain", 2020, [], ["Smith and Eisner wrote it without a year."])]).get(
        "Smith and Eisner") is None  # no year: no citation


def test_two_papers_of_the_collection_or_a_year_without_a_citations_form_are_no_cited_work() -> None:
    from core.brains.offline.lexicon import mentions
    from core.brains.offline.slots import extract_entities

    vocab = build([DocumentText("Kestrel: Reading Receipts", 2022, [],
                                ["We improve on Kestrel and Osprey (2022). It rained in January and February 2020. "
                                 "Tagging follows Lee and Kim, 2019a, and (Och & Ney, 2003)."]),
                   DocumentText("Osprey: Forms", 2022, [], ["Osprey reads forms."])])
    assert extract_entities("Compare Kestrel and Osprey.", vocab) == ["Kestrel", "Osprey"]
    assert vocab.get("January and February") is None
    assert vocab.get("Lee and Kim").year == 2019
    assert mentions("as in (Och & Ney, 2003)", "Och and Ney", vocab)  # the "&" form is the same work


def test_a_name_and_its_line_broken_spelling_are_one_term():
    """A PDF's line break can keep a hyphen inside a name ("Trust-\\nRank" → "Trust-Rank"): one name, under
    its usual spelling, with the other as an alias; a question typing either is about it."""
    from core.brains.offline.slots import extract_entities

    text = ("TrustRank propagates trust from a seed set. The scores of Trust-Rank are computed for each page. "
            "We evaluate Trust-Rank on a sample. TrustRank demotes spam.")
    vocab = build([DocumentText("Combating Spam", 2004, [], [text, text, "TrustRank is cheap."]), *DOCS])
    assert "TrustRank" in vocab.names() and "Trust-Rank" not in vocab.names(), vocab.names()
    assert extract_entities("Compare TrustRank and BRISK", vocab) == ["TrustRank", "BRISK"]
    assert extract_entities("Compare Trust-Rank and BRISK", vocab) == ["TrustRank", "BRISK"]


def test_two_papers_whose_names_differ_by_a_hyphen_stay_two_and_a_merge_keeps_the_year():
    vocab = build([DocumentText("X-Net: Cross Networks for Retrieval", 2019, [], ["X-Net retrieves passages."]),
                   DocumentText("XNet: Explainable Networks for Vision", 2023, [], ["XNet explains images."])])
    assert {"X-Net", "XNet"} <= set(vocab.names()), vocab.names()
    text = "The Multi-Task Deep Neural Network (MT-DNN) shares layers. We compare with MTDNN and MTDNN again."
    merged = build([DocumentText("Notes on Sharing", 2019, [], [text, "MTDNN is strong. MTDNN wins."])])
    term = next(t for t in merged.terms if t.name.replace("-", "") == "MTDNN")
    assert term.year == 2019 and "MT-DNN" in {term.name, *term.aliases}, term


def _long_paper(title: str, opening: str, body: list[str]) -> DocumentText:
    return DocumentText(title=title, year=2011, chunks=[opening, *body])


OWN = [
    _long_paper("Stitching Sparse Gauges into Calibrated Networks",
                "Sensor networks drift. We implemented two stitching rules in the QUILLON calibration system, which "
                "halves the drift of earlier calibrators such as GAUGEMAP.",
                ["QUILLON reads every gauge once.", "QUILLON then stitches neighbours.", "GAUGEMAP does not.",
                 "Table 2 shows QUILLON against GAUGEMAP.", "Rules matter.", "QUILLON is fast."]),
    _long_paper("Learning Relations from the Web with Few Labels",
                "We introduce a weakly supervised approach to OIE that needs a handful of examples.",
                [*(f"Section {i} on kernels." for i in range(18)), "OIE again."]),
    _long_paper("A Survey of Gauge Calibration",
                "We describe GAUGEMAP and its successors in detail.",
                ["GAUGEMAP maps gauges.", "GAUGEMAP has limits.", "GAUGEMAP is old.", "QUILLON is newer."]),
]


def test_a_name_a_paper_introduces_as_its_own_is_tied_to_that_paper():
    """QUILLON is the first name after "We implemented … in the" in its paper's opening and that paper uses it
    throughout: it is that paper's own, with its year. OIE is named after "We introduce" too, but as the
    task in passing (2 uses in 20 chunks); GAUGEMAP is the survey's first name after "We describe", but
    the survey does not use it twice as often as the others together: neither is a paper's own."""
    v = build(OWN)
    quillon = v.get("QUILLON")
    assert quillon.paper == OWN[0].title and quillon.year == 2011 and quillon.kind == "method"
    assert v.get("OIE").paper == ""
    assert v.get("GAUGEMAP").paper == ""
    assert Vocabulary.from_dict(v.to_dict()).get("QUILLON").paper == OWN[0].title  # over the wire
    # search hits harvested from another hub are neither whole nor in order: no name is tied to them
    assert build(OWN, own_names=False).get("QUILLON").paper == ""


def test_a_contribution_statement_needs_we_and_its_verb_together():
    """"the design of QUILLON" is no statement that the paper designs it; "a system called QUILLON" is."""
    body = ["QUILLON reads.", "QUILLON stitches.", "QUILLON again."]
    noun = build([_long_paper("Sensor Notes", "Critical decisions in the design of QUILLON are unexplained.", body)])
    called = build([_long_paper("Sensor Notes", "This note describes a system called QUILLON for gauges.", body)])
    assert noun.get("QUILLON").paper == "" and called.get("QUILLON").paper == "Sensor Notes"


def test_a_name_two_papers_introduce_is_neither_papers_own():
    """Both openings introduce QUILLON, and the first uses it far more: still no paper's own."""
    body = [f"QUILLON step {i}." for i in range(6)]
    both = build([_long_paper("Stitching Gauges", "We present QUILLON for gauges.", body),
                  _long_paper("Gauges Revisited", "We present QUILLON again, briefly.", ["A note."])])
    assert both.get("QUILLON").paper == ""


@pytest.mark.parametrize("opening", [
    "We introduce Wrenfield, a model initialised from QUILLON weights.",  # the statement's first name is the paper's own
    "We build on the QUILLON extractor to read gauges.",  # builds on it
    "We propose to use QUILLON for gauges.",  # uses it
    "We propose a simple method that beats QUILLON on gauges.",  # beats it
    "We present results on QUILLON gauges.",  # results on it
    "We introduce a gauge reader without QUILLON blocks.",  # without it
    "The so-called QUILLON regime limits every gauge.",  # so-called: no statement
])
def test_a_name_a_paper_uses_builds_on_or_beats_is_not_its_own(opening):
    body = [f"QUILLON is read in step {i}." for i in range(6)]
    v = build([_long_paper("Wrenfield: Reading Sparse Gauges", opening, body), DocumentText("Other Notes", 0, [], ["x."])])
    assert v.get("QUILLON").paper == "", opening


def test_a_name_that_is_also_an_ordinary_word_is_introduced_only_as_written():
    """"We design agents that react to errors" introduces nothing called ReAct."""
    body = ["ReAct prompts a model.", "ReAct again.", "ReAct once more.", "Agents react fast."]
    v = build([_long_paper("Acting Agents", "We design agents that react to tool errors.", body)])
    assert v.get("ReAct").paper == ""


def test_a_short_form_given_to_the_papers_own_title_name_is_its_own():
    """"We propose the Sparse Gauge Stitching (KZ3) approach.: the statement's first name is the paper's
    title, and the short form it is given right after it is the paper's own (its initials spell no
    acronym, so no alias ties it)."""
    body = [f"KZ3 stitches gauges in step {i}." for i in range(6)]
    v = build([_long_paper("Sparse Gauge Stitching", "We propose the Sparse Gauge Stitching (KZ3) approach.", body),
               DocumentText("Other Notes", 0, [], ["x."])])
    assert v.get("KZ3").paper == "Sparse Gauge Stitching"
