"""Offline synthesis, critic and fact extraction over hand-made LoRA/QLoRA/RLHF/DPO chunks."""

from __future__ import annotations

import re

import pytest

from core.brains.base import SynthesisRequest
from core.brains.offline import OfflineBrain
from core.brains.offline.text import markers
from core.state import Intent, RetrievedContext
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them


def ctx(n: int, doc: str, title: str, text: str, entity: str | None = None) -> RetrievedContext:
    return RetrievedContext(content=text, title=title, doc_id=doc, chunk_id=f"{doc}#{n}", entity=entity)


LORA_1 = ctx(1, "lora", "LoRA: Low-Rank Adaptation of Large Language Models",
             "LoRA is a parameter-efficient fine-tuning method that freezes the pretrained weights and trains two small "
             "low-rank matrices per adapted layer. The rank r is a hyperparameter; the PEFT library uses r = 8 as its "
             "default rank. On GPT-3 175B, LoRA cuts training memory from 1.2 TB to 350 GB compared with full fine-tuning.")
LORA_2 = ctx(2, "lora", "LoRA: Low-Rank Adaptation of Large Language Models",
             "LoRA matches or exceeds the accuracy of full fine-tuning on GLUE and WikiSQL while adding no inference "
             "latency. Because the update is linear, LoRA weights can be merged into the base model before deployment.")
QLORA_1 = ctx(3, "qlora", "QLoRA: Efficient Finetuning of Quantized LLMs",
              "QLoRA builds on LoRA by backpropagating through a frozen 4-bit quantized base model into LoRA adapters. "
              "QLoRA introduces the 4-bit NormalFloat data type, Double Quantization and Paged Optimizers. "
              "QLoRA reduces the memory needed to fine-tune a 65B model from more than 780 GB to under 48 GB, so a 65B "
              "model fits on a single GPU.")
QLORA_2 = ctx(4, "qlora", "QLoRA: Efficient Finetuning of Quantized LLMs",
              "QLoRA matches the accuracy of 16-bit LoRA and 16-bit full fine-tuning on MMLU and GLUE benchmarks. "
              "A QLoRA training step is slower than a 16-bit LoRA step because weights are dequantized on the fly.")
RLHF_1 = ctx(5, "instructgpt", "Training language models to follow instructions with human feedback",
             "RLHF first fits a reward model to human preference comparisons and then optimizes the policy with PPO "
             "under a KL penalty. InstructGPT applied RLHF to GPT-3 and labelers preferred its outputs.")
RLHF_2 = ctx(6, "instructgpt", "Training language models to follow instructions with human feedback",
             "PPO training in RLHF is complex and often unstable, because it needs a policy, a reference model, a "
             "reward model and a value model in memory at once.")
DPO_1 = ctx(7, "dpo", "Direct Preference Optimization",
            "DPO is an alignment method that optimizes the policy directly on preference pairs with a classification loss, without a separate "
            "reward model and without reinforcement learning. Unlike RLHF with PPO, DPO is simpler to implement and "
            "more stable to train.")
OFF_TOPIC = ctx(8, "cooking", "Notes on baking", "Bread rises because yeast produces carbon dioxide in warm dough.")
CORPUS = [LORA_1, LORA_2, QLORA_1, QLORA_2, RLHF_1, RLHF_2, DPO_1]

FACTUAL = Intent(type="factual", confidence=0.9, entities=["LoRA"], reformulated_query="What rank does LoRA use by default?")
COMPARE = Intent(type="comparative", confidence=0.9, entities=["LoRA", "QLoRA"], dimensions=["memory", "accuracy"],
                 reformulated_query="Compare LoRA and QLoRA in memory use and accuracy")
MULTI = Intent(type="multi_hop", confidence=0.9, entities=["QLoRA", "LoRA"], constraints={"model_size": "65B"},
               reformulated_query="How does QLoRA build on LoRA to fine-tune a 65B model on a single GPU?")
