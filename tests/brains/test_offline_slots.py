"""Offline slot filling: lexicon + hub vocabulary + heuristics, dimensions, constraints, follow-up rewriting."""

from __future__ import annotations

from core.brains.base import Turn
from core.brains.offline import OfflineBrain
from tests.support.vocab import bundled_vocabulary

VOCAB = [
    "LoRA: Low-Rank Adaptation of Large Language Models",
    "QLoRA: Efficient Finetuning of Quantized LLMs",
    "Mamba: Linear-Time Sequence Modeling with Selective State Spaces",
    "Training language models to follow instructions with human feedback",
]


async def fill(question: str, intent: str = "factual", history: list[Turn] | None = None):
    return await OfflineBrain(vocabulary=bundled_vocabulary()).fill_slots(question, intent, history or [], VOCAB)  # type: ignore[arg-type]


async def test_comparative_entities_and_normalized_dimensions() -> None:
    out = await fill("Compare LoRA and QLoRA in memory use and accuracy", "comparative")
    assert out.entities == ["LoRA", "QLoRA"]
    assert out.dimensions == ["memory", "accuracy"]
    assert out.reformulated_query == "Compare LoRA and QLoRA in memory use and accuracy"


async def test_aliases_map_to_canonical_names() -> None:
    out = await fill("How is Direct Preference Optimization related to reinforcement learning from human feedback and chain of thought?")
    # canonical names are the collection's own: the notes define "Chain-of-thought (CoT)"
    assert out.entities == ["DPO", "RLHF", "CoT"]
    out = await fill("Does the 4-bit NormalFloat type beat Int4 in Attention Is All You Need models?")
    assert "NF4" in out.entities and "Attention Is All You Need" in out.entities  # a title names its paper


async def test_vocabulary_titles_and_unknown_acronyms_become_entities() -> None:
    out = await fill("How does Mamba differ from GRPO and FlashAttention?")
    assert out.entities == ["Mamba", "GRPO", "FlashAttention"]
    assert "GPU" not in (await fill("Is LoRA fast on a GPU?")).entities


async def test_dimensions_cover_speed_cost_stability_and_chinese() -> None:
    assert (await fill("Which is faster to train and cheaper, DPO or RLHF?")).dimensions == ["training time", "cost"]
    assert (await fill("Is DPO more stable than PPO in latency?")).dimensions == ["stability", "speed"]
    assert (await fill("对比LoRA和QLoRA的显存和精度", "comparative")).dimensions == ["memory", "accuracy"]


async def test_constraints_scale_hardware_years_precision() -> None:
    out = await fill("How does QLoRA build on LoRA to fine-tune a 65B model on a single GPU with 4-bit weights since 2023?", "multi_hop")
    assert out.constraints == {"model_size": "65B", "hardware": "single GPU", "years": [2023], "precision": "4-bit"}


async def test_follow_up_pronoun_is_replaced_by_last_turn_entity() -> None:
    history = [Turn(question="What is LoRA?", answer="LoRA freezes weights [1].")]  # entities found in the question
    out = await fill("And how much memory does it save compared to full fine-tuning?", "follow_up", history)
    assert out.reformulated_query == "How much memory does LoRA save compared to full fine-tuning?"
    assert out.entities[0] == "LoRA" and out.dimensions == ["memory"]
    out = await fill("And how much memory does that save?", "follow_up", history)
    assert out.reformulated_query == "How much memory does LoRA save?"


async def test_its_after_a_name_of_the_follow_up_is_that_names_own() -> None:
    """"And how does the Mamba paper evaluate its models?" after a turn about LoRA: "its" is Mamba's, the
    name the question itself puts before it, so the question is self-contained and about Mamba alone.
    Before, "its" became "LoRA and Mamba's" and the answer quoted LoRA's evaluation. A pronoun with no
    such name before it still points back ("How was it evaluated, and is Mamba faster?")."""
    history = [Turn(question="What does LoRA freeze?", answer="LoRA freezes the weights [1].", entities=["LoRA"])]
    out = await fill("And how does the Mamba paper evaluate its models?", "follow_up", history)
    assert out.entities == ["Mamba"] and "LoRA" not in out.reformulated_query, out
    out = await fill("How does its rank compare with Mamba's state size?", "follow_up", history)
    assert out.reformulated_query.startswith("How does LoRA's rank"), out
    assert set(out.entities) == {"LoRA", "Mamba"}


async def test_which_one_mentions_both_compared_entities() -> None:
    history = [Turn(question="Compare LoRA and QLoRA in memory use and accuracy", answer="...", entities=["LoRA", "QLoRA"])]
    out = await fill("and which one is faster to train?", "follow_up", history)
    assert "LoRA" in out.reformulated_query and "QLoRA" in out.reformulated_query
    assert out.entities == ["LoRA", "QLoRA"] and out.dimensions == ["training time"]


async def test_what_about_reasks_the_previous_question_about_the_new_entity() -> None:
    history = [Turn(question="What rank does LoRA use by default?", answer="...", entities=["LoRA"])]
    out = await fill("What about QLoRA?", "follow_up", history)
    assert out.reformulated_query == "What rank does QLoRA use by default?"
    assert out.entities == ["QLoRA"]


