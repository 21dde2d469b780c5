"""Offline planning: multi-hop plans, replan decisions, the ReAct policy and sufficiency judgements."""

from __future__ import annotations

import sys
from pathlib import Path

from core.brains.offline import OfflineBrain
from core.state import Intent, SufficiencyJudgement
from tests.support.vocab import bundled_vocabulary

sys.path.insert(0, str(Path(__file__).parent))
from test_offline_answers import (
    COMPARE, CORPUS, DPO_1, EXPLORE, LORA_1, LORA_2, MULTI, OFF_TOPIC, QLORA_1, QLORA_2, RLHF_1, ctx,
)

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

MULTI_Q = "How does QLoRA build on LoRA to fine-tune a 65B model on a single GPU?"


async def plan(question: str, intent: Intent, **kw):
    args = {"executed": [], "contexts": [], "previous_plan": [], "reflections": [], "max_steps": 4} | kw
    return await OfflineBrain(vocabulary=VOCAB).plan(question, intent, **args)


async def test_multi_hop_demo_plan_follows_the_relation_and_goal() -> None:
    out = await plan(MULTI_Q, MULTI)
    assert out.sub_questions == [
        "What is LoRA and how does it work?",
        "What does QLoRA add on top of LoRA?",
        "How does QLoRA fine-tune a 65B model on a single GPU?",
    ]
    assert "builds on" in out.reason


async def test_plans_are_derived_from_the_question_not_hard_coded() -> None:
    intent = Intent(type="multi_hop", confidence=0.9, entities=["DPO", "RLHF"])
    out = await plan("How does DPO build on RLHF to train without a reward model?", intent)
    assert out.sub_questions == ["What is RLHF and how does it work?", "What does DPO add on top of RLHF?",
                                 "How does DPO train without a reward model?"]
    causal = await plan("Why does PPO lead to unstable RLHF training?", Intent(type="multi_hop", confidence=0.9, entities=["PPO", "RLHF"]))
    assert causal.sub_questions[-1] == "How does PPO lead to RLHF?"


async def test_plan_respects_max_steps_and_adds_missing_items_from_reflections() -> None:
    out = await plan(MULTI_Q, MULTI, reflections=["Missing: NF4 memory."], max_steps=4)
    assert len(out.sub_questions) == 4
    assert any("NF4" in s for s in out.sub_questions)
    assert out.sub_questions[-1].startswith("How does QLoRA fine-tune")
    assert len((await plan(MULTI_Q, MULTI, max_steps=2)).sub_questions) == 2


async def test_replan_rewrites_a_step_that_found_nothing() -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    steps = (await plan(MULTI_Q, MULTI)).sub_questions
    nothing = [OFF_TOPIC.model_copy(update={"query": steps[0]})]
    decision = await brain.replan(MULTI_Q, steps, steps[:1], nothing)
    assert decision.action == "replan" and "nothing relevant" in decision.reason
    new = await plan(MULTI_Q, MULTI, executed=steps[:1], contexts=nothing, previous_plan=steps)
    assert new.sub_questions[0] == steps[0] and new.sub_questions[1] == "LoRA"
    assert new.sub_questions[2:] == steps[1:]
    # the rewrite has no question mark, so a second miss moves on instead of looping
    again = await brain.replan(MULTI_Q, new.sub_questions, new.sub_questions[:2], nothing)
    assert again.action == "next_step"


async def test_replan_next_step_then_synthesize() -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    steps = (await plan(MULTI_Q, MULTI)).sub_questions
    assert (await brain.replan(MULTI_Q, steps, steps[:1], [LORA_1])).action == "next_step"
    assert (await brain.replan(MULTI_Q, steps, steps, [QLORA_1])).action == "synthesize"
    early = await brain.replan(MULTI_Q, steps, steps[:2], [QLORA_1])  # one sentence already answers step 3
    assert early.action == "synthesize" and "covers" in early.reason


async def test_react_explores_facets_without_repeating_and_finishes_when_sufficient() -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    question = "Trace how alignment methods evolved from RLHF to DPO"
    queries: list[str] = []
    observations: list[SufficiencyJudgement] = []
    for step in range(5):
        action = await brain.react_step(question, EXPLORE, step=step, max_steps=5, queries=queries, contexts=[],
                                        observations=observations, reflections=[])
        assert action.action == "search" and action.thought
        queries.append(action.query)
        observations.append(SufficiencyJudgement(level="partially_sufficient", reason="thin", missing=[]))
    assert queries[0] == question
    assert len({q.lower() for q in queries}) == 5
    assert any("RLHF" in q and "InstructGPT" in q for q in queries) and any(q.startswith("DPO") for q in queries)
    stop = await brain.react_step(question, EXPLORE, step=5, max_steps=5, queries=queries, contexts=[],
                                  observations=observations, reflections=[])
    assert stop.action == "finish" and "limit" in stop.thought
    done = await brain.react_step(question, EXPLORE, step=1, max_steps=5, queries=queries[:1], contexts=[],
                                  observations=[SufficiencyJudgement(level="fully_sufficient", reason="ok")], reflections=[])
    assert done.action == "finish"


