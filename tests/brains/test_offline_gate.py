"""The evidence gate on invented full-text papers: a question about a system the knowledge base never
names is declined even when another system's table row reads like an answer; the same question about
a system it holds is answered; a name no chunk uses lowers the gate's probability (a learned feature),
never vetoes; a right answer quoted from a long chunk still passes the critic."""

from __future__ import annotations

from core.brains.base import SynthesisRequest
from core.brains.offline import OfflineBrain, critic, verdict
from core.brains.offline.critic import verdict_inputs
from core.brains.offline.evidence import profile, relevant_indexes
from core.state import Intent, RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

TERN = RetrievedContext(
    chunk_id="tern#3", source="/papers/tern.pdf", title="Tern: Adaptive Beam Search for Streaming Speech Recognition",
    breadcrumb="4 Experiments > 4.2 Results",
    content="We decode every utterance with a beam that widens when the acoustic model is uncertain. "
            "The step size of the beam update is set to half of the largest margin seen in the first second of audio. "
            "Table 2 reports word error rate and real-time factor on the Marsh test set. "
            "In Table 2 (Word error rate on the Marsh test set.), Tern: WER 7.9, real-time factor 0.31. "
            "In Table 2 (Word error rate on the Marsh test set.), Fixed beam: WER 8.6, real-time factor 0.27. "
            "The adaptive beam costs 15% more decoding time than a fixed beam of the same average width. "
            "Errors concentrate in utterances shorter than two seconds, where the beam has little time to adapt.")
KILN = RetrievedContext(
    chunk_id="kiln#1", source="/papers/kiln.pdf", title="Learning to Schedule Kiln Firing with Reinforcement Learning",
    breadcrumb="3 Method",
    content="The agent observes the temperature of twelve thermocouples every minute. "
            "Its reward is the negative energy spent per fired piece, minus a penalty for cracked glaze. "
            "The policy network has two hidden layers of 256 units and is trained with PPO for 3 million steps. "
            "Training converges after about 40 simulated firings.")
# A long body chunk of an invented paper: the answer sits in its middle, among sentences on the same topic.
LONG = RetrievedContext(
    chunk_id="gannet#7", source="/papers/gannet.pdf", title="Gannet: Retrieval-Augmented Forecasting of River Levels",
    breadcrumb="5 Experimental Setup",
    content="We evaluate Gannet on gauge records from forty rivers in three climate zones. "
            "Each record is resampled to hourly readings and split by year into training, validation and test periods. "
            "The retriever indexes every past storm as a window of 72 hourly readings. "
            "For each forecast, Gannet retrieves the eight past storms whose rising limbs are closest to the current one. "
            "The forecaster is a two-layer transformer with 4 attention heads and a hidden size of 128. "
            "Gannet is trained with the Adam optimizer at a learning rate of 0.0003 for 60 epochs. "
            "Early stopping watches the validation error with a patience of five epochs. "
            "We report the Nash-Sutcliffe efficiency and the peak timing error in hours. "
            "Baselines are persistence, a gradient-boosted tree model and an LSTM trained on the same windows. "
            "All models see the same rainfall forecasts as inputs. "
            "Training takes about three hours on one GPU. "
            "Gauges with more than a fifth of their readings missing are excluded.")
ABSENT_Q = "What word error rate does the Osprey-XL recognizer reach on the Quillfield benchmark?"


def _intent(q: str) -> Intent:
    return Intent(type="factual", confidence=1.0, reformulated_query=q)


def _compose(q: str, contexts: list[RetrievedContext]) -> str:
    return OfflineBrain(vocabulary=VOCAB).compose(SynthesisRequest(kind="simple", question=q, intent=_intent(q), contexts=contexts))


def test_a_question_about_a_system_no_chunk_names_is_declined() -> None:
    """No chunk is lexically on topic and the asked-about system is named nowhere: the gate must not
    answer with another system's table row just because it is a WER row."""
    prof = profile(ABSENT_Q, _intent(ABSENT_Q), vocab=VOCAB)
    assert not relevant_indexes([TERN, KILN], prof)  # the gate, not lexical relevance, decides this one
    assert not critic.evidence_gate(ABSENT_Q, _intent(ABSENT_Q), [TERN, KILN], vocab=VOCAB)
    text = _compose(ABSENT_Q, [TERN, KILN])
    assert "holds no evidence" in text and "8.6" not in text and "7.9" not in text


