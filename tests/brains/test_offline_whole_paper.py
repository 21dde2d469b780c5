"""Which questions are about one paper as a whole (answered from its abstract): those that ask
nothing of the named paper beyond its gist. Invented names; the vocabulary as a collection gives it."""

from __future__ import annotations

import pytest

from core.brains.offline.evidence import profile
from core.types import RetrievedContext
from core.vocabulary import Term, Vocabulary

VOCAB = Vocabulary(terms=[Term("Wrenfield", kind="paper"), Term("Tessel", kind="paper"), Term("Skylark")])


@pytest.mark.parametrize("question", [
    "What is the main idea of Wrenfield?", "What is the Wrenfield paper about?", "Summarize the Wrenfield paper.",
    "What problem does Wrenfield solve?", "What does Wrenfield propose?", "What are the contributions of Wrenfield?",
    "Tell me about Wrenfield.", "What is this paper about?",  # the second in a turn scoped to one paper
    "Wrenfield 的主要思想是什么？", "介绍一下 Wrenfield", "请总结一下 Wrenfield 这篇论文", "Wrenfield 讲了什么？",
    "Wrenfield 解决了什么问题？", "Wrenfield 的主要贡献有哪些？", "这篇论文的主要贡献是什么？",  # Chinese forms
])
def test_a_question_asking_only_for_a_papers_gist_is_about_the_whole_paper(question):
    assert profile(question, None, vocab=VOCAB).whole_paper


@pytest.mark.parametrize("question", [
    "How many gauges does Wrenfield use?",  # asks a thing of the paper
    "What problem does the gauge selection in Wrenfield address?",  # asks about one part of it
    "Compare Wrenfield and Tessel.",  # two papers: a comparison
    "Who wrote Wrenfield?",  # its publication: the metadata answers
    "What is the main idea of calibration?",  # names no paper
    "How does Wrenfield work on ice?", "How does Wrenfield work, and what does it cost?",  # asks more than how it works
    "Who proposed Wrenfield?", "When was Wrenfield proposed?",  # who and when
    "What problems does Wrenfield have?",  # its limits: a problem it has, not one it solves
    "What does Wrenfield not address?",  # what it lacks
    "Does Wrenfield solve the problem?",  # a yes/no question
    "What problem does Wrenfield solve, and how?",  # a second question trails the gist
    "Tell me more about Wrenfield.", "What else does Wrenfield propose?",  # more than was said
    "详细介绍一下 Wrenfield",  # more than the gist, in Chinese
    "Wrenfield 用了多少个传感器？",  # Chinese: asks a thing of the paper
    "Wrenfield 和 Tessel 的主要思想是什么？",  # two papers
    "Wrenfield 的主要思想是什么？它用了多少传感器？",  # a second question trails the gist
    "Wrenfield 的作者是谁？",  # its authors: the metadata answers
    "主要思想是什么？",  # names no paper, and no "这篇论文"
])
def test_a_question_asking_more_than_the_gist_is_not(question):
    assert not profile(question, None, vocab=VOCAB).whole_paper


def _ctx(doc: str, crumb: str, text: str, i: int) -> RetrievedContext:
    return RetrievedContext(content=text, chunk_id=f"{doc}-{i}", doc_id=doc, source=f"/papers/{doc}.md",
                            title=TITLES[doc], breadcrumb=f"{TITLES[doc]} > {crumb}", chunk_index=i)


TITLES = {"wrenfield": "Wrenfield: Calibrating Sensor Networks", "survey": "Sensor Calibration: A Survey"}
ABSTRACT = ("Large sensor networks drift out of calibration within weeks. Recalibrating every sensor by hand is "
            "too expensive. We propose to calibrate a whole network from a few trusted gauges. Corrections spread "
            "along the network's links. We test it on three networks.")
CONTEXTS = [
    _ctx("wrenfield", "Results", "In run 3, Wrenfield kept 43 of the 63 gauges within tolerance.", 5),
    _ctx("wrenfield", "Abstract", ABSTRACT, 1),
    _ctx("survey", "Abstract", "We survey calibration methods, from Wrenfield to Skylark, over twenty years.", 1),
]


def _answer(question: str, kind: str = "simple") -> str:
    """The offline brain's answer over CONTEXTS, composed as the strategy ``kind`` composes it."""
    from core.brains.offline.brain import OfflineBrain
    from core.config import Settings
    from core.types import Intent, SynthesisRequest

    intent = Intent(type="exploratory" if kind == "exploratory" else "factual", confidence=0.9,
                    entities=profile(question, None, vocab=VOCAB).entities)
    return OfflineBrain(Settings(), vocabulary=VOCAB).compose(
        SynthesisRequest(kind=kind, question=question, intent=intent, contexts=CONTEXTS))


