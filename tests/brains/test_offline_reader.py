"""The reader (a MiniLM cross-encoder, :mod:`core.brains.offline.reader`): it runs on ONNX Runtime
with no torch, its graph computes what the trained torch model does, it reorders only the scorer's
shortlist, and without its adapter the scorer ranks alone (said once)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from core.brains.offline import reader
from tests.support.extras import needs

PAIRS = [("What word error rate does KESTREL reach on Marsh?",
          "KESTREL lowers the word error rate on the Marsh test set from 9.1% to 7.4%."),
         ("What word error rate does KESTREL reach on Marsh?", "The adapters are trained on 900 hours of read speech."),
         ("How many expert blocks does PLOVER route a token to?", "PLOVER routes each token to 2 of 32 expert blocks.")]


def test_the_shipped_reader_was_trained_on_generated_groups_and_blends_in() -> None:
    meta = json.loads((reader.READER_DIR / "reader.json").read_text(encoding="utf-8"))
    assert meta["trained_on"]["generator"] == "training.data.generate_scorer"
    assert meta["blend_weight"] > 0
    held = meta["heldout"]  # numbers the training measured on unseen generated papers
    assert held[f"blend {meta['blend_weight']}"] >= held["scorer"]


PROBE = """
import json, sys
from core.brains.offline import reader
got = reader.logits(*json.loads(sys.argv[1]))
print(json.dumps({"logits": got, "torch": "torch" in sys.modules}))
"""


def test_the_reader_runs_on_onnx_without_torch_and_reads_the_answer_higher() -> None:
    q = PAIRS[0][0]
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps([q, [PAIRS[0][1], PAIRS[1][1]]])],
                         capture_output=True, text=True, timeout=300, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["torch"] is False
    answer, other = got["logits"]
    assert answer > other


@pytest.mark.slow
@needs("train")
def test_the_onnx_graph_computes_what_the_trained_model_does() -> None:
    import torch

    from core.models.minilm_classifier import load_classifier
    from core.onnx_runtime import tokenizer

    model, _ = load_classifier(reader.READER_DIR, 1)
    tok = tokenizer(json.loads((reader.READER_DIR / "reader.json").read_text(encoding="utf-8"))["max_length"])
    enc = tok.encode_batch(PAIRS)  # as training.reader_train.encode feeds the model: type ids all 0
    ids = torch.tensor([e.ids for e in enc])
    with torch.no_grad():
        ref = model(input_ids=ids, attention_mask=torch.tensor([e.attention_mask for e in enc]),
                    token_type_ids=torch.zeros_like(ids)).logits[:, 0].numpy()
    got = np.array([reader.logits(q, [s])[0] for q, s in PAIRS])
    assert np.abs(got - ref).max() < 1e-3


def test_only_the_shortlist_is_read_and_the_rest_stay_below_it_in_order() -> None:
    asked: list[str] = []

    def fake_logits(question: str, texts: list[str]) -> list[float]:
        asked.extend(texts)
        return [4.0 if t == "c" else -4.0 for t in texts]

    texts = ["a", "b", "c", "d", "e"]
    probs = [0.9, 0.8, 0.3, 0.5, 0.2]
    out = reader.rescore("q", texts, probs, shortlist=3, read=(fake_logits, 1.0))
    assert sorted(asked) == ["a", "b", "d"]  # the scorer's three best; "c" is not read
    top3 = sorted(range(5), key=lambda i: -out[i])[:3]
    assert set(top3) == {0, 1, 3} and min(out[i] for i in top3) > max(out[2], out[4])
    assert out[2] > out[4]  # the unread keep the scorer's order
    out = reader.rescore("q", texts, [0.3, 0.9, 0.95, 0.1, 0.2], shortlist=3, read=(fake_logits, 1.0))
    assert max(range(5), key=lambda i: out[i]) == 2  # the read "c" overtakes the scorer's first


def test_a_pick_the_scorer_is_confident_of_is_not_read() -> None:
    """From ``skip_above`` on, the reader is not run and the scorer's probabilities stand; below it,
    the shortlist is read as before. The shipped reader's threshold was chosen on held-out groups."""
    asked: list[str] = []

    def fake_logits(question: str, texts: list[str]) -> list[float]:
        asked.extend(texts)
        return [4.0 if t == "b" else -4.0 for t in texts]

    read = (fake_logits, 1.0)
    assert reader.rescore("q", ["a", "b"], [0.97, 0.6], read=read, skip_above=0.95) == [0.97, 0.6] and not asked
    out = reader.rescore("q", ["a", "b"], [0.9, 0.6], read=read, skip_above=0.95)
    assert asked == ["a", "b"] and out[1] > out[0]
    meta = json.loads((reader.READER_DIR / "reader.json").read_text(encoding="utf-8"))["skip"]
    assert meta["heldout_top1"] >= meta["top1_reading_all"] - meta["tolerance"] and 0 < meta["read_share"] < 1
    assert reader._model().skip_above == meta["skip_above"]