PLAIN_Q = "What is Pelican's learning rate?"  # a plain capitalized name: no acronym, CamelCase or digit


def test_a_plain_capitalized_name_no_chunk_uses_is_a_named_thing_and_the_question_is_declined() -> None:
    """The entity extractor sees no name in "Pelican" (no name shape, no vocabulary entry), so the
    question used to look anchored and the gate answered it with Tern's table row (as "What is
    Mamba's selective state space model?" was answered from an unrelated bundled paper)."""
    intent = _intent(PLAIN_Q)
    prof = profile(PLAIN_Q, intent, vocab=VOCAB)
    assert prof.entities == []
    assert not relevant_indexes([TERN, KILN], prof)
    draft, plain = critic.gate_draft(PLAIN_Q, intent, [TERN, KILN], vocab=VOCAB)
    assert verdict_inputs(PLAIN_Q, plain, [TERN, KILN], draft, [], vocab=VOCAB)[verdict.FEATURES.index("names_absent")] == 1.0
    assert not critic.evidence_gate(PLAIN_Q, intent, [TERN, KILN], vocab=VOCAB)
    text = _compose(PLAIN_Q, [TERN, KILN])
    assert "holds no evidence" in text and "0.31" not in text and "0.27" not in text


def test_question_names_skip_function_words_and_parts_of_a_paper() -> None:
    q = "How does the Tern decoder in Table 2 compare, and What does Kiln's policy learn?"
    assert verdict.question_names(profile(q, vocab=VOCAB)) == ["Tern", "Kiln"]
    assert verdict.question_names(profile(PLAIN_Q, vocab=VOCAB)) == ["Pelican"]
    assert verdict.question_names(profile("What is a beam search decoder?", vocab=VOCAB)) == []


def test_the_same_question_about_a_system_the_papers_hold_is_answered() -> None:
    q = "What word error rate does Tern reach on the Marsh test set?"
    text = _compose(q, [TERN, KILN])
    assert "7.9" in text.split("\n\n")[0]


def test_an_absent_name_is_a_feature_that_lowers_the_gates_probability() -> None:
    """The same one-sentence draft, asked about a system the chunks name and about one they do not:
    the question anchored nowhere is flagged and the gate's calibrated probability drops."""
    draft = "In Table 2 (Word error rate on the Marsh test set.), Tern: WER 7.9, real-time factor 0.31 [1]."
    named, unnamed = "What word error rate does Tern reach?", "What word error rate does Osprey-XL reach?"
    x_named = verdict_inputs(named, _intent(named), [TERN], draft, [], vocab=VOCAB)
    x_unnamed = verdict_inputs(unnamed, _intent(unnamed), [TERN], draft, [], vocab=VOCAB)
    i = verdict.FEATURES.index("names_absent")
    assert x_named[i] == 0.0 and x_unnamed[i] == 1.0
    assert verdict.gate_probability(x_unnamed) < verdict.gate_probability(x_named)


async def test_a_right_answer_from_a_long_chunk_passes_the_critic() -> None:
    q = "What learning rate is Gannet trained with?"
    text = _compose(q, [LONG, KILN])
    assert "0.0003" in text.split("\n\n")[0]
    v = await OfflineBrain(vocabulary=VOCAB).critique(q, _intent(q), [LONG, KILN], text, [])
    assert v.passed, v.feedback


def _by(ctx: RetrievedContext, authors: list[str]) -> RetrievedContext:
    from core.types import DocMeta

    return ctx.model_copy(update={"meta": DocMeta(authors=authors, year=2019)})


AUTHORS_Q = "How many historical storms does the retrieval step of Okonkwo, Lindqvist and Ferreira return per forecast?"