def test_the_gist_is_the_abstract_from_its_start_within_its_limits():
    """Four sentences at most, from the first, cited to the abstract; the results chunk is not quoted."""
    answer = _answer("What is the main idea of Wrenfield?")
    assert answer.startswith("Large sensor networks drift out of calibration within weeks [2].")
    assert "We propose to calibrate a whole network" in answer and "Corrections spread" in answer
    assert "We test it on three networks" not in answer and "[1]" not in answer and "[3]" not in answer


@pytest.mark.parametrize("question", [
    "How does Wrenfield work?", "Explain how Wrenfield works.", "Can you describe how Wrenfield works?",
    "Wrenfield 是如何工作的？", "Wrenfield 的工作原理是什么？",
])
def test_how_a_named_paper_works_is_asked_of_its_whole_paper(question):
    """"How does X work?" asks for X's method as a whole: X's paper's abstract says what the paper does
    (a search of the question's words finds sentences that repeat X's name: its results)."""
    prof = profile(question, None, vocab=VOCAB)
    assert prof.whole_paper and prof.mechanism


def _how_it_works(abstract: str) -> str:
    """The answer to "How does Wrenfield work?" when Wrenfield's abstract is ``abstract``, the only chunk."""
    from core.brains.offline.compose import paper_gist
    from core.brains.offline.evidence import sentence_pool

    ctxs = [_ctx("wrenfield", "Abstract", abstract, 1)]
    prof = profile("How does Wrenfield work?", None, vocab=VOCAB)
    return paper_gist(sentence_pool(ctxs, prof), prof, ctxs)[0]


def test_how_it_works_is_the_abstract_from_where_the_paper_speaks_of_its_own_work():
    """The abstract's opening sentences set out the problem; how the method works starts where the paper
    speaks of its own work (in the first person, or by its name), and runs on from there."""
    answer = _answer("How does Wrenfield work?")
    assert answer.startswith("We propose to calibrate a whole network from a few trusted gauges [2]."), answer
    assert "Corrections spread along the network's links" in answer and "drift out of calibration" not in answer
    assert "[1]" not in answer and "[3]" not in answer
    gist = _answer("What is the main idea of Wrenfield?")  # a gist still sets out the problem first
    assert gist.startswith("Large sensor networks drift out of calibration within weeks [2].")
    # a first-person sentence that turns from the one before it is read with that one
    turned = ("Large sensor networks drift out of calibration within weeks. Recalibrating every sensor by hand is "
              "too expensive. Instead, we calibrate a whole network from a few trusted gauges. Corrections spread "
              "along the network's links. We test it on three networks. It works.")
    answer = _how_it_works(turned)
    assert answer.startswith("Recalibrating every sensor by hand is too expensive [1]. Instead, we calibrate"), answer


def test_how_it_works_asks_for_its_name_and_never_ends_on_the_abstracts_last_words():
    """(Second review.) A follow-up's "How does it work?" (rewritten to name the paper) asks beyond the gist
    it follows, and "How does X not work?" asks what it lacks: neither is answered from the abstract. An
    abstract whose only first-person sentence is its last is quoted from its start, not from that sentence
    alone ("We test it on three networks." passed the critic at 7.8). "US" is no first person."""
    from core.brains.offline.comparison import FIRST_PERSON
    from core.types import Intent

    follow = Intent(type="follow_up", confidence=0.9, entities=["Wrenfield"], reformulated_query="How does Wrenfield work?")
    assert not profile("How does it work?", follow, vocab=VOCAB).mechanism
    assert not profile("How does Wrenfield not work?", None, vocab=VOCAB).mechanism
    late = ("Large sensor networks drift out of calibration within weeks. Recalibrating every sensor by hand is "
            "too expensive. Corrections spread along the network's links from a few trusted gauges. "
            "We test it on three networks.")
    answer = _how_it_works(late)
    assert answer.startswith("Large sensor networks drift"), answer
    assert FIRST_PERSON.search("We test it.") and not FIRST_PERSON.search("Spam costs US firms billions.")