async def test_react_searches_what_the_judgement_found_missing_first() -> None:
    judgement = SufficiencyJudgement(level="partially_sufficient", reason="no DPO yet", missing=["DPO"])
    action = await OfflineBrain(vocabulary=VOCAB).react_step("Trace how alignment methods evolved from RLHF to DPO", EXPLORE, step=1,
                                             max_steps=5, queries=["Trace how alignment methods evolved from RLHF to DPO"],
                                             contexts=[RLHF_1], observations=[judgement], reflections=[])
    assert action.query == "DPO alignment" and "look for DPO" in action.thought


async def test_sufficiency_levels() -> None:
    brain = OfflineBrain(vocabulary=VOCAB)
    judge = brain.judge_sufficiency
    none = await judge("Compare LoRA and QLoRA in memory use and accuracy", COMPARE, [OFF_TOPIC], [OFF_TOPIC])
    assert none.level == "insufficient" and none.missing == ["LoRA", "QLoRA"]
    part = await judge("Compare LoRA and QLoRA in memory use and accuracy", COMPARE, [LORA_1, LORA_2, QLORA_1], [QLORA_1])
    assert part.level == "partially_sufficient" and part.missing == ["QLoRA accuracy"]
    full = await judge("Compare LoRA and QLoRA in memory use and accuracy", COMPARE, [LORA_1, LORA_2, QLORA_1, QLORA_2], [QLORA_2])
    assert full.level == "fully_sufficient"
    explore = await judge(EXPLORE.reformulated_query, EXPLORE, CORPUS, [DPO_1])
    assert explore.level == "fully_sufficient"


async def test_conflicting_numbers_for_the_same_entity_are_contradictory() -> None:
    other = ctx(9, "blog", "A blog post", "LoRA uses a default rank of 4 in most setups.")
    factual = Intent(type="factual", confidence=0.9, entities=["LoRA"])
    verdict = await OfflineBrain(vocabulary=VOCAB).judge_sufficiency("What rank does LoRA use by default?", factual,
                                                     [LORA_1.model_copy(update={"content": "LoRA uses a default rank of 8."}), other], [other])
    assert verdict.level == "contradictory"
    assert "LoRA default rank: 8 [1] vs 4 [2]" in verdict.reason
    # different values in comparison sentences or for different model sizes are not conflicts
    calm = await OfflineBrain(vocabulary=VOCAB).judge_sufficiency("How much memory does QLoRA need?", MULTI, [QLORA_1, QLORA_2], [])
    assert calm.level != "contradictory"


def test_a_step_pointing_back_is_named_only_by_a_name_tied_to_the_step_before() -> None:
    """"that model" is named from the step before's best evidence sentence, by a name the question does
    not give and that stands by the step's own words ("a distilled variant of Wren"); a new name elsewhere
    in that sentence ("… pre-training (SSVP)") is no answer to the step, so the step stays as written."""
    from core.brains.offline.planner import bridge
    from core.state import RetrievedContext
    from core.vocabulary import DocumentText, build

    kite = RetrievedContext(content="In this paper, we introduce Kite, a distilled variant of Wren that runs on a "
                            "phone, for self-supervised speech pre-training (SSP).", source="/p/kite.md",
                            title="Kite", chunk_id="kite#0", doc_id="kite")
    vocab = build([DocumentText("Kite", 2024, [], [kite.content]), DocumentText("Wren", 2023, [], ["Wren is a model."])])
    q = "Which model is Kite distilled from, and what corpus did that model introduce?"
    assert bridge("what corpus did that model introduce?", "Which model is Kite distilled from", q, [kite], vocab) == \
        "what corpus did Wren introduce?"
    q2 = "Kite says it was inspired by the image masked autoencoder; what ratio does that image method mask?"
    assert bridge("what ratio does that image method mask?", "Kite says it was inspired by the image masked autoencoder",
                  q2, [kite], vocab) is None
    # "that earlier" is no thing pointed at: the noun after it is
    assert bridge("what corpus did that earlier model introduce?", "Which model is Kite distilled from", q, [kite], vocab) == \
        "what corpus did Wren introduce?"
