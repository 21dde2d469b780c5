"""The direct answer's length: the next chosen sentences of the same paper join the first while the
learned scorer rates them nearly as high (a calibrated share of the best), over an invented paper."""

from __future__ import annotations

import re

from core.brains.offline import reader, scorer
from core.brains.offline.compose import multi_hop, simple
from core.brains.offline.evidence import Sentence, profile, sentence_pool
from core.brains.offline.synthesis import LEAD_MAX, lead_share, lead_size, relevance
from core.state import RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

WREN = RetrievedContext(
    chunk_id="wren#0", source="/papers/wren.md", title="WREN: Gated Memory for Tabular Agents",
    content="WREN stores each table cell in a gated memory slot that the agent reads before acting. "
            "The gate of WREN is trained with a contrastive loss on 40,000 synthetic spreadsheets. "
            "WREN answers 71.3% of the Ledger benchmark questions, against 58.0% for a retrieval baseline. "
            "The memory of WREN holds 2,048 slots and is cleared after each episode. "
            "Future work will extend WREN to charts.")


def lead_of(question: str) -> str:
    prof = profile(question, vocab=VOCAB)
    pool = sentence_pool([WREN], prof)
    return simple(pool, prof, [WREN])[0].split("\n\n")[0]


def test_the_share_is_calibrated_and_read_from_the_weights_file() -> None:
    lead = scorer.model()["lead"]
    assert lead["calibrated_on"]["generator"] == "training.data.generate_scorer"
    assert 0.4 <= lead["share"] < 1.0 and lead_share() == lead["share"]
    assert lead["heldout_recall"] > lead["one_sentence_recall"]


def test_a_sentence_rated_nearly_as_high_as_the_best_joins_the_direct_answer() -> None:
    # the scorer cannot tell these two apart (both about the memory's slots): both open the answer,
    # so the asked number is in the direct answer whichever it ranks first
    lead = lead_of("How many slots does the memory of WREN hold?")
    assert "holds 2,048 slots" in lead and "stores each table cell" in lead
    assert "Ledger" not in lead and "contrastive" not in lead


def test_a_sentence_rated_well_below_the_best_stays_out_of_the_direct_answer(monkeypatch) -> None:
    # the scorer's share on the scorer's own probabilities (the reader, which reads "The memory of WREN
    # holds 2,048 slots" as on the question too, blends its own and has its own share: test_offline_reader)
    monkeypatch.setattr(reader, "rescore", lambda question, texts, probs, shortlist=8: list(probs))
    monkeypatch.setattr(reader, "lead_share", lambda: None)
    q = "What does WREN store in its memory?"
    prof = profile(q, vocab=VOCAB)
    pool = sentence_pool([WREN], prof)
    scores = sorted((relevance(s, prof, own=True) for s in pool), reverse=True)
    assert scores[1] < lead_share() * scores[0]  # the runner-up is clearly weaker
    text = simple(pool, prof, [WREN])[0]
    lead, rest = text.split("\n\n")
    assert lead == "WREN stores each table cell in a gated memory slot that the agent reads before acting [1]."
    assert "2,048 slots" in rest


def test_the_lead_stops_at_its_cap_a_weak_sentence_or_another_paper() -> None:
    sents = [Sentence(i % 2, i, f"sentence {i}", {f"t{i}"}, []) for i in range(5)]
    flat = {id(s): 0.5 for s in sents}
    assert lead_size(sents, lambda s: flat[id(s)], paper=lambda s: "one") == LEAD_MAX
    falling = dict(zip(map(id, sents), (0.9, 0.89, 0.2, 0.88, 0.87)))
    assert lead_size(sents, lambda s: falling[id(s)], paper=lambda s: "one") == 2  # stops at the first weak one
    # by default a sentence's paper is its chunk: the runner-up of another chunk does not join
    assert lead_size(sents, lambda s: flat[id(s)]) == 1
    assert lead_size([], lambda s: 1.0) == 0


def test_a_multi_hop_conclusion_is_a_lead_too() -> None:
    q = "How is the gate of WREN trained, and how many slots does its memory hold?"
    prof = profile(q, vocab=VOCAB)
    pool = sentence_pool([WREN], prof)
    text, _ = multi_hop(pool, prof, ["How is the gate of WREN trained?", "How many slots does the memory of WREN hold?"])
    conclusion = text.split("**Conclusion:** ", 1)[1]
    assert conclusion.startswith("The memory of WREN holds 2,048 slots")
    assert conclusion.count("[1]") <= LEAD_MAX


PELICAN = [RetrievedContext(content=t, source="/papers/pelican.pdf", title="Pelican: Retrieval for Court Rulings",
                            chunk_id=f"pelican#{i}", doc_id="pelican") for i, t in enumerate([
    "Pelican is a retrieval model for legal documents. Pelican indexes 3.2 million court rulings from 40 countries.",
    "On the CaseHold benchmark Pelican reaches 71.4% accuracy, ahead of every earlier retriever. "
    "The index is rebuilt every night on a single machine.",
    "We release the code and the model weights. Pelican's encoder was pre-trained on statutes before it saw any ruling.",
    "Accuracy on CaseHold is the share of holdings chosen right. Earlier retrievers reach between 60% and 68% on it.",
])]


def test_a_supporting_sentence_the_model_reads_as_unlikely_to_answer_is_left_out() -> None:
    """After the direct answer, a sentence joins only when the scorer (and reader) rate it more likely to
    answer than not: before, "What is Pelican pre-trained on?" ended with the CaseHold accuracy, and
    "How often is the index rebuilt?" with it too (a reviewer: "padding after a correct answer")."""
    from core.brains.base import SynthesisRequest
    from core.brains.offline import OfflineBrain
    from core.brains.offline.slots import fill
    from core.state import Intent
    from core.vocabulary import DocumentText, build

    vocab = build([DocumentText(PELICAN[0].title, 2024, [], [c.content for c in PELICAN])])
    for q, lead in [("What is Pelican pre-trained on?", "Pelican's encoder was pre-trained on statutes"),
                    ("How often is Pelican's index rebuilt?", "The index is rebuilt every night")]:
        slots = fill(q, "factual", [], [], vocab=vocab)
        intent = Intent(type="factual", confidence=0.9, entities=slots["entities"], dimensions=slots["dimensions"],
                        reformulated_query=slots["reformulated_query"])
        text = OfflineBrain(vocabulary=vocab).compose(SynthesisRequest(kind="simple", question=q, intent=intent,
                                                                       contexts=PELICAN))
        assert text.startswith(lead) and "71.4%" not in text, text


def test_a_chains_conclusion_does_not_say_again_what_a_step_said() -> None:
    """Past its opening (the answer), the conclusion quotes no sentence a step quoted; and the last step,
    which the conclusion answers in the same words, is not numbered as well. Before, the gate sentence
    of step 1 came again in the conclusion, and step 2 quoted the conclusion's opening word for word."""
    q = "How is the gate of WREN trained, and how many slots does its memory hold?"
    prof = profile(q, vocab=VOCAB)
    text, _ = multi_hop(sentence_pool([WREN], prof), prof,
                        ["How is the gate of WREN trained?", "How many slots does the memory of WREN hold?"])
    sentences = [s for ln in text.splitlines() for s in re.split(r"(?<=\]) ", ln.split("** ", 1)[-1]) if s.strip()]
    assert len(sentences) == len(set(sentences)), text
    assert "2. **" not in text and "holds 2,048 slots" in text.split("**Conclusion:** ", 1)[1], text