def test_a_method_without_a_paper_of_its_own_is_not_answered_by_another_papers_abstract():
    """Skylark is only mentioned in a survey's abstract: "What is Skylark?" is not that survey's gist, and
    "the Wrenfield paper" is Wrenfield's own (its file), not the survey that also names it."""
    from core.brains.offline.sides import gist_paper

    assert profile("What is Skylark?", None, vocab=VOCAB).whole_paper  # the question's form is a gist's
    assert gist_paper(CONTEXTS, profile("What is Skylark?", None, vocab=VOCAB)) is None
    assert gist_paper(CONTEXTS, profile("What is the Wrenfield paper about?", None, vocab=VOCAB)) == "wrenfield"
    # the survey's chunks lead and name Skylark: still not Skylark's paper, unless the question calls it one
    survey = [_ctx("survey", "Methods", "Skylark spreads corrections between neighbouring sensors.", 4),
              _ctx("survey", "Methods", "Skylark needs no trusted gauge at all.", 5), *CONTEXTS]
    assert gist_paper(survey, profile("What is Skylark?", None, vocab=VOCAB)) is None
    assert gist_paper(survey, profile("What is the Skylark paper about?", None, vocab=VOCAB)) == "survey"


def test_the_critic_judges_a_gist_from_the_abstract_by_its_form_and_nothing_else():
    from core.brains.offline.critic import structure

    gist = _answer("What is the main idea of Wrenfield?")
    assert structure("What is the main idea of Wrenfield?", None, CONTEXTS, gist, [], vocab=VOCAB).by_abstract
    # the same answer to a question that asks something else is judged as any answer is
    assert not structure("Who proposed Wrenfield?", None, CONTEXTS, gist, [], vocab=VOCAB).by_abstract
    # an answer that quotes the results is not a gist from the abstract
    other = "In run 3, Wrenfield kept 43 of the 63 gauges within tolerance [1]."
    assert not structure("What is the main idea of Wrenfield?", None, CONTEXTS, other, [], vocab=VOCAB).by_abstract


def test_no_evidence_about_a_paper_names_the_paper_not_the_question_word():
    """"What is the Zephyr paper about?" with nothing on Zephyr reads "… no evidence about the Zephyr
    paper.", not "… about the Zephyr paper about."."""
    from core.brains.offline.synthesis import no_evidence_answer

    assert no_evidence_answer("What is the Zephyr paper about?") == "The knowledge base holds no evidence about the Zephyr paper."
    assert no_evidence_answer("What is Zephyr?") == "The knowledge base holds no evidence about Zephyr."


def test_a_gist_from_the_abstract_takes_no_recalled_detail_and_other_answers_keep_theirs():
    """A fact recalled from an earlier session about the paper is one detail of it; under a gist from the
    abstract it would read as the answer's end, so none joins. A question of a gist's form that no
    abstract answers ("What is Skylark?": a method without a paper of its own) keeps its recalled facts."""
    from core.brains.offline.brain import OfflineBrain
    from core.config import Settings
    from core.types import Intent, SynthesisRequest

    brain = OfflineBrain(Settings(), vocabulary=VOCAB)

    def answer(question: str, entity: str, fact: str) -> str:
        intent = Intent(type="factual", confidence=0.9, entities=[entity])
        return brain.compose(SynthesisRequest(kind="simple", question=question, intent=intent, contexts=CONTEXTS,
                                              prior_facts=[fact]))

    gist = answer("What is the main idea of Wrenfield?", "Wrenfield",
                  "Wrenfield: Calibrating Sensor Networks says: The main idea of Wrenfield's error analysis is to "
                  "re-weight the gauges by their drift.")
    assert gist.startswith("Large sensor networks drift") and "From earlier sessions" not in gist, gist
    method = answer("What is Skylark?", "Skylark",
                    "Sensor Calibration: A Survey says: Skylark is a calibration method that spreads corrections "
                    "between neighbouring sensors.")
    assert "From earlier sessions" in method and "Skylark is a calibration method" in method, method


def test_a_gist_question_routed_to_a_survey_is_answered_by_the_abstract_too():
    """The router may send "What is the main idea of X?" to the exploratory strategy; its answer is the
    same gist, not a survey of every paper that shares the question's words."""
    answer = _answer("What is the main idea of Wrenfield?", "exploratory")
    assert answer == _answer("What is the main idea of Wrenfield?")
    assert answer.startswith("Large sensor networks drift out of calibration within weeks [2].")


def test_a_papers_thanks_are_evidence_only_where_nothing_else_is():
    """The acknowledgments name the paper and its people often and say nothing of how it works: "How does
    Wrenfield calibrate?" quotes its method, not its thanks; "Who funded Wrenfield?" has only the thanks."""
    from core.brains.offline.evidence import relevant_indexes

    thanks = _ctx("wrenfield", "9 Acknowledgements", "We thank Ada Okafor for improving Wrenfield's calibration code, "
                  "and the Harbor Fund for funding Wrenfield.", 9)
    method = _ctx("wrenfield", "3 Method", "Wrenfield calibrates each sensor against the trusted gauges by least squares.", 3)
    ctxs = [thanks, method]
    how = profile("How does Wrenfield calibrate the sensors?", None, vocab=VOCAB)
    assert relevant_indexes(ctxs, how) == [1]
    funded = profile("Who funded Wrenfield?", None, vocab=VOCAB)
    assert 0 in relevant_indexes(ctxs, funded)  # the thanks hold "fund", which no other chunk does