EXPLORE = Intent(type="exploratory", confidence=0.9, entities=["RLHF", "DPO"],
                 reformulated_query="Trace how alignment methods evolved from RLHF to DPO")


async def answer(kind: str, intent: Intent, contexts=CORPUS, **extra) -> str:
    req = SynthesisRequest(kind=kind, question=intent.reformulated_query, intent=intent, contexts=contexts, **extra)
    return await OfflineBrain(vocabulary=VOCAB).synthesize(req)  # type: ignore[arg-type]


def claim_lines(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if ln.strip() and not ln.startswith(("#", "|---", "| |"))]


def assert_markers_valid(text: str, contexts: list[RetrievedContext]) -> None:
    found = markers(text)
    assert found, text
    assert all(1 <= m <= len(contexts) for m in found), text


async def test_simple_answer_puts_the_direct_answer_first_with_valid_markers() -> None:
    text = await answer("simple", FACTUAL)
    first = text.split("\n\n")[0]
    assert "default rank" in first and "r = 8" in first and first.endswith("[1].")
    assert_markers_valid(text, CORPUS)
    assert all(markers(line) for line in claim_lines(text))


async def test_comparative_answer_is_an_entity_by_dimension_table_then_prose() -> None:
    text = await answer("comparative", COMPARE)
    lines = text.splitlines()
    assert lines[0] == "| | Memory | Accuracy |" and lines[1].startswith("|---")
    rows = {ln.split("|")[1].strip(" *"): ln for ln in lines[2:4]}
    assert set(rows) == {"LoRA", "QLoRA"}
    assert "350 GB" in rows["LoRA"] and "48 GB" in rows["QLoRA"]
    for row in rows.values():
        cells = [c.strip() for c in row.strip("|").split("|")[1:]]
        assert all(markers(c) for c in cells), row
    assert "**Comparison.**" in text
    assert_markers_valid(text, CORPUS)


async def test_comparative_marks_missing_cells_instead_of_inventing_them() -> None:
    text = await answer("comparative", COMPARE, contexts=[LORA_1, LORA_2, QLORA_1])
    qlora_row = next(ln for ln in text.splitlines() if ln.startswith("| **QLoRA**"))
    assert qlora_row.rstrip(" |").endswith("not found in the knowledge base")
    assert "holds no evidence on: QLoRA accuracy" in text


async def test_multi_hop_answer_is_a_numbered_chain_with_a_conclusion() -> None:
    subs = ["What is LoRA and how does it work?", "What does QLoRA add on top of LoRA?",
            "How does QLoRA fine-tune a 65B model on a single GPU?"]
    text = await answer("multi_hop", MULTI, sub_questions=subs)
    steps = [ln for ln in text.splitlines() if re.match(r"^\d+\. ", ln)]
    # the last step is what the conclusion answers: its sentences are said once, there
    assert [s.split("**")[1] for s in steps] == subs[:2]
    assert all(markers(s) for s in steps)
    assert "freezes the pretrained weights" in steps[0]
    conclusion = text.splitlines()[-1]
    assert conclusion.startswith("**Conclusion:**") and markers(conclusion) and "65B" in conclusion
    assert_markers_valid(text, CORPUS)


async def test_exploratory_answer_has_themed_sections_in_chronological_order() -> None:
    text = await answer("exploratory", EXPLORE)
    # the direct answer first: a label line, then one cited line per method, in chronological order
    opener, *_ = text.split("\n\n", 1)
    label, *lines = opener.splitlines()
    assert label == "The methods this covers:"
    names = [re.match(r"- \*\*(.+?):\*\* ", ln).group(1) for ln in lines]
    assert names.index("RLHF") < names.index("DPO")
    assert all(markers(ln) for ln in lines)
    # the sections below keep the order of the lead
    headings = [h for h in re.findall(r"^### (.+)$", text, re.M) if h != "How they compare"]
    assert headings == [n for n in names if n in headings]
    bullets = [ln for ln in text.splitlines() if ln.startswith("- ")]
    assert bullets and all(markers(b) for b in bullets)
    assert_markers_valid(text, CORPUS)


