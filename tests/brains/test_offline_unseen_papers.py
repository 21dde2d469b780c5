"""The offline brain on papers it has no built-in vocabulary for (invented abstracts, real shapes)."""

from __future__ import annotations

import re

from core.brains.base import SynthesisRequest
from core.brains.offline import OfflineBrain
from core.brains.offline.evidence import profile, relevant_indexes
from core.brains.offline.planner import make_plan
from core.brains.offline.slots import extract_entities
from core.state import Intent, RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them


def ctx(n: int, source: str, title: str, text: str) -> RetrievedContext:
    return RetrievedContext(content=text, source=f"/papers/{source}", title=title, chunk_id=f"{source}#{n}",
                            doc_id=source.split(".")[0])


GULL = ctx(0, "gull.md", "Scaling Seabird Vision With Noisy Captions",  # the abstract never says "GULL"
           "Authors: A. Writer, B. Writer\nSource: https://example.org/gull\n\n"
           "We train a dual encoder on 2.5 billion noisy image-caption pairs scraped from the web. "
           "The learned representation transfers to 14 classification benchmarks without fine-tuning.")
HERON = ctx(1, "heron.md", "HERON: Sparse Routing for Long Documents",
            "HERON routes each token to 4 of 64 expert blocks. HERON reaches an average LongBench score of 47.3, "
            "ahead of dense baselines. Unlike GULL, HERON is trained on text alone.")
TERN = ctx(2, "tern-2.md", "Tern-2: Cheap Speech Recognition",
           "Tern-2 builds on HERON's routing for speech. It cuts the word error rate by 18% at equal compute.")


def test_names_are_taken_as_papers_write_them() -> None:
    assert extract_entities("How does Tern-2 compare with wav2vec 2.0 and mT5?", vocab=VOCAB) == ["Tern-2", "wav2vec 2.0", "mT5"]
    assert extract_entities("at which depth does Heron Mixer V3 stop improving?", vocab=VOCAB) == ["Heron Mixer V3"]
    assert extract_entities("Which window does Osprey 2.5 Pro read?", vocab=VOCAB) == ["Osprey 2.5 Pro"]
    # an acronym is matched as written: the author "Albert Gu" is not the model ALBERT
    prof = profile("What is ALBERT?", vocab=VOCAB)
    author = ctx(9, "mamba.md", "Mamba", "Authors: Albert Gu and Tri Dao. Mamba is a selective state space model.")
    assert relevant_indexes([author], prof) == []


async def test_a_paper_is_named_by_its_file_even_when_its_text_never_says_the_name() -> None:
    from core.brains.offline.evidence import is_document_of, names

    assert names(GULL, "GULL", vocab=VOCAB) and is_document_of(GULL, "GULL", vocab=VOCAB) and is_document_of(TERN, "Tern-2", vocab=VOCAB)
    assert not is_document_of(HERON, "GULL", vocab=VOCAB)  # it mentions GULL, but it is HERON's paper
    q = "How many image-caption pairs was GULL trained on?"
    intent = Intent(type="factual", confidence=0.9, entities=["GULL"], reformulated_query=q)
    text = OfflineBrain(vocabulary=VOCAB).compose(SynthesisRequest(kind="simple", question=q, intent=intent, contexts=[HERON, GULL]))
    assert text.split("\n\n")[0].startswith("We train a dual encoder on 2.5 billion")


def test_a_name_no_chunk_uses_does_not_let_the_others_vouch_for_the_answer() -> None:
    """An unanswerable question that shares one name with the documents gets no evidence."""
    prof = profile("Which learning-rate schedule does HERON use for AlphaNet 3 pre-training?", vocab=VOCAB)
    assert relevant_indexes([HERON, TERN], prof) == []


async def test_header_lines_are_never_answer_sentences() -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    intent = Intent(type="factual", confidence=0.9, reformulated_query="Who wrote the GULL paper about captions?")
    text = brain.compose(SynthesisRequest(kind="simple", question=intent.reformulated_query, intent=intent,
                                          contexts=[GULL]))
    assert "Authors:" not in text and "https://" not in text


def test_multi_hop_plans_follow_the_question_clauses() -> None:
    q = "Tern-2 builds on an earlier routing model; what LongBench score does that model reach?"
    steps, reason = make_plan(q, None, [], [], 4, vocab=VOCAB)
    assert steps == ["Tern-2 builds on an earlier routing model", "what LongBench score does that model reach?"]
    assert "clauses" in reason


async def test_multi_hop_conclusion_answers_the_last_clause() -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    q = "Tern-2 builds on an earlier routing model; what LongBench score does that model reach?"
    intent = Intent(type="multi_hop", confidence=0.9, entities=["Tern-2"], reformulated_query=q)
    steps, _ = make_plan(q, intent, [], [], 4, vocab=VOCAB)
    text = brain.compose(SynthesisRequest(kind="multi_hop", question=q, intent=intent, contexts=[TERN, HERON],
                                          sub_questions=steps))
    conclusion = text.split("**Conclusion:**", 1)[1]
    assert "47.3" in conclusion


def _themes(text: str) -> list[str]:
    """The themes a survey answer is told by: the names its opening lines are filed under."""
    return re.findall(r"^- \*\*(.+?):\*\* ", text.split("\n\n")[0], re.M)


