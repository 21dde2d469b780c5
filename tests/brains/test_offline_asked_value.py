"""A question that asks for a number ("how large", "how many") is answered by a sentence that states
one, and one that asks how fast by a time taken or a rate. The sentence scorer and the reader rate
sentences that echo the question's words ("a large pool of servers") far above the one that gives
the value ("about 640 rented machines"), so the value sentence was not among the chosen and the
direct answer stated no number. Over invented papers."""

from __future__ import annotations

from core.brains.offline import reader
from core.brains.offline.compose import asks_time, simple, states_new_value
from core.brains.offline.lexicon import DURATION, states_time
from core.brains.offline.evidence import profile, sentence_pool
from core.brains.offline.synthesis import relevance
from core.state import RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()

PLOVER = RetrievedContext(
    chunk_id="plover#3", source="/papers/plover.pdf", doc_id="plover", title="PLOVER: Sharded Graph Training",
    content="This section reports how PLOVER behaves on a large pool of servers under two graph workloads. "
            "PLOVER was built for a large pool of commodity servers and scales to big graphs with ease. "
            "Writing a graph program for PLOVER takes a few lines, and it then runs on many servers. "
            "Each worker keeps its shard of the graph in memory between rounds. "
            "All jobs ran on about 640 rented machines. "
            "The graph jobs read their input from a distributed file system.")
VALUE = "about 640 rented machines"


def test_the_direct_answer_to_how_large_states_the_size() -> None:
    q = "How large was the server pool in the PLOVER workload experiments?"
    prof = profile(q, vocab=VOCAB)
    pool = sentence_pool([PLOVER], prof)
    probs = [relevance(s, prof, own=True) for s in pool]
    blended = reader.rescore(q, [s.text for s in pool], probs)
    best = max(blended)
    at = next(i for i, s in enumerate(pool) if VALUE in s.text)
    assert blended[at] < 0.35 * best  # the case: ranked well below the sentences that echo the question
    text = simple(pool, prof, [PLOVER])[0]
    lead = text.split("\n\n")[0]
    assert lead.startswith("All jobs ran on about 640 rented machines [1]."), text
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


MARTIN = RetrievedContext(
    chunk_id="martin#5", source="/papers/martin.pdf", doc_id="martin", title="MARTIN: Quick Open Extraction",
    content="We compared the speed of MARTIN and GULLSCAN on a held-out set of sentences using one desktop computer. "
            "The speed advantage of MARTIN over GULLSCAN holds when both are run at scale. "
            "MARTIN and GULLSCAN were also run on 200 million Web sentences to study redundancy. "
            "Wall-clock totals: 9 minutes against 14 minutes. "
            "MARTIN extracts relations with a part-of-speech pattern.")


def test_the_direct_answer_to_how_fast_states_the_times_taken() -> None:
    """"How fast" asks for a number of the speed dimension: a time taken or a rate (lexicon.DURATION)."""
    q = "How fast is MARTIN compared with GULLSCAN?"
    prof = profile(q, vocab=VOCAB)
    assert asks_time(prof)
    pool = sentence_pool([MARTIN], prof)
    blended = reader.rescore(q, [s.text for s in pool], [relevance(s, prof, own=True) for s in pool])
    at = next(i for i, s in enumerate(pool) if "9 minutes" in s.text)
    assert any(states_new_value(s.text, q) for s in pool if "200 million" in s.text)  # a value, but no time
    assert blended[at] < 0.35 * max(blended)  # the case: not among the chosen by its score
    lead = simple(pool, prof, [MARTIN])[0].split("\n\n")[0]
    assert lead.startswith("Wall-clock totals: 9 minutes against 14 minutes [1]."), lead


def test_a_speed_stated_relative_to_another_is_a_time_taken() -> None:
    assert DURATION.search("MobileBERT is 4.3x smaller and 5.5x faster than BERT")
    assert DURATION.search("the sort program takes 44% longer to complete")
    assert DURATION.search("it is 3 times slower")
    assert not DURATION.search("it reaches 44% accuracy") and not DURATION.search("60,000 hours of audio")
    prof = profile("Compared with GULLSCAN, how much smaller and faster is MARTIN?", vocab=VOCAB)
    assert asks_time(prof)
    assert not asks_time(profile("Is MARTIN fast?", vocab=VOCAB))  # asks for no number


KESTREL = RetrievedContext(
    chunk_id="kestrel#2", source="/papers/kestrel.pdf", doc_id="kestrel", title="KESTREL: Sparse Adapters for Speech",
    content="Coupling the two designs lets us train large speech models well: we accelerate training (by 3x or more) "
            "and improve accuracy. KESTREL keeps one adapter per layer. "
            "Each epoch of the baseline takes 40 minutes on one GPU. KESTREL is trained on read speech.")


def test_a_speed_up_stated_as_a_factor_answers_how_much_faster() -> None:
    """"By 3x" is how much faster: a time taken of the same paper (the baseline's epoch) must not
    displace it from the direct answer (it did once time questions were widened to DURATION alone)."""
    q = "By how much does the KESTREL design speed up training?"
    prof = profile(q, vocab=VOCAB)
    assert asks_time(prof) and states_time("we accelerate training (by 3x or more)")
    assert states_time("5× higher throughput than Transformers") and not states_time("version 2 of the model")
    lead = simple(sentence_pool([KESTREL], prof), prof, [KESTREL])[0].split("\n\n")[0]
    assert lead.startswith("Coupling the two designs lets us train large speech models well"), lead
    assert "40 minutes" not in lead