def test_without_its_adapter_the_scorer_ranks_alone_and_says_so_once(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setattr(reader, "READER_DIR", tmp_path)  # no adapter here
    monkeypatch.setattr(reader, "_warned", [])
    reader._model.cache_clear()
    try:
        assert reader.rescore("q", ["a", "b"], [0.2, 0.7]) == [0.2, 0.7]
        assert reader.rescore("q", ["a"], [0.4]) == [0.4]
        assert reader.lead_share() is None  # the scorer's own share applies
        assert capsys.readouterr().err.count("the reader is unavailable") == 1
    finally:  # the shipped adapter again for the tests after this one
        reader._model.cache_clear()


def test_the_direct_answer_reads_the_blend_with_the_share_calibrated_for_it() -> None:
    meta = json.loads((reader.READER_DIR / "reader.json").read_text(encoding="utf-8"))
    lead = meta["lead"]
    assert reader.lead_share() == lead["share"]
    # chosen on the blended held-out groups as the scorer's share is chosen on its own probabilities
    assert lead["heldout_recall"] > lead["one_sentence_recall"]
    assert [p[0] for p in lead["curve"]][0] == 1.0 and lead["share"] in [p[0] for p in lead["curve"]]


def test_a_follow_up_is_read_as_its_self_contained_rewrite(monkeypatch) -> None:
    """"How fast is it?" says nothing the reader can match; the slot filler's rewrite names "it"."""
    from core.brains.offline.compose import simple
    from core.brains.offline.evidence import profile, sentence_pool
    from core.state import RetrievedContext
    from core.types import Intent
    from core.vocabulary import Vocabulary

    asked: list[str] = []

    def rescore(question, texts, probs, shortlist=reader.SHORTLIST):
        asked.append(question)
        return list(probs)

    monkeypatch.setattr(reader, "rescore", rescore)
    ctx = RetrievedContext(chunk_id="k#0", source="/papers/kestrel.md", title="KESTREL: Sparse Adapters for Speech",
                           content="KESTREL decodes 40 utterances per second on one GPU. KESTREL adds sparse adapters.")
    intent = Intent(type="follow_up", confidence=0.9, entities=["KESTREL"],
                    reformulated_query="How fast is KESTREL at decoding?")
    prof = profile("How fast is it at decoding?", intent, vocab=Vocabulary())
    assert prof.question == "How fast is it at decoding?" and prof.query == "How fast is KESTREL at decoding?"
    simple(sentence_pool([ctx], prof), prof, [ctx])
    assert asked == ["How fast is KESTREL at decoding?"]


def test_other_questions_are_read_as_typed_and_chinese_ones_with_their_english_rewrite() -> None:
    """The rewrite drops "in two sentences" (it shapes the answer, it is not searched), and without it
    the reader underrates every sentence but the first; a Chinese question's rewrite adds the English
    names the reader's vocabulary can read."""
    from core.brains.offline.evidence import profile
    from core.types import Intent
    from core.vocabulary import Vocabulary

    typed = "Summarize KESTREL in two sentences."
    intent = Intent(type="factual", confidence=0.9, entities=["KESTREL"], reformulated_query="Summarize KESTREL")
    assert profile(typed, intent, vocab=Vocabulary()).query == typed
    zh = Intent(type="factual", confidence=0.9, reformulated_query="KESTREL 的词错误率是多少？ (word error rate)")
    assert profile("KESTREL 的词错误率是多少？", zh, vocab=Vocabulary()).query == zh.reformulated_query
