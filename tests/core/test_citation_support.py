"""Claim-level citation support (core.citations): a marker stays only where its chunk supports the claim."""

from core.citations import check_citations, claim_support, claims, support
from core.nodes.format_output import renumber_citations
from core.types import RetrievedContext, Source

LORA = RetrievedContext(content="LoRA freezes the pretrained weights and injects trainable low-rank matrices; "
                                "ranks as small as r = 1 or 2 already work well.",
                        title="LoRA: Low-Rank Adaptation", chunk_id="lora_1", doc_id="lora")
QLORA = RetrievedContext(content="QLoRA backpropagates through a frozen 4-bit quantized model into LoRA adapters "
                                 "and finetunes a 65B parameter model on a single 48GB GPU.",
                         title="QLoRA: Efficient Finetuning", chunk_id="qlora_1", doc_id="qlora")


def test_a_claim_about_paper_b_cited_to_paper_a_is_repointed():
    answer = "QLoRA finetunes a 65B model on a single 48GB GPU [1]. LoRA freezes the pretrained weights [1]."
    text, changes = check_citations(answer, [LORA, QLORA])
    assert text == "QLoRA finetunes a 65B model on a single 48GB GPU [2]. LoRA freezes the pretrained weights [1]."
    assert changes == ['[1] re-pointed to [2]: "QLoRA finetunes a 65B model on a single 48GB GPU"']


def test_a_claim_no_chunk_supports_loses_its_marker_and_keeps_its_text():
    answer = "LoRA was proposed in 2019 by DeepMind [1]. LoRA freezes the pretrained weights [1]."
    text, changes = check_citations(answer, [LORA, QLORA])
    assert text == "LoRA was proposed in 2019 by DeepMind. LoRA freezes the pretrained weights [1]."
    assert len(changes) == 1 and changes[0].startswith("[1] dropped")


def test_numbers_and_names_must_be_in_the_chunk():
    assert support("QLoRA finetunes a 65B model on a 48GB GPU", QLORA) == 1.0
    assert support("QLoRA finetunes a 70B model on a 48GB GPU", QLORA) == 0.0  # number absent
    assert support("GPTQ finetunes a 65B model on a 48GB GPU", QLORA) == 0.0  # name absent
    assert support("ranks as small as r = 1 work well", LORA) >= 0.5


def test_each_marker_group_cites_its_own_clause_and_list_labels_are_not_claims():
    answer = ("1. **Which GPU?** QLoRA finetunes on a single 48GB GPU [2], while LoRA freezes the "
              "pretrained weights [1].")
    assert [c.text for c in claims(answer)] == [
        "QLoRA finetunes on a single 48GB GPU", ", while LoRA freezes the pretrained weights"]
    assert check_citations(answer, [LORA, QLORA]) == (answer, [])


def test_supported_answers_and_unknown_markers_are_left_alone():
    answer = "LoRA freezes the pretrained weights [1][2]. Rank is tiny [9]."
    text, changes = check_citations(answer, [LORA, QLORA])
    # [2] (QLoRA) does not support the LoRA claim, and LoRA's chunk already does: it goes
    assert text == "LoRA freezes the pretrained weights [1]. Rank is tiny [9]." and len(changes) == 1
    final, sources, removed = renumber_citations(text, [LORA, QLORA])
    assert removed == [9] and [s.chunk_id for s in sources] == ["lora_1"]


def test_claim_support_counts_pairs_of_a_final_answer():
    sources = [Source(index=1, chunk_id="lora_1", doc_id="lora", title=LORA.title, text=LORA.content),
               Source(index=2, chunk_id="qlora_1", doc_id="qlora", title=QLORA.title, text=QLORA.content)]
    answer = "LoRA freezes the pretrained weights [1]. LoRA finetunes a 65B model [1][2]."
    assert claim_support(answer, sources) == (2, 3)


def test_a_bare_marker_is_not_a_supported_claim():
    # a weak model's whole answer was "[1] [2] [3] [4] [5] [6]": eval qa counted 6 supported claims
    sources = [Source(index=1, chunk_id="lora_1", doc_id="lora", title=LORA.title, text=LORA.content),
               Source(index=2, chunk_id="qlora_1", doc_id="qlora", title=QLORA.title, text=QLORA.content)]
    assert claim_support("[1] [2]", sources) == (0, 2)
    assert claim_support("LoRA freezes the pretrained weights [1]. [2]", sources) == (1, 2)
    text, changes = check_citations("[1] [2]", [LORA, QLORA])
    assert "[" not in text and len(changes) == 2


def test_a_marker_after_its_sentences_period_cites_that_sentence():
    """A list step written "… stable on long sequences. [1]" (the lineage answer's form) ends its line with
    the marker: it cites the sentence before it, not the nothing after it."""
    from core.citations import claims

    answer = "1. **Gated Nets**: Gates keep attention stable on long sequences. [1]\n#### 2018\n2. **Deep Nets** [2]"
    found = claims(answer)
    assert found[0].text.strip() == "Gates keep attention stable on long sequences."
    ctx = LORA.model_copy(update={"content": "Gates keep attention stable on long sequences where it diverges."})
    text, changes = check_citations(answer.split("\n")[0], [ctx])
    assert text.endswith("[1]") and changes == []
    assert claim_support("[1] [2]", [Source(index=1, chunk_id="c", doc_id="d", title="t", text="x y")])[0] == 0
