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
    "这个知识库里有哪些论文？", "我的文库里都有哪些文献？", "What papers do you have?", "我有哪些论文？", "请列出知识库中的所有论文",
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
    # "these papers" point back at an answer; where, how, when, and which of something has the most
    "Summarize these papers.", "Which of these papers is the oldest?", "概述一下这些论文", "And the other papers?",
    "Where are the papers stored?", "How are the papers stored?", "When were the papers indexed?",
    "Which year has the most papers?", "Which collection has the most papers?",
    # Chinese definitions, and what is inside the papers
    "知识库是什么？", "论文中的集合是什么？", "论文中有哪些库？", "文档中的库是什么？",
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
    ("List my papers from oldest to newest.", "oldest"), ("Sort my papers from newest to oldest.", "newest"),
    ("按时间从最早到最新列出我的论文", "oldest"),
])
def test_a_library_question_says_the_order_of_its_papers(question, order):
    from core.brains.offline.evidence import library_order

    assert library_order(question) == order


@pytest.mark.parametrize("question, owned", [
    ("What papers do I have?", True), ("List my papers.", True), ("What is in the library?", True),
    ("这个知识库里有哪些论文？", True), ("List the papers.", False), ("What papers are available?", False),
])
def test_a_follow_up_lists_the_library_only_when_it_owns_the_papers(question, owned):
    """After an answer, "the papers" may be that answer's: only "my papers", "the library", "do I have" …
    tie a follow-up to the whole library (core.strategies.library reads it so for a follow-up)."""
    from core.brains.offline.evidence import library_owned

    assert library_owned(question) is owned


def test_a_turn_scoped_to_a_topic_takes_the_usual_path_without_asking_the_hub():
    """A topic clause ("in the topic X") is not read out of the question here: such a turn is searched as
    before, and the hub is not asked for the collection's documents."""
    import asyncio
    from types import SimpleNamespace

    from core.strategies.library import library_answer

    class Hub:
        def searches_by(self, param):
            return True

        async def list_collections(self):  # pragma: no cover - must not be reached
            raise AssertionError("asked for the collection's documents")

    ctx = SimpleNamespace(doc_id=None, hub=Hub(), vocabulary=VOCAB, collection="c")
    state = SimpleNamespace(question="What papers do I have?", intent=Intent(
        type="exploratory", confidence=1.0, entities=[], reformulated_query="", constraints={"topic_id": "maps"}))
    assert asyncio.run(library_answer(ctx, state)) is None