async def test_pure_ellipsis_gets_the_entities_appended_and_answer_entities_are_a_fallback() -> None:
    history = [Turn(question="Tell me more", answer="DPO trains on preference pairs without a reward model [2].")]
    out = await fill("And the stability?", "follow_up", history)
    assert "DPO" in out.reformulated_query and out.entities == ["DPO"]


async def test_chinese_pronoun_rewrite() -> None:
    history = [Turn(question="什么是LoRA？", answer="...", entities=["LoRA"])]
    out = await fill("那它能节省多少显存？", "follow_up", history)
    assert out.reformulated_query == "LoRA 能节省多少显存？ (memory)"  # pronoun resolved, terms in English


async def test_the_hub_vocabulary_list_does_not_override_a_terms_casing() -> None:
    from core.vocabulary import DocumentText, build

    v = build([DocumentText(title="ReAct: Reasoning and Acting", chunks=["ReAct prompts.", "Agents react to tools."])])
    assert v.get("ReAct").case_sensitive == ("ReAct",)
    brain = OfflineBrain(vocabulary=v)  # the agent passes the vocabulary's names along as the hub vocabulary
    out = await brain.fill_slots("How do language models react to noisy retrieval?", "factual", [], v.names())
    assert "ReAct" not in out.entities
    assert "ReAct" in (await brain.fill_slots("How does ReAct act?", "factual", [], v.names())).entities


async def test_a_paper_cited_by_its_authors_is_one_name() -> None:
    """In a comparison, "Surname et al.", with or without a year, and a surname pair with a year or a
    possessive are names, labelled in one form; a pair of capitalized words alone is not made one."""
    out = await fill("Compare Okafor et al. and Lindqvist et al. in memory use", "comparative")
    assert out.entities == ["Okafor et al.", "Lindqvist et al."]
    out = await fill("How do Okafor et al., 2021 and Lindqvist and Reyes (2022) differ?", "comparative")
    assert out.entities == ["Okafor et al. (2021)", "Lindqvist and Reyes (2022)"]
    out = await fill("How does Lindqvist & Reyes's reader compare with QLoRA?", "comparative")
    assert out.entities == ["Lindqvist and Reyes", "QLoRA"]
    out = await fill("How do O'Brien et al. and Jean-Baptiste et al. differ?", "comparative")
    assert out.entities == ["O'Brien et al.", "Jean-Baptiste et al."]
    # outside a comparison it is no name: a paper's text seldom names its authors, and a name that no
    # chunk carries lowers confidence in the answer
    out = await fill("What do O'Brien et al. report about LoRA?")
    assert out.entities == ["LoRA"]
    out = await fill("Compare Wren and Lark in memory use", "comparative")
    assert "Wren and Lark" not in out.entities


def test_an_author_citation_resolves_to_the_paper_whose_byline_carries_it() -> None:
    from core.brains.offline.sides import by_byline, side_papers
    from core.state import RetrievedContext
    from core.types import DocMeta

    def chunk(doc: str, authors: list[str], year: int | None) -> RetrievedContext:
        return RetrievedContext(content="Our adapters cut memory use.", chunk_id=f"{doc}#0", doc_id=doc,
                                title=f"A paper on {doc}", meta=DocMeta(authors=authors, year=year))

    a = chunk("adapters", ["Adaeze Okafor", "Minh Tran"], 2021)
    b = chunk("lowrank", ["Lindqvist, Elin", "Paulo Reyes"], 2022)
    c = chunk("tran", ["Minh Tran", "Adaeze Okafor"], 2021)  # Okafor is on this byline, not first
    assert by_byline(a, "Okafor et al.") and by_byline(a, "Okafor and Tran (2021)")
    assert not by_byline(c, "Okafor et al.") and not by_byline(a, "Okafor et al. (2019)")
    assert by_byline(b, "Lindqvist and Reyes") and not by_byline(b, "Lindqvist and Tran")
    assert by_byline(chunk("accents", ["Jörg Müller"], None), "Muller et al.")
    assert not by_byline(a, "LoRA") and not by_byline(chunk("x", [], None), "Okafor et al.")
    assert side_papers([c, a, b], ["Okafor et al.", "Lindqvist et al."], vocab=bundled_vocabulary()) == {
        "Okafor et al.": "adapters", "Lindqvist et al.": "lowrank"}


async def test_a_self_contained_follow_up_is_searched_without_its_leading_and() -> None:
    """"And how does the Mamba paper evaluate its models?" names its own subject: it is searched as "How does
    the Mamba paper evaluate its models?", as any rewritten follow-up is (the trace showed the search
    "And how doe…")."""
    history = [Turn(question="What does LoRA freeze?", answer="LoRA freezes the weights [1].", entities=["LoRA"])]
    out = await fill("And how does the Mamba paper evaluate its models?", "follow_up", history)
    assert out.reformulated_query == "How does the Mamba paper evaluate its models?", out
