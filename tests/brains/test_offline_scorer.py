"""The learned sentence scorer on invented papers: it ranks the answering sentence first, it is what
sentence selection uses, and it runs without torch (ONNX MiniLM, weights from a JSON file)."""

from __future__ import annotations

import json
import subprocess
import sys

from core.brains.offline import scorer
from core.brains.offline.compose import simple
from core.brains.offline.evidence import profile, sentence_pool
from core.brains.offline.synthesis import relevance
from core.state import RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

KESTREL = RetrievedContext(
    chunk_id="kestrel#0", source="/papers/kestrel.md", title="KESTREL: Sparse Adapters for Speech",
    content="KESTREL adds sparse adapters to a frozen speech encoder. "
            "The adapters are trained on 900 hours of read speech. "
            "KESTREL lowers the word error rate on the Marsh test set from 9.1% to 7.4%. "
            "Training the adapters takes 6 hours on one GPU.")
PLOVER = RetrievedContext(
    chunk_id="plover#0", source="/papers/plover.md", title="PLOVER: Routing Tokens in Long Documents",
    content="PLOVER routes each token to 2 of 32 expert blocks. "
            "On the Marsh speech test set a dense baseline has a word error rate of 11.0%.")


def ranked(question: str, contexts: list[RetrievedContext]) -> list[str]:
    prof = profile(question, vocab=VOCAB)
    pool = sentence_pool(contexts, prof, only_relevant=False)
    return [s.text for s in sorted(pool, key=lambda s: -relevance(s, prof))]


def test_weights_are_learned_for_every_feature_and_read_from_the_file() -> None:
    data = json.loads(scorer.WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert data["features"] == list(scorer.FEATURES)
    assert data["trained_on"]["generator"] == "training.data.generate_scorer"
    assert scorer.model()["weights"] == data["weights"]
    assert scorer.model()["uses_cosine"] is data["uses_cosine"]


def test_the_answering_sentence_ranks_above_distractors_sharing_its_words() -> None:
    top = ranked("How much does KESTREL reduce the word error rate?", [KESTREL, PLOVER])
    assert top[0].startswith("KESTREL lowers the word error rate")
    top = ranked("How many expert blocks does PLOVER route a token to?", [KESTREL, PLOVER])
    assert top[0].startswith("PLOVER routes each token")


def test_a_table_row_that_answers_beats_prose_that_names_the_same_things() -> None:
    table = RetrievedContext(chunk_id="k#1", source="/papers/kestrel.md", title="KESTREL: Sparse Adapters for Speech",
                             breadcrumb="KESTREL > Table 2: Word error rate on Marsh and Fen",
                             content="| KESTREL | Marsh: 7.4 | Fen: 12.9 |\n| Dense | Marsh: 9.1 | Fen: 14.0 |")
    prose = RetrievedContext(chunk_id="k#2", source="/papers/kestrel.md", title="KESTREL: Sparse Adapters for Speech",
                             content="We evaluate KESTREL on Marsh and Fen, two read-speech test sets.")
    top = ranked("What word error rate does KESTREL get on Fen?", [prose, table])
    assert top[0].startswith("In Table 2") and "KESTREL: Marsh 7.4, Fen 12.9" in top[0]


def test_the_direct_answer_is_the_scorers_first_choice() -> None:
    prof = profile("How much does KESTREL reduce the word error rate?", vocab=VOCAB)
    pool = sentence_pool([KESTREL, PLOVER], prof)
    text, _ = simple(pool, prof, [KESTREL, PLOVER])
    assert text.split("\n\n")[0].startswith("KESTREL lowers the word error rate on the Marsh test set from 9.1% to 7.4%")


PROBE = """
import json, sys
from core.brains.offline import scorer
from core.brains.offline.evidence import profile, sentence_pool
from core.state import RetrievedContext
from core.vocabulary import Vocabulary
learned = scorer.model()
scorer.model = lambda: {**learned, "uses_cosine": True}  # the similarity feature on, whatever the shipped weights say
ctx = RetrievedContext(chunk_id="a", content="Zeta trains on 40 GPUs. Zeta is a sparse model for parsing.")
prof = profile("What is Zeta?", vocab=Vocabulary())
pool = sentence_pool([ctx], prof)
scorer.prime([prof.question] + [s.text for s in pool])
print(json.dumps({"cos": scorer.features(pool[0], prof)[-1], "torch": "torch" in sys.modules}))
"""


def test_scoring_with_minilm_similarity_loads_no_torch() -> None:
    """Weights trained with ``uses_cosine`` score with the ONNX encoder: no torch at run time
    (once the graph is cached, which this process does first, as an install's first use does)."""
    from core.onnx_runtime import encoder_file

    encoder_file()
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300, check=True,
                         env={**__import__("os").environ, "PAPERPILOT_ENCODER": "onnx"})
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["torch"] is False
    assert got["cos"] > 0.2  # the similarity came from the encoder, not the missing-encoder fallback


