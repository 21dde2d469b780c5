"""A question that asks for a number ("how large", "how many") is answered by a sentence that states
one. The sentence scorer and the reader rate sentences that echo the question's words ("a large cluster
of machines") far above the one that gives the value ("about 640 machines"), so the value sentence was
not among the chosen and the direct answer stated no number. Over an invented paper."""

from __future__ import annotations

from core.brains.offline import reader
from core.brains.offline.compose import simple, states_new_value
from core.brains.offline.evidence import profile, sentence_pool
from core.brains.offline.synthesis import relevance
from core.state import RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()

PLOVER = RetrievedContext(
    chunk_id="plover#3", source="/papers/plover.pdf", doc_id="plover", title="PLOVER: Sharded Graph Training",
    content="In this section we measure the performance of PLOVER on two graph jobs running on a large cluster "
            "of machines. Our implementation of PLOVER runs on a large cluster of commodity machines and is "
            "highly scalable. PLOVER makes it easy to write a graph program and run it on many machines. "
            "Each worker keeps its shard of the graph in memory between rounds. "
            "All of the jobs were executed on a cluster that consisted of approximately 640 machines. "
            "The graph jobs read their input from a distributed file system.")
VALUE = "approximately 640 machines"


def test_the_direct_answer_to_how_large_states_the_size() -> None:
    q = "How large was the cluster in the PLOVER performance experiments?"
    prof = profile(q, vocab=VOCAB)
    pool = sentence_pool([PLOVER], prof)
    probs = [relevance(s, prof, own=True) for s in pool]
    blended = reader.rescore(q, [s.text for s in pool], probs)
    best = max(blended)
    at = next(i for i, s in enumerate(pool) if VALUE in s.text)
    assert blended[at] < 0.35 * best  # the case: ranked well below the sentences that echo the question
    text = simple(pool, prof, [PLOVER])[0]
    lead = text.split("\n\n")[0]
    assert lead.startswith("All of the jobs were executed on a cluster that consisted of approximately 640 machines"), text
    assert text.count("[1]") >= 2  # the echoing sentences still follow it


def test_a_question_that_asks_for_no_number_keeps_its_chosen_sentences() -> None:
    q = "How does PLOVER keep the graph between rounds?"
    prof = profile(q, vocab=VOCAB)
    assert not prof.numeric
    text = simple(sentence_pool([PLOVER], prof), prof, [PLOVER])[0]
    assert "keeps its shard of the graph in memory" in text.split("\n\n")[0] and VALUE not in text


def test_a_number_alone_in_parentheses_labels_an_example_and_states_no_value() -> None:
    q = "How many argument pairs must a relation phrase take?"
    assert not states_new_value("We introduce a constraint that separates phrases like the example in (1).", q)
    assert not states_new_value("The loss is given in (3b) below.", q)
    assert states_new_value("We keep phrases that take at least 20 distinct argument pairs (k = 20).", q)
    assert not states_new_value("Training takes 1000 iterations.", "How long do 1000 iterations take?")  # the question's own