async def test_nothing_relevant_gives_an_honest_no_evidence_answer_without_markers() -> None:
    intent = Intent(type="factual", confidence=0.8, reformulated_query="What is the boiling point of tungsten?")
    for contexts in ([], [OFF_TOPIC, LORA_1]):
        text = await answer("simple", intent, contexts=contexts)
        assert text == "The knowledge base holds no evidence about the boiling point of tungsten."


async def test_prior_facts_trail_without_markers_and_never_contradict_evidence() -> None:
    facts = ["LoRA was introduced by Hu et al. at Microsoft.", "LoRA uses r = 16 as its default rank.",
             "Bread rises because of yeast."]
    # a recalled fact joins only when it answers the question: this one asks who introduced LoRA too
    intent = FACTUAL.model_copy(update={"reformulated_query": "Who introduced LoRA, and what rank does it use by default?"})
    text = await answer("simple", intent, prior_facts=facts)
    last = text.splitlines()[-1]
    assert last == "From earlier sessions: LoRA was introduced by Hu et al. at Microsoft."
    assert not markers(last)


async def test_reflections_change_what_is_selected() -> None:
    intent = Intent(type="factual", confidence=0.9, entities=["QLoRA"], reformulated_query="What is QLoRA?")
    plain = await answer("simple", intent)
    fixed = await answer("simple", intent,
                         reflections=["Missing: QLoRA training speed. Include how fast a training step is."])
    assert "slower" not in plain.split("\n\n")[0] and "slower" in fixed.split("\n\n")[0]


async def test_a_retry_takes_no_names_from_the_critics_faults_or_the_drafts_quoted_words() -> None:
    """The offline critic's feedback without a "Missing:" list only finds fault with the draft, and
    quotes it: a capitalized phrase of an uncited claim ("Corporate Acquisition Pairs") and the
    retry's preamble ("scored 9.4") are no names the answer lacks, so neither the retry's query
    nor the profile of its draft gains one."""
    from core.brains.offline.evidence import profile
    from core.types import CriticVerdict

    brain = OfflineBrain(vocabulary=VOCAB)
    intent = Intent(type="factual", confidence=0.9, entities=["QLoRA"], reformulated_query="What is QLoRA?")
    feedback = "Fix: unsupported claim (uncited): 'In Table 1 (Corporate Acquisition Pairs.'; uncited claim: 'Using Paged Optimizers'."
    verdict = CriticVerdict(passed=False, score=9.4, completeness=1.0, faithfulness=0.67, feedback=feedback)
    plan = await brain.refine(intent.reformulated_query, intent, verdict)
    assert plan.reformulated_query is None
    req = SynthesisRequest(kind="simple", question=intent.reformulated_query, intent=intent, contexts=CORPUS,
                           reflections=[plan.reflection])
    prof, _ = brain._evidence(req)
    assert prof.entities == profile(intent.reformulated_query, intent, vocab=VOCAB).entities == ["QLoRA"]
    assert await answer("simple", intent, reflections=[plan.reflection]) == await answer("simple", intent)
    # a "Missing:" list still names what to look for
    missing = CriticVerdict(passed=False, score=4.0, completeness=0.5, faithfulness=1.0, feedback="Missing: DPO.")
    assert (await brain.refine(intent.reformulated_query, intent, missing)).reformulated_query == "What is QLoRA? (DPO)"


async def test_streaming_to_sync_and_async_sinks_reproduces_the_answer() -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    req = SynthesisRequest(kind="comparative", question=COMPARE.reformulated_query, intent=COMPARE, contexts=CORPUS)
    chunks: list[str] = []
    text = await brain.synthesize(req, chunks.append)
    # every row and every sentence is a piece of its own (at least one per non-empty line)
    assert len(chunks) >= len([ln for ln in text.splitlines() if ln.strip()]) >= 5 and "".join(chunks) == text
    got: list[str] = []

    async def sink(chunk: str) -> None:
        got.append(chunk)

    assert await brain.synthesize(req, sink) == text and "".join(got) == text


