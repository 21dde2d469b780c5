"""A Chinese chain's steps are answered from English papers: each step is read by its names and its
terms in English (the glossary's renderings), as the critic reads it, never by its Chinese character
pairs, which no English sentence holds (invented papers)."""

from __future__ import annotations

from core.brains.offline.compose import multi_hop
from core.brains.offline.critic_checks import check_chain
from core.brains.offline.evidence import profile, sentence_pool
from core.brains.offline.claims import claims
from core.brains.offline.synthesis import step_terms
from core.state import RetrievedContext
from core.vocabulary import Vocabulary

TERN = RetrievedContext(
    chunk_id="tern#0", source="/papers/tern.md", title="TERN: A Small Reader for Phones", doc_id="tern",
    content="TERN is distilled from the larger teacher model OSPREY with a layer-wise distillation loss. "
            "TERN runs three times faster than OSPREY on phones.")
OSPREY = RetrievedContext(
    chunk_id="osprey#0", source="/papers/osprey.md", title="OSPREY: Reading at Scale", doc_id="osprey",
    content="OSPREY reaches 88.4% accuracy on the Marsh-NLI benchmark. "
            "OSPREY is pretrained on 40 GB of web text.")
VOCAB = Vocabulary.from_titles([TERN.title, OSPREY.title])
QUESTION = "TERN 是由哪个模型蒸馏而来的？该教师模型在 Marsh-NLI 上的准确率是多少？"
STEPS = ["TERN 是由哪个模型蒸馏而来的？", "该教师模型在 Marsh-NLI 上的准确率是多少？"]


def test_a_chinese_step_is_read_by_its_names_and_its_terms_in_english() -> None:
    from core.brains.offline.synthesis import key_terms

    assert step_terms(STEPS[0]) == {"tern"} | key_terms("model distillation")
    assert step_terms(STEPS[1]) == {"marsh-nli", "marsh", "nli"} | key_terms("teacher model accuracy")
    # an English step keeps its own terms
    assert step_terms("How is TERN distilled?") == key_terms("How is TERN distilled?")


def test_each_chinese_step_quotes_the_english_sentence_that_answers_it() -> None:
    prof = profile(QUESTION, vocab=VOCAB)
    contexts = [TERN, OSPREY]
    text, _ = multi_hop(sentence_pool(contexts, prof), prof, STEPS)
    assert text, "no step found evidence, so the chain declined"
    first = text.split("\n")[0]
    assert "holds no evidence" not in text
    assert "distilled from the larger teacher model OSPREY" in first
    assert "88.4% accuracy" in text.split("**Conclusion:**", 1)[1]  # the last step's answer, said once


def test_the_critic_reads_those_steps_as_answered() -> None:
    prof = profile(QUESTION, vocab=VOCAB)
    text, _ = multi_hop(sentence_pool([TERN, OSPREY], prof), prof, STEPS)

    class St:
        checks: list = []
        missing: list = []
        hints: list = []
        queries: list = []

    st = St()
    st.checks, st.missing, st.hints, st.queries = [], [], [], []
    check_chain(st, prof, claims(text)[0], text, STEPS)
    assert st.checks == [True, True] and not st.missing


def test_a_chinese_step_that_found_nothing_is_rewritten_as_names_and_english_terms() -> None:
    from core.brains.offline.planner import keyword_rewrite

    assert keyword_rewrite(STEPS[0], QUESTION, VOCAB) == "TERN model distillation"
    # nothing but Chinese words: the question's names, never its character pairs
    assert keyword_rewrite("该方法默认的秩是多少？", QUESTION, VOCAB) == "TERN Marsh-NLI"