async def test_a_question_about_the_collection_gets_a_section_per_paper() -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    q = "What do the papers in this collection do about routing tokens or speech?"
    intent = Intent(type="exploratory", confidence=0.9, reformulated_query=q)
    text = brain.compose(SynthesisRequest(kind="exploratory", question=q, intent=intent, contexts=[HERON, TERN]))
    assert _themes(text) == ["HERON", "Tern-2"], text


def test_a_chinese_question_carries_its_terms_in_english() -> None:
    from core.brains.offline.glossary import english_terms
    from core.brains.offline.slots import fill

    assert english_terms("HERON 用什么技术替代了点积注意力？") == ["technique", "replace", "dot-product attention"]
    query = fill("HERON只在什么数据集上做了预训练？", "factual", [], [], vocab=VOCAB)["reformulated_query"]
    assert query.startswith("HERON 只在") and query.endswith("(dataset; pre-training)")
    prof = profile(query, vocab=VOCAB)
    # judged on the English terms: the HERON chunk does not serve, a chunk on its pre-training data would
    data = ctx(3, "heron.md", "HERON", "HERON is pre-trained on the 40B-token CodeWeb dataset only.")
    assert relevant_indexes([data], prof) == [0]


def test_when_a_name_is_missing_its_question_words_must_meet_in_one_sentence() -> None:
    prof = profile("How many parameters does Osprey-4 list in its system card?", vocab=VOCAB)
    scattered = ctx(4, "kite.md", "Kite", "Kite is a 1.3 billion parameter model. A system card describes the data.")
    together = ctx(5, "kite.md", "Kite", "The system card lists 1.3 billion parameters for the model.")
    assert relevant_indexes([scattered], prof) == []
    assert relevant_indexes([together], prof) == [0]


async def test_a_survey_that_names_only_a_measure_gets_a_section_per_paper() -> None:
    """"Which papers report X" where X is a measure the papers share, not a paper of the collection: the
    answer is told paper by paper (a section per paper that states it), not under one heading "X"
    that quotes whichever paper the first sentence came from."""
    brain = OfflineBrain(vocabulary=VOCAB)
    q = "Which papers report a word error rate (WER), and what are their headline numbers?"
    intent = Intent(type="exploratory", confidence=0.9, reformulated_query=q)
    wren = ctx(3, "wren.md", "Wren: Streaming Speech Without Lookahead",
               "Wren transcribes speech as it arrives. On the harbour test set Wren reaches a WER of 7.9, "
               "against 9.4 for the offline baseline.")
    tern = ctx(2, "tern-2.md", "Tern-2: Cheap Speech Recognition",
               "Tern-2 builds on HERON's routing for speech. It cuts the WER by 18% at equal compute.")
    text = brain.compose(SynthesisRequest(kind="exploratory", question=q, intent=intent, contexts=[tern, wren]))
    assert "### WER" not in text and "**WER:**" not in text
    assert _themes(text) == ["Tern-2", "Wren"], text
    assert "18%" in text and "7.9" in text


async def test_a_supporting_sentence_that_points_back_is_quoted_with_the_sentence_before_it() -> None:
    """"… among these ledgers without replicas" says which ledgers only with the sentence before it,
    which states their number; "those of the seeds" (a "those" its own sentence defines) and an "it"
    that stands for nothing bring in nothing, and an antecedent quoted later moves up to its place."""
    from core.brains.offline.compose import with_antecedents
    from core.brains.offline.evidence import Sentence

    def sent(pos: int, text: str) -> Sentence:
        return Sentence(0, pos, text, set(), [])

    pool = [sent(0, "The harbour log holds 4,200 shards."),
            sent(1, "More than half of the ledgers (2,311) had no replica at all."),
            sent(2, "Quokka repair cannot tell apart these ledgers without replicas."),
            sent(3, "Kestrel compares the tides of the extractions to those of the seeds."),
            sent(4, "It is well known that gossip converges slowly."),
            sent(5, "They rebuild each ledger from its gossip log.")]
    assert with_antecedents([pool[2]], pool) == [pool[1], pool[2]]
    assert with_antecedents([pool[2]], pool, before=[pool[1]]) == [pool[2]]  # quoted already
    assert with_antecedents([pool[1], pool[2]], pool) == [pool[1], pool[2]]
    assert with_antecedents([pool[2], pool[1]], pool) == [pool[1], pool[2]]  # moved up, quoted once
    assert with_antecedents([pool[3]], pool) == [pool[3]]
    assert with_antecedents([pool[4]], pool) == [pool[4]]
    assert with_antecedents([pool[5]], pool) == [pool[4], pool[5]]


async def test_a_survey_of_methods_stays_method_by_method_without_their_own_papers() -> None:
    """A survey that names a paper of the vocabulary (DPO, a bundled paper) is told method by method even
    when only another paper that uses it was retrieved; the paper-by-paper form is for a survey that
    names only a measure or a term."""
    brain = OfflineBrain(vocabulary=VOCAB)
    assert VOCAB.get("DPO") is not None and VOCAB.get("DPO").kind == "paper"
    q = "Trace how alignment methods evolved from RLHF to DPO"
    intent = Intent(type="exploratory", confidence=0.9, reformulated_query=q, entities=["RLHF", "DPO"])
    heron = ctx(6, "heron-chat.md", "Heron-Chat: A Small Aligned Assistant",
                "Heron-Chat was first tuned with RLHF on 40k comparisons. We then replaced RLHF with DPO, "
                "which needs no reward model, and DPO halved the tuning cost.")
    text = brain.compose(SynthesisRequest(kind="exploratory", question=q, intent=intent, contexts=[heron]))
    assert "### Heron-Chat" not in text, text