@pytest.mark.parametrize("kind,intent", [("simple", FACTUAL), ("comparative", COMPARE), ("multi_hop", MULTI), ("exploratory", EXPLORE)])
async def test_synthesis_is_deterministic_and_passes_its_own_critic(kind: str, intent: Intent) -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    first = await answer(kind, intent)
    assert first == await answer(kind, intent)
    verdict = await brain.critique(intent.reformulated_query, intent, CORPUS, first, [])
    assert verdict.passed, verdict.feedback
    assert verdict.faithfulness == 1.0


async def test_a_question_about_the_papers_here_gets_one_section_per_paper() -> None:
    from core.brains.offline.evidence import profile

    assert profile("How do the document models here handle OCR?", vocab=VOCAB).collection_wide
    assert not profile("How does LoRA handle memory?", vocab=VOCAB).collection_wide
    docs = [ctx(0, "kestrel", "Kestrel: Reading Receipts", "Kestrel reads receipts with an OCR engine and a layout model."),
            ctx(0, "osprey", "Osprey: OCR-free Forms", "Osprey reads forms without OCR, straight from pixels.")]
    q = "How do the document models here handle OCR?"
    intent = Intent(type="exploratory", confidence=1.0, entities=["OCR"], reformulated_query=q)
    text = await answer("exploratory", intent, docs)
    lead = text.split("\n\n")[0].splitlines()
    assert lead == ["The papers here that bear on this:",
                    "- **Kestrel:** Kestrel reads receipts with an OCR engine and a layout model [1].",
                    "- **Osprey:** Osprey reads forms without OCR, straight from pixels [2]."]
    assert "### " not in text  # each paper's one sentence is in the lead: no section repeats it


async def test_a_survey_opens_with_each_papers_best_sentence_and_keeps_the_rest_below() -> None:
    from core.brains.offline import critic
    from core.brains.offline.claims import claims

    docs = [ctx(0, "kestrel", "Kestrel: Reading Receipts",
                "Kestrel reads receipts with an OCR engine and a layout model. The OCR engine of Kestrel "
                "runs on the phone. Kestrel was trained on 40,000 receipts."),
            ctx(0, "osprey", "Osprey: OCR-free Forms",
                "Osprey reads forms without OCR, straight from pixels. Osprey skips OCR errors entirely.")]
    q = "How do the document models here handle OCR?"
    intent = Intent(type="exploratory", confidence=1.0, entities=["OCR"], reformulated_query=q)
    text = await answer("exploratory", intent, docs)
    lead, *rest = text.split("\n\n")
    assert lead.splitlines()[0] == "The papers here that bear on this:"
    assert [ln.split(":**")[0] for ln in lead.splitlines()[1:]] == ["- **Kestrel", "- **Osprey"]
    below = "\n\n".join(rest)
    assert below.startswith("### ") and set(re.findall(r"^### (.+)$", below, re.M)) <= {"Kestrel", "Osprey"}
    for line in lead.splitlines()[1:]:  # a lead sentence is not quoted again below
        assert line.split(":** ", 1)[1] not in below
    # the name a lead line is filed under is no part of its claim, nor of the prose the critic judges
    assert [c.text for c in claims(lead)[0]][0].startswith("Kestrel reads receipts")
    assert "**" not in critic.prose(text) and "Kestrel: Reading" not in critic.prose(text)


async def test_a_comparison_cell_answers_what_is_asked_not_the_introduction() -> None:
    docs = [ctx(0, "kestrel", "Kestrel: Speech Models",
                "We introduce Kestrel, a speech model trained for watches. Kestrel uses a contrastive training objective."),
            ctx(0, "osprey", "Osprey: Vision Models",
                "We introduce Osprey, a vision model trained for phones. Osprey uses a masked reconstruction training objective.")]
    q = "How do Kestrel and Osprey differ in their training objective?"
    intent = Intent(type="comparative", confidence=1.0, entities=["Kestrel", "Osprey"], reformulated_query=q)
    rows = [ln for ln in (await answer("comparative", intent, docs)).splitlines() if ln.startswith("| **")]
    assert "contrastive training objective" in rows[0] and "masked reconstruction" in rows[1]