def test_a_paper_whose_name_holds_a_word_for_more_is_still_asked_about_as_a_whole():
    """"Going Deeper" or "More Data" name papers: the words that ask for more are read without the names."""
    vocab = Vocabulary(terms=[Term("Going Deeper", kind="paper"), Term("More Data", kind="paper")])
    for q in ("What is Going Deeper about?", "What is the main idea of More Data?"):
        assert profile(q, None, vocab=vocab).whole_paper, q


def test_a_name_its_paper_introduces_asks_for_that_papers_gist():
    """Neither the title nor the file of the paper that introduces Quillon names it; the vocabulary ties
    the name to the paper (``Term.paper``), so "What is Quillon about?" is answered from that paper's
    abstract, not from its results. Before, the gist had no paper and the answer quoted results."""
    from core.brains.offline.brain import OfflineBrain
    from core.brains.offline.sides import gist_paper
    from core.config import Settings
    from core.types import Intent, SynthesisRequest

    title = "Stitching Sparse Gauges into Calibrated Networks"
    vocab = Vocabulary(terms=[Term(title, kind="paper"), Term("Quillon", paper=title)])
    abstract = ("Sensor networks drift out of calibration. We implemented two stitching rules in the Quillon "
                "system. It halves the drift of earlier calibrators.")

    def ctx(crumb: str, text: str, i: int) -> RetrievedContext:
        return RetrievedContext(content=text, chunk_id=f"s-{i}", doc_id="stitch", source="/papers/2011-04.pdf",
                                title=title, breadcrumb=f"{title} > {crumb}", chunk_index=i)

    ctxs = [ctx("Results", "Quillon kept 41 gauges within tolerance in run 2.", 7), ctx("Abstract", abstract, 1)]
    question = "What is Quillon about?"
    prof = profile(question, None, vocab=vocab)
    assert prof.whole_paper and gist_paper(ctxs, prof) == "stitch"
    intent = Intent(type="factual", confidence=0.9, entities=prof.entities)
    answer = OfflineBrain(Settings(), vocabulary=vocab).compose(
        SynthesisRequest(kind="simple", question=question, intent=intent, contexts=ctxs))
    assert answer.startswith("Sensor networks drift out of calibration [2]."), answer
    assert "kept 41 gauges" not in answer


def test_a_notes_opening_summary_stands_for_its_abstract():
    """A paper's note (the bundled ones) opens with "## Summary" where a paper has its abstract: "What is ReAct
    about?" over the bundled notes quoted three results sentences. A numbered "6 Summary" that closes a paper
    is no abstract."""
    from core.brains.offline.evidence import in_abstract

    summary = _ctx("wrenfield", "Summary", ABSTRACT, 1)
    assert in_abstract(summary) and in_abstract(_ctx("wrenfield", "Abstract", ABSTRACT, 1))
    assert not in_abstract(_ctx("wrenfield", "6 Summary", ABSTRACT, 9))
    assert not in_abstract(_ctx("wrenfield", "4 Experiments > Summary", ABSTRACT, 9))  # a run-in heading (review)
    from core.brains.offline.brain import OfflineBrain
    from core.config import Settings
    from core.types import Intent, SynthesisRequest

    contexts = [CONTEXTS[0], summary]
    q = "What is the main idea of Wrenfield?"
    intent = Intent(type="factual", confidence=0.9, entities=profile(q, None, vocab=VOCAB).entities)
    answer = OfflineBrain(Settings(), vocabulary=VOCAB).compose(SynthesisRequest(kind="simple", question=q, intent=intent,
                                                                                 contexts=contexts))
    assert answer.startswith("Large sensor networks drift out of calibration within weeks [2].") and "[1]" not in answer, answer


def test_how_it_works_starts_at_the_method_even_after_a_sentence_about_this_paper():
    """(Review.) "This paper studies …" sets out the problem; how the method works starts where the paper
    proposes it ("We propose …"). Only a comparison's row reads "This paper presents …" as the paper's own
    work (:func:`core.brains.offline.sides.own_work`, ``late``)."""
    studies = ("This paper studies sensor networks that drift out of calibration within weeks. Recalibrating "
               "every sensor by hand is too expensive. We propose to calibrate a whole network from a few trusted "
               "gauges. Corrections spread along the network's links. We test it on three networks.")
    assert _how_it_works(studies).startswith("We propose to calibrate a whole network"), _how_it_works(studies)
