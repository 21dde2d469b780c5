"""Which questions are about the library itself (answered by its list of papers): those that name the
collection or its papers, no paper or method, and ask nothing else; and how the critic judges such an
answer. Invented names; the vocabulary as a collection gives it."""

from __future__ import annotations

import pytest

from core.brains.offline.critic import critique, structure
from core.config import CriticSettings
from core.brains.offline.evidence import profile
from core.types import Intent, RetrievedContext
from core.vocabulary import Term, Vocabulary

VOCAB = Vocabulary(terms=[Term("Wrenfield", kind="paper"), Term("Tessel", kind="paper")])


@pytest.mark.parametrize("question", [
    "What papers do I have?", "Which documents are in this collection?", "What is in my library?",
    "Give me an overview of the collection.", "List the papers.", "What papers are available?",
    "How many papers are in the library?", "Summarize the collection.", "What is this collection about?",
    "这个知识库里有哪些论文？", "概述一下这些论文", "我的文库里都有哪些文献？", "我有哪些论文？", "请列出知识库中的所有论文",
    "介绍一下这个知识库", "知识库里有多少篇论文？",
    "Which paper in my library is the oldest?", "What is the most recent paper I have?", "List my papers by year.",
    "我的知识库里哪篇论文最新？",  # with an order: by year
])
def test_a_question_naming_only_the_library_is_about_the_library(question):
    assert profile(question, None, vocab=VOCAB).library


@pytest.mark.parametrize("question", [
    "What do the papers here say about calibration?",  # asks about a topic in them
    "Which papers use gauges?",  # which of them bear on something
    "What is this paper about?",  # one paper: its gist
    "What is Wrenfield about?",  # names a paper
    "Compare the papers on Wrenfield and Tessel.",  # names papers
    "What papers are there, and which is the newest?",  # a second question trails it
    "Do the papers agree?",  # asks something of them
    "What is the main idea?",  # names no library at all
    "这些论文的主要贡献是什么？",  # asks what they contribute
    # a paper's own corpus, knowledge base, index or documents, and definitions, are not the library
    "Which corpus does the paper use?", "What corpus was used?", "How large is the corpus?",
    "What knowledge base do they use?", "What is a knowledge base?", "What are documents?",
    "How many documents did they index?", "How many documents are in the index?", "论文是什么？",
    # the library's topics ask more than its list of papers
    "What topics does this collection cover?", "Which topic has the most papers?",
    "How many documents does each topic contain?",
])
def test_a_question_asking_more_of_the_papers_is_not(question):
    assert not profile(question, None, vocab=VOCAB).library


def _abstract(doc: str, title: str, text: str) -> RetrievedContext:
    return RetrievedContext(content=text, source=f"{doc}.md", title=title, doc_id=doc, chunk_id=f"{doc}_00",
                            breadcrumb=f"{title} > Abstract")


CONTEXTS = [_abstract("wrenfield", "Wrenfield", "Large sensor networks drift out of calibration within weeks."),
            _abstract("tessel", "Tessel", "Road maps take more space than phones can spare.")]
INTENT = Intent(type="exploratory", confidence=1.0, entities=[], reformulated_query="")


def test_a_library_listing_that_cites_each_paper_once_passes_by_its_structure():
    answer = ("### The 2 papers of the collection\n\n"
              "- **Tessel**: Road maps take more space than phones can spare. [2]\n"
              "- **Wrenfield**: Large sensor networks drift out of calibration within weeks. [1]")
    v = critique("What papers do I have?", INTENT, CONTEXTS, answer, [], CriticSettings(), vocab=VOCAB)
    assert v.passed, v


def test_a_one_claim_answer_that_is_no_listing_is_not_judged_as_one():
    """Only the library's list of papers (its heading, one paper a claim) passes by its form: a search's
    one-sentence answer to the same question is judged by the verdict, as any draft is."""
    answer = "Road maps take more space than phones can spare. [2]"
    assert not structure("What papers do I have?", INTENT, CONTEXTS, answer, [], vocab=VOCAB).by_library
    listing = "### The one paper of the collection\n\n- **Tessel**: " + answer
    assert structure("What papers do I have?", INTENT, CONTEXTS, listing, [], vocab=VOCAB).by_library


def test_a_listing_that_cites_one_paper_twice_is_not_judged_by_its_structure():
    """Two bullets from one paper is not a list of the library's papers: its structure does not pass it."""
    answer = ("### The 2 papers of the collection\n\n"
              "- **Tessel**: Road maps take more space than phones can spare. [2]\n"
              "- **Tessel**: Road maps take more space than phones can spare. [2]")
    st = structure("What papers do I have?", INTENT, CONTEXTS, answer, [], vocab=VOCAB)
    assert not st.by_library
    good = answer.replace("- **Tessel**: Road maps take more space than phones can spare. [2]\n",
                          "- **Wrenfield**: Large sensor networks drift out of calibration within weeks. [1]\n", 1)
    assert structure("What papers do I have?", INTENT, CONTEXTS, good, [], vocab=VOCAB).by_library


@pytest.mark.parametrize("question, order", [
    ("Which paper in my library is the oldest?", "oldest"), ("List my papers by year.", "oldest"),
    ("What is the most recent paper I have?", "newest"), ("我的知识库里哪篇论文最新？", "newest"),
    ("What papers do I have?", ""),
])
def test_a_library_question_says_the_order_of_its_papers(question, order):
    from core.brains.offline.evidence import library_order

    assert library_order(question) == order