def test_an_answer_streams_in_sentences_and_lines_losing_nothing() -> None:
    from core.brains.offline.synthesis import pieces

    text = ("LoRA freezes the weights [1]. It adds no latency, e.g. at 3.5 ms [2][3].\n\n"
            "| | Memory |\n|---|---|\n| **LoRA** | 350 GB [1] |\nLast line without a stop")
    got = pieces(text)
    assert "".join(got) == text
    assert got[:2] == ["LoRA freezes the weights [1]. ", "It adds no latency, e.g. at 3.5 ms [2][3].\n\n"]
    assert "| **LoRA** | 350 GB [1] |\n" in got and got[-1] == "Last line without a stop"


async def test_a_paced_offline_answer_waits_between_sentences(monkeypatch) -> None:
    """``pace`` spaces the pieces out (the app's readable stream); 0 sends them back to back."""
    import asyncio

    from core.brains.offline import synthesis

    waits: list[float] = []
    real_sleep = asyncio.sleep

    async def sleep(seconds: float) -> None:
        waits.append(seconds)
        await real_sleep(0)

    monkeypatch.setattr(synthesis.asyncio, "sleep", sleep)
    got: list[str] = []
    await synthesis.stream("One fact [1]. Two facts [2]. Three [3].", got.append, pace=0.4)
    assert got == ["One fact [1]. ", "Two facts [2]. ", "Three [3]."] and waits == [0.4, 0.4]
    waits.clear()
    await synthesis.stream("One fact [1]. Two facts [2].", got.append, pace=0)
    assert waits == []


def test_prior_knowledge_must_be_about_what_the_question_asks() -> None:
    """A remembered fact joins an answer only when it is about the asked-for dimension too."""
    from core.brains.offline.evidence import Profile
    from core.brains.offline.synthesis import PRIOR_PREFIX, prior_line

    prof = Profile(question="Compare LoRA and QLoRA in memory use", entities=["LoRA", "QLoRA"],
                   dimensions=["memory"], key_terms=["lora", "qlora", "memory"])  # as profile() stems them
    off = "The LoRA paper shows that very small ranks such as r = 1 or 2 give competitive results."
    on = "LoRA reduces GPU memory by 3 times compared with full fine-tuning of GPT-3 175B."
    assert prior_line([off], prof, ["QLoRA fits a 65B model in 48 GB."]) == ""
    assert prior_line([off, on], prof, ["QLoRA fits a 65B model in 48 GB."]) == f"{PRIOR_PREFIX} {on}"


def test_a_recalled_fact_that_names_only_the_dimension_does_not_join() -> None:
    """"What dataset does Kestrel use for its sort benchmark?" asks about data (its dimension) and about
    the sort benchmark: "Kestrel is a model for processing large data sets" names the dimension's word and
    nothing else the question asks, so it does not trail the answer (before, the dimension was enough)."""
    from core.brains.offline.evidence import Profile
    from core.brains.offline.synthesis import PRIOR_PREFIX, prior_line

    prof = Profile(question="What dataset does Kestrel use for its sort benchmark?", entities=["Kestrel"],
                   dimensions=["data", "accuracy"], key_terms=["dataset", "kestrel", "sort", "benchmark"])
    chosen = ["Kestrel's sort program reads its input from a cluster of 1,800 machines."]
    vague = "Kestrel is a programming model for processing and generating large data sets."
    apt = "Kestrel's sort benchmark reads ten billion 100-byte records of data."
    assert prior_line([vague], prof, chosen) == ""
    assert prior_line([vague, apt], prof, chosen) == f"{PRIOR_PREFIX} {apt}"
