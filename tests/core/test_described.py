"""Papers a question names by description ("the noisy matrix decomposition paper"): the words between
"the" and "paper" against the library's titles (:mod:`core.described`). Invented titles."""

from __future__ import annotations

from core.described import descriptions, paper_for

TITLES = ["Sparse Routing for Long Heron Documents", "Listening for Boundaries in Birdsong Streams",
          "A Survey of Wading Bird Datasets", "Sparse Codes for Birdsong Boundaries"]


def test_descriptions_are_the_words_between_the_and_paper_except_for_a_name_already_named():
    q = "Compare the sparse routing paper's gate and the HRX paper with the birdsong-stream article"
    assert descriptions(q, ["HRX"]) == [(q.index("the sparse"), "sparse routing"), (q.index("the bird"), "birdsong-stream")]
    assert descriptions("What does the paper say?", []) == []  # nothing described
    assert descriptions("In the first paper, which loss is used?", []) == []  # "first" is no content word


def test_the_described_paper_is_the_title_holding_most_of_its_words_and_clearly_more_than_any_other():
    assert paper_for("sparse routing", TITLES) == "Sparse Routing for Long Heron Documents"
    assert paper_for("heron document routing", TITLES) == "Sparse Routing for Long Heron Documents"  # stems, any order
    assert paper_for("wading-bird", TITLES) == "A Survey of Wading Bird Datasets"  # a hyphenated description
    assert paper_for("birdsong boundaries", TITLES) is None  # two titles hold both words: not clear
    assert paper_for("birdsong streams", TITLES) == "Listening for Boundaries in Birdsong Streams"
    assert paper_for("graph neural network", TITLES) is None  # no title holds enough of it
    assert paper_for("sparse", []) is None


def test_a_description_starts_at_the_nearest_the_and_a_study_is_no_paper():
    q = "Compare the loss function of the sparse routing paper with the user study in the birdsong streams article"
    assert [w for _, w in descriptions(q, [])] == ["sparse routing", "birdsong streams"]


def test_a_name_counts_only_as_whole_words():
    # "GAN" is no part of "organization": the description is still read
    assert descriptions("Compare GAN and the language organization paper", ["GAN"]) == [(16, "language organization")]
    assert descriptions("Compare GAN and the GAN training paper", ["GAN"]) == []


def test_a_described_paper_that_a_given_name_already_names_is_no_new_side():
    """"the web spam paper" beside "TrustRank" is TrustRank's own paper ("Combating Web Spam with
    TrustRank"): comparing it with itself would be no comparison."""
    import asyncio
    from types import SimpleNamespace

    from core.described import described_papers

    class Hub:
        async def search(self, query, k, collection):
            return [SimpleNamespace(title="Combating Web Spam with TrustRank"),
                    SimpleNamespace(title="Sparse Routing for Long Heron Documents")]

    ctx = SimpleNamespace(hub=Hub(), collection="c")
    assert asyncio.run(described_papers(ctx, "Compare the TrustRank paper with the web spam paper", ["TrustRank"])) == []
    assert asyncio.run(described_papers(ctx, "Compare TrustRank and the sparse routing paper", ["TrustRank"])) == [
        (22, "Sparse Routing for Long Heron Documents")]


def test_a_noun_phrase_describes_a_paper_by_the_words_its_title_holds():
    """A comparison's side described as what the paper builds, not as "the … paper" ("Compare HRX and the
    birdsong boundary listener in accuracy"): the noun phrase after "the" up to a stop word or a mark, read
    by its prefixes; the one sharing the most words with a title names it, two shared words at least."""
    from core.described import phrase_descriptions, phrase_paper

    q = "Compare HRX and the sparse heron router in how they handle long documents."
    assert phrase_descriptions(q, ["HRX"]) == [(q.index("the sparse"), ["sparse heron", "sparse heron router"])]
    assert phrase_paper(["sparse heron", "sparse heron router"], TITLES) == "Sparse Routing for Long Heron Documents"
    q2 = "Compare the listener for birdsong streams's accuracy with the model of HRX"
    assert [p for _, p in phrase_descriptions(q2, ["HRX"])] == [
        ["listener for birdsong", "listener for birdsong streams"]]  # "the model of HRX" holds a name
    assert phrase_paper(["listener for birdsong", "listener for birdsong streams"], TITLES) == \
        "Listening for Boundaries in Birdsong Streams"
    # one shared word names no paper, nor does a phrase two titles hold alike
    assert phrase_paper(["heron model"], TITLES) is None
    assert phrase_paper(["birdsong boundaries"], TITLES) is None
    # each "the" opens its own phrase, one after another
    assert [p[-1] for _, p in phrase_descriptions("Compare the sparse heron router and the birdsong listener", [])] == [
        "sparse heron router", "birdsong listener"]
    # "the … paper" stays a description of its own kind
    assert phrase_descriptions("Compare the sparse routing paper and HRX", []) == []