def test_a_missing_weights_file_is_said_once_and_ranking_falls_back_to_coverage(tmp_path) -> None:
    code = ("import sys; from pathlib import Path; from core.brains.offline import scorer; "
            f"scorer.WEIGHTS_FILE = Path({str(tmp_path / 'none.json')!r}); scorer.model(); scorer.model(); "
            "print(scorer.model()['uses_cosine'])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "False"
    assert out.stderr.count("sentence scorer weights unavailable") == 1


def test_a_stated_value_is_a_number_that_is_no_figure_index_nor_part_of_a_name() -> None:
    got = scorer.stated_values("As Table 3 shows, GPT-4 and KESTREL cut the error from 9.1% to 7.4% with 2,048 tokens.")
    assert [v for _, v in got] == ["9.1%", "7.4%", "2,048"]


def test_value_features_tell_a_stated_answer_from_a_set_up_sentence() -> None:
    q = "How much does KESTREL reduce the word error rate?"
    terms = set(profile(q, vocab=VOCAB).key_terms)
    near, new = scorer.value_features("KESTREL lowers the word error rate from 9.1% to 7.4%.", q, terms)
    assert new == 1.0 and near > 0
    # names the measure, states no value: the typical full-text miss
    assert scorer.value_features("We report the word error rate of KESTREL in Table 3.", q, terms) == (0.0, 0.0)
    # a value, but in a clause about something else
    assert scorer.value_features("Training takes 6 hours, and the word error rate drops.", q, terms) == (0.0, 1.0)
    # a value the question already gives is not an answer to it
    assert scorer.value_features("The rate of 9.1% was reported before.", "Why did the 9.1% rate fall?", {"rate"}) == (0.0, 0.0)
    # nearer is higher
    far, _ = scorer.value_features("The word error rate that KESTREL reaches on the Marsh test set is 7.4%.", q, terms)
    assert 0 < far < near


def test_the_sentence_stating_the_asked_value_outranks_the_one_that_sets_it_up() -> None:
    ctx = RetrievedContext(
        chunk_id="kestrel#3", source="/papers/kestrel.md", title="KESTREL: Sparse Adapters for Speech",
        content="We report the word error rate of KESTREL and the dense baseline on Marsh in Table 3. "
                "We study how the word error rate of KESTREL on Marsh changes with the adapter rank. "
                "With rank 8, KESTREL reaches a word error rate of 7.4% on Marsh.")
    prof = profile("What word error rate does KESTREL reach on Marsh?", vocab=VOCAB)
    pool = sorted(sentence_pool([ctx], prof, only_relevant=False), key=lambda s: -relevance(s, prof))
    assert pool[0].text.startswith("With rank 8, KESTREL reaches")


def test_the_brain_computes_the_probability_the_training_fitted() -> None:
    """The run-time formula (with and without a hidden layer) is the training's, on the same numbers."""
    import numpy as np

    from training.scorer_train import logit

    n = len(scorer.FEATURES)
    rng = np.random.default_rng(3)
    x = rng.random(n)
    linear = {"weights": rng.normal(size=n), "bias": 0.3, "mean": rng.random(n), "scale": rng.random(n) + 0.5}
    hidden = {**linear, "weights": rng.normal(size=4), "hidden": {"weights": rng.normal(size=(4, n)), "bias": rng.normal(size=4)}}
    for fit in (linear, hidden):
        as_json = json.loads(json.dumps({k: (v.tolist() if hasattr(v, "tolist") else v) for k, v in fit.items()},
                                        default=lambda o: o.tolist()))
        saved = scorer.model
        scorer.model = lambda saved_json=as_json: saved_json  # the JSON the training would write
        try:
            got = scorer.probability(list(x))
        finally:
            scorer.model = saved
        assert abs(got - 1 / (1 + np.exp(-logit(fit, x[None, :])[0]))) < 1e-9


def test_comparison_cells_are_ranked_by_weights_learned_with_the_minilm_cosine() -> None:
    data = json.loads(scorer.SIDE_WEIGHTS_FILE.read_text(encoding="utf-8"))
    assert data["features"] == list(scorer.FEATURES)
    assert data["uses_cosine"] is True
    assert data["trained_on"]["generator"] == "training.data.generate_scorer"
    assert data["trained_on"]["side_groups"]["generator"] == "training.data.generate_sides"
    assert scorer.side_model()["weights"] == data["weights"]
    cos = scorer.FEATURES.index("cosine")
    first = data["hidden"]["weights"] if "hidden" in data else [data["weights"]]
    assert any(row[cos] != 0.0 for row in first)  # the similarity is read, not left at zero


def test_a_side_question_leaves_out_the_other_compared_names() -> None:
    from core.brains.offline.comparison import side_question

    q = "How do Wren and LARK differ in how they read a page?"
    assert side_question(q, "LARK", ["Wren", "LARK"], vocab=VOCAB) == "How do and LARK differ in how they read a page?"
    assert side_question(q, "Wren", ["Wren", "LARK"], vocab=VOCAB) == "How do Wren and differ in how they read a page?"