def test_a_question_that_names_a_paper_by_its_authors_is_answered_from_that_paper() -> None:
    """A paper's text never prints its authors' names; the hub returns them with each chunk (the
    byline). Read as names no chunk uses, they made the question look like one about something the
    collection does not hold, and it was declined with the answer retrieved first."""
    contexts = [_by(LONG, ["Ada Okonkwo", "Lindqvist, Elin", "Paulo Ferreira"]), KILN]
    prof = profile(AUTHORS_Q, _intent(AUTHORS_Q), vocab=VOCAB)
    assert relevant_indexes(contexts, prof) == [0]
    text = _compose(AUTHORS_Q, contexts)
    assert "holds no evidence" not in text and "eight past storms" in text.split("\n\n")[0]
    # the same names on a byline that is not this paper's are still names no chunk uses
    text = _compose(AUTHORS_Q, [_by(LONG, ["Mei Chen", "Tomas Novak"]), KILN])
    assert "holds no evidence" in text


def test_a_name_made_of_the_papers_author_surnames_is_named_by_its_chunks() -> None:
    """A question may cite a paper by two of its authors ("the Lindqvist and Ferreira retriever") or, in
    a follow-up, by one surname. Every chunk of that paper carries the byline, so the name is no name
    "no retrieved source" uses, and a direct answer cited to that paper names it: the critic neither
    docks a point for an absent name nor asks for the surnames in the answer."""
    from core.brains.offline.critic import critique
    from core.brains.offline.evidence import absent_names
    from core.config import CriticSettings

    gannet = _by(LONG, ["Ada Okonkwo", "Lindqvist, Elin", "Paulo Ferreira"])
    for name in ("Lindqvist and Ferreira", "Okonkwo et al.", "Ferreira"):
        q = f"How many past storms does the {name} retriever return per forecast?"
        intent = Intent(type="factual", confidence=1.0, entities=[name], reformulated_query=q)
        prof = profile(q, intent, vocab=VOCAB)
        assert absent_names([gannet, KILN], prof) == [], name
        answer = "For each forecast, Gannet retrieves the eight past storms whose rising limbs are closest to the current one [1]."
        v = critique(q, intent, [gannet, KILN], answer, [], CriticSettings(), vocab=VOCAB)
        assert not any(name in i for i in v.issues), (name, v.issues)
        # a byline that is not this paper's still leaves the name unmatched
        other = _by(LONG, ["Mei Chen", "Tomas Novak"])
        assert absent_names([other, KILN], prof) == [name]


QUILL = RetrievedContext(
    chunk_id="heron#5", source="/papers/heron.pdf", title="Heron: Multi-Label Learning from Bags of Regions",
    breadcrumb="5 Experiments > Table 3",
    content="We also evaluate Heron on the Quillfield 2021 multi-label image set. "
            "In Table 3 (Classification results on the Quillfield 2021 data), Heron: Hamming loss 0.145, "
            "One-error 0.301, Average precision 0.509. "
            "In Table 3 (Classification results on the Quillfield 2021 data), Bag baseline: Hamming loss 0.177, "
            "One-error 0.332, Average precision 0.502.")
SET_IN_Q = "What mean average precision does Osprey-XL achieve on the Quillfield detection benchmark?"


def test_a_question_whose_subject_no_chunk_names_is_declined_though_its_setting_is_named() -> None:
    """Osprey-XL (what the question asks about) is named nowhere; the Quillfield set it is set in is named
    by Heron's chunk, whose rows read like an answer. No chunk is lexically on topic, so the gate decides:
    one name of several that no chunk uses never vetoes, but the asked-about subject is not any name, so
    the question is anchored nowhere and declined rather than answered with Heron's rows."""
    prof = profile(SET_IN_Q, _intent(SET_IN_Q), vocab=VOCAB)
    assert verdict.asked_subjects(SET_IN_Q, verdict.question_names(prof), VOCAB) == ["Osprey-XL"]
    assert not relevant_indexes([QUILL, KILN], prof)
    assert verdict.anchored_nowhere([QUILL, KILN], prof)
    text = _compose(SET_IN_Q, [QUILL, KILN])
    assert "holds no evidence" in text and "0.509" not in text and "0.502" not in text, text
    # a name that is not the auxiliary's subject is no subject: "How large were the clusters in the X runs"
    q = "How large were the clusters in the Tern experiments compared with the Osprey-XL runs?"
    assert verdict.asked_subjects(q, verdict.question_names(profile(q, vocab=VOCAB)), VOCAB) == []
