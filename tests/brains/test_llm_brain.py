"""LLMBrain against the scripted chat model: every Brain method, fallbacks, accounting, streaming."""

from __future__ import annotations

import json

import httpx
import openai
import pytest

from core.brains.base import SynthesisRequest, Turn
from core.brains.llm.brain import LLMBrain
from core.config import Settings
from core.events import LLMCall, Notice
from core.state import CriticVerdict, Intent, RetrievedContext, SufficiencyJudgement
from core.telemetry import capture
from tests.support.scripted_model import ScriptedChatModel, by_purpose

LORA = RetrievedContext(content="LoRA freezes the pretrained weights and trains rank-8 update matrices.",
                        chunk_id="lora-1", doc_id="lora", title="LoRA")
QLORA = RetrievedContext(content="QLoRA backpropagates through a 4-bit NF4 quantized model into LoRA adapters.",
                         chunk_id="qlora-1", doc_id="qlora", title="QLoRA")
INTENT = Intent(type="factual", confidence=0.9, entities=["LoRA"], reformulated_query="LoRA default rank")


def brain(*script, **kw) -> tuple[LLMBrain, ScriptedChatModel]:
    model = ScriptedChatModel(script=list(script), **kw)
    return LLMBrain(model, Settings()), model


@pytest.fixture
def events():
    got: list = []
    with capture(got.append):
        yield got


async def test_classify_uses_tool_call_and_names_the_router(events):
    b, model = brain('{"type": "comparative", "confidence": 0.82}')
    out = await b.classify("Compare LoRA and QLoRA", [])
    assert (out.type, out.confidence, out.router) == ("comparative", 0.82, "llm:scripted")
    assert model.calls[0].tool_names == ["IntentClassification"] and model.calls[0].purpose == "route"
    assert [e.purpose for e in events if isinstance(e, LLMCall)] == ["route"]


async def test_follow_up_without_history_becomes_factual(events):
    b, _ = brain('{"type": "follow_up", "confidence": 0.7}')
    assert (await b.classify("And its memory?", [])).type == "factual"


async def test_malformed_json_is_repaired_without_another_call(events):
    b, model = brain("```json\n{'type': 'multi-hop', 'confidence': '85%',}\n```")
    out = await b.classify("How does QLoRA build on LoRA?", [])
    assert (out.type, out.confidence) == ("multi_hop", 0.85)
    assert len(model.calls) == 1 and not [e for e in events if isinstance(e, Notice)]


async def test_second_try_after_repair_message(events):
    b, model = brain("I think it is about comparing things.", '{"type": "comparative", "confidence": 0.6}')
    out = await b.classify("Compare LoRA and QLoRA", [])
    assert out.type == "comparative" and out.router == "llm:scripted"
    assert [c.purpose for c in model.calls] == ["route", "route.repair"]
    assert "JSON object only" in model.calls[1].text and not model.calls[1].tools


async def test_garbage_twice_falls_back_to_offline_with_notice(events):
    b, model = brain("garbage", "still garbage")
    out = await b.classify("Compare LoRA and QLoRA in memory use", [])
    assert out.router == "rules" and out.type == "comparative"  # the offline router answered
    notices = [e for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and notices[0].level == "warning" and "route" in notices[0].message
    assert len([e for e in events if isinstance(e, LLMCall)]) == 2


async def test_fill_slots_cleans_and_defaults(events):
    b, _ = brain('{"entities": ["LoRA", "lora", "QLoRA"], "dimensions": ["memory use"], "constraints": "none", '
                 '"reformulated_query": ""}')
    out = await b.fill_slots("Compare LoRA and QLoRA memory", "comparative", [], ["LoRA", "QLoRA"])
    assert out.entities == ["LoRA", "QLoRA"] and out.dimensions == ["memory use"]
    assert out.constraints == {} and out.reformulated_query == "Compare LoRA and QLoRA memory"


@pytest.mark.parametrize("reply, problem", [
    ('{"entities": ["list of strings", "dimensions"], "dimensions": ["memory"], "reformulated_query": "LoRA"}',
     "entity 'list of strings'"),
    ('{"entities": ["LoRA", "QLOAR"], "dimensions": ["memory"], "reformulated_query": "LoRA QLoRA"}',
     "entity 'QLOAR'"),
    ('{"entities": ["LoRA", "QLoRA"], "dimensions": ["[\'refinement_level\', 1]"], "reformulated_query": "LoRA"}',
     "is not a plain phrase"),
    ('{"entities": ["LoRA", "QLoRA"], "dimensions": ["memory"], "reformulated_query": "QLoRA 65B memory"}',
     "adds the number 65"),
    ('{"entities": ["LoRA", "QLoRA"], "dimensions": ["memory"], "reformulated_query": "Guanaco chatbot memory"}',
     "adds the name Guanaco"),
])
async def test_slots_that_fail_the_check_fall_back_to_the_offline_slots(events, reply, problem):
    b, _ = brain(reply)
    out = await b.fill_slots("Compare LoRA and QLoRA memory", "comparative", [], ["LoRA", "QLoRA"])
    assert set(out.entities) == {"LoRA", "QLoRA"}  # the offline slot filler's answer
    assert "QLOAR" not in out.reformulated_query and "65" not in out.reformulated_query
    notes = [e.message for e in events if isinstance(e, Notice)]
    assert len(notes) == 1 and "slots failed the check" in notes[0] and problem in notes[0]


async def test_plan_truncates_and_dedupes(events):
    b, model = brain(json.dumps({"sub_questions": ["What is LoRA?", "What is LoRA?", "What is NF4?",
                                                   "What does QLoRA add?", "Extra?"], "reason": "chain"}))
    out = await b.plan("How does QLoRA build on LoRA?", INTENT, executed=[], contexts=[], previous_plan=[],
                       reflections=["cover NF4"], max_steps=3)
    assert out.sub_questions == ["What is LoRA?", "What is NF4?", "What does QLoRA add?"] and out.reason == "chain"
    assert "at most 3 sub-questions" in model.calls[0].text and "cover NF4" in model.calls[0].text


async def test_a_plan_step_with_an_invented_name_falls_back_to_the_offline_planner(events):
    b, model = brain(json.dumps({"sub_questions": ["What is LoRA?", "What is Guanaco?"], "reason": "chain"}))
    out = await b.plan("How does QLoRA build on LoRA?", INTENT, executed=[], contexts=[], previous_plan=[],
                       reflections=[], max_steps=3)
    assert "What is Guanaco?" not in out.sub_questions and out.sub_questions
    notes = [e.message for e in events if e.kind == "notice"]
    assert any("plan failed the check" in n and "Guanaco" in n and "offline brain" in n for n in notes)


async def test_revised_plan_shows_executed_steps_and_evidence(events):
    b, model = brain('{"sub_questions": ["How does NF4 quantize weights?"]}')
    # NF4 is not in the question: the step may name it because the evidence the model saw does
    out = await b.plan("How does QLoRA build on LoRA?", INTENT, executed=["What is LoRA?"], contexts=[LORA, QLORA],
                       previous_plan=["What is LoRA?", "What is X?"], reflections=[], max_steps=4)
    assert out.sub_questions == ["How does NF4 quantize weights?"]
    call = model.calls[0]
    assert call.purpose == "plan.revise" and "What is X?" in call.text and "rank-8" in call.text


async def test_replan_with_nothing_left_synthesizes(events):
    b, _ = brain('{"decision": "Next step", "reason": "on track"}')
    out = await b.replan("q", ["a", "b"], ["a", "b"], [LORA])
    assert out.action == "synthesize" and out.reason == "on track"


async def test_react_step_search_and_finish(events):
    b, model = brain('{"thought": "Need DPO.", "action": "search", "query": "DPO objective"}',
                     '{"thought": "Enough.", "action": "done"}')
    obs = [SufficiencyJudgement(level="partially_sufficient", reason="RLHF only", missing=["DPO"])]
    first = await b.react_step("Trace RLHF to DPO", INTENT, step=2, max_steps=5, queries=["RLHF"], contexts=[LORA],
                               observations=obs, reflections=[])
    assert (first.action, first.query) == ("search", "DPO objective")
    assert "Step 2 of 5" in model.calls[0].text and "missing: DPO" in model.calls[0].text
    second = await b.react_step("Trace RLHF to DPO", INTENT, step=3, max_steps=5, queries=["RLHF", "DPO objective"],
                                contexts=[LORA], observations=obs, reflections=[])
    assert second.action == "finish" and second.query == ""


async def test_judge_sufficiency(events):
    b, model = brain('{"level": "partial", "reason": "QLoRA only", "missing": ["LoRA rank"]}')
    out = await b.judge_sufficiency("Compare", INTENT, [LORA, QLORA], [QLORA])
    assert out.level == "partially_sufficient" and out.missing == ["LoRA rank"]
    assert "latest search:\n[1] QLoRA" in model.calls[0].text


async def test_synthesize_streams_to_async_sink_and_counts_usage(events):
    b, model = brain("LoRA trains rank-8 updates [1]; QLoRA adds NF4 [2].")
    tokens: list[str] = []

    async def sink(t: str) -> None:
        tokens.append(t)

    req = SynthesisRequest(kind="simple", question="What rank?", intent=INTENT, contexts=[LORA, QLORA])
    answer = await b.synthesize(req, sink)
    assert answer == "LoRA trains rank-8 updates [1]; QLoRA adds NF4 [2]." and "".join(tokens) == answer
    assert len(tokens) > 3 and model.calls[0].stream
    call = [e for e in events if isinstance(e, LLMCall)][0]
    assert call.purpose == "synthesis" and call.completion_tokens == len(answer) // 4 and call.prompt_tokens > 50


async def test_synthesize_with_sync_sink_hides_think_blocks(events):
    b, _ = brain("<think>plan the answer</think>LoRA trains rank-8 update matrices [1].")
    tokens: list[str] = []
    req = SynthesisRequest(kind="simple", question="What rank?", intent=INTENT, contexts=[LORA])
    assert await b.synthesize(req, tokens.append) == "LoRA trains rank-8 update matrices [1]."
    assert "plan" not in "".join(tokens)


async def test_synthesize_without_contexts_makes_no_call(events):
    b, model = brain()
    req = SynthesisRequest(kind="simple", question="Boiling point of tungsten?", intent=INTENT, contexts=[])
    answer = await b.synthesize(req)
    assert "knowledge base holds no evidence" in answer and model.calls == []


async def test_synthesize_over_irrelevant_contexts_declines_without_a_call(events):
    """Abstention is the same with either brain: retrieval that does not bear on the question (the
    offline brain finds no relevant sentence) is declined, whatever the model would have written."""
    b, model = brain("Tungsten boils at 5555 C [1].")
    tungsten = Intent(type="factual", confidence=0.9, entities=["tungsten"], reformulated_query="tungsten boiling point")
    req = SynthesisRequest(kind="simple", question="What is the boiling point of tungsten?", intent=tungsten,
                           contexts=[LORA, QLORA])
    answer = await b.synthesize(req)
    assert "knowledge base holds no evidence" in answer and "[1]" not in answer and model.calls == []


async def test_empty_synthesis_falls_back_to_offline(events):
    b, _ = brain("   ")
    req = SynthesisRequest(kind="simple", question="What rank does LoRA use?", intent=INTENT, contexts=[LORA])
    answer = await b.synthesize(req)
    assert "[1]" in answer and any(isinstance(e, Notice) for e in events)


async def test_critique_applies_thresholds_in_code(events):
    # The model says "passed" implicitly with a high score, but faithfulness is under the 0.8 bar.
    b, _ = brain('{"score": 8, "completeness": 0.9, "faithfulness": 0.7, "feedback": "", "issues": []}')
    v = await b.critique("What rank?", INTENT, [LORA], "LoRA uses rank 8 [1].", [])
    assert not v.passed and "faithfulness" in v.feedback
    b2, _ = brain('{"score": 9, "completeness": 0.9, "faithfulness": 0.95}')
    assert (await b2.critique("What rank?", INTENT, [LORA], "LoRA uses rank 8 [1].", [])).passed


async def test_critique_fails_uncited_answers_and_flags_unknown_markers(events):
    b, _ = brain('{"score": 9, "completeness": 1, "faithfulness": 1}', '{"score": 9, "completeness": 1, "faithfulness": 1}')
    v = await b.critique("What rank?", INTENT, [LORA], "LoRA uses rank 8.", [])
    assert not v.passed and any("cites none" in i for i in v.issues)
    v2 = await b.critique("What rank?", INTENT, [LORA], "LoRA uses rank 8 [1][7].", [])
    assert v2.passed and any("7" in i for i in v2.issues)


async def test_critique_custom_thresholds_from_settings(events):
    settings = Settings.model_validate({"agent": {"critic_thresholds": {"pass_score": 9.5}}})
    model = ScriptedChatModel(script=['{"score": 9, "completeness": 1, "faithfulness": 1}'])
    v = await LLMBrain(model, settings).critique("q", INTENT, [LORA], "x [1]", [])
    assert not v.passed and "score >= 9.5" in model.calls[0].text


async def test_refine_uses_critic_queries_when_model_gives_none(events):
    b, model = brain('{"reflection": "Missed the rank.", "extra_queries": [], "reformulated_query": "null"}')
    verdict = CriticVerdict(passed=False, score=4, completeness=0.4, faithfulness=0.9, feedback="say the rank",
                            suggested_queries=["LoRA rank r=8"])
    out = await b.refine("What rank?", INTENT, verdict)
    assert out.reflection == "Missed the rank." and out.extra_queries == ["LoRA rank r=8"]
    assert out.reformulated_query is None and "say the rank" in model.calls[0].text


async def test_extract_facts_strips_markers_and_filters(events):
    b, _ = brain('{"facts": ["LoRA trains rank-8 update matrices [1].", "ok", "LoRA trains rank-8 update matrices"]}')
    facts = await b.extract_facts("What rank?", "LoRA uses rank 8 [1].", [LORA])
    assert facts == ["LoRA trains rank-8 update matrices."]


async def test_extract_facts_skips_abstentions_without_a_call(events):
    b, model = brain()
    assert await b.extract_facts("Tungsten?", "The knowledge base holds no evidence on this question.", []) == []
    assert model.calls == []


async def test_tokens_estimated_when_server_reports_no_usage(events):
    b, _ = brain('{"type": "factual", "confidence": 0.9}', report_usage=False)
    await b.classify("What is LoRA?", [])
    call = next(e for e in events if isinstance(e, LLMCall))
    assert call.prompt_tokens > 20 and call.completion_tokens >= 1 and call.model == "scripted"


async def test_server_without_tool_support_switches_to_json_in_text(events):
    rejected = openai.BadRequestError("tools are not supported", body=None,
                                      response=httpx.Response(400, request=httpx.Request("POST", "http://x/v1")))
    b, model = brain(rejected, '{"type": "exploratory", "confidence": 0.7}', '{"type": "factual", "confidence": 0.9}')
    assert (await b.classify("Trace alignment", [])).type == "exploratory"
    assert (await b.classify("What is LoRA?", [])).type == "factual"
    assert [bool(c.tools) for c in model.calls] == [True, False, False]


async def test_every_method_falls_back_on_garbage(events):
    model = ScriptedChatModel(respond=lambda messages: "¯\\_(ツ)_/¯")
    b = LLMBrain(model, Settings())
    await b.classify("What is LoRA?", [])
    await b.fill_slots("What is LoRA?", "factual", [], ["LoRA"])
    await b.plan("How does QLoRA build on LoRA?", INTENT, executed=[], contexts=[], previous_plan=[], reflections=[],
                 max_steps=3)
    await b.replan("q", ["a"], ["a"], [LORA])
    await b.react_step("q", INTENT, step=1, max_steps=3, queries=[], contexts=[], observations=[], reflections=[])
    await b.judge_sufficiency("q", INTENT, [LORA], [LORA])
    v = await b.critique("What rank does LoRA use?", INTENT, [LORA], "LoRA uses rank-8 updates [1].", [])
    await b.refine("q", INTENT, v)
    await b.extract_facts("What rank?", "LoRA trains rank-8 update matrices [1].", [LORA])
    notices = [e for e in events if isinstance(e, Notice)]
    assert len(notices) == 9 and all(n.level == "warning" for n in notices)
    assert len(model.calls) == 18  # one attempt and one repair per judgement


async def test_history_reaches_router_prompt(events):
    b, model = brain('{"type": "follow_up", "confidence": 0.8}')
    turns = [Turn(question="What is LoRA?", answer="LoRA is low-rank adaptation [1].", entities=["LoRA"])]
    assert (await b.classify("And its memory cost?", turns)).type == "follow_up"
    assert "Conversation history" in model.calls[0].text and "What is LoRA?" in model.calls[0].text


async def test_by_purpose_helper_and_stream_delay_option():
    model = ScriptedChatModel(respond=by_purpose({"route": '{"type": "factual", "confidence": 1}',
                                                  "synthesis": "LoRA trains rank-8 matrices [1]."}), delay=0.001)
    b = LLMBrain(model, Settings())
    assert (await b.classify("q", [])).type == "factual"
    req = SynthesisRequest(kind="simple", question="q", intent=INTENT, contexts=[LORA])
    assert await b.synthesize(req) == "LoRA trains rank-8 matrices [1]."
    assert [c.purpose for c in model.calls] == ["route", "synthesis"]


class RecordingFallback:
    """Answers any Brain method with a marker and records the call as it was made."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple, dict]] = []

    def __getattr__(self, name: str):
        async def answer(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            return f"fallback:{name}"

        return answer


async def test_fallback_gets_the_same_call_for_empty_plans_and_replies(events):
    fallback = RecordingFallback()
    model = ScriptedChatModel(script=['{"sub_questions": [], "reason": "none"}', "  "])
    b = LLMBrain(model, Settings(), fallback=fallback)
    kwargs = dict(executed=[], contexts=[LORA], previous_plan=[], reflections=["r"], max_steps=3)
    assert await b.plan("How does QLoRA build on LoRA?", INTENT, **kwargs) == "fallback:plan"
    request = SynthesisRequest(kind="simple", question="q", intent=INTENT, contexts=[LORA])
    assert await b.synthesize(request, None) == "fallback:synthesize"
    assert fallback.calls == [("plan", ("How does QLoRA build on LoRA?", INTENT), kwargs),
                              ("synthesize", (request, None), {})]
    notices = [e.message for e in events if isinstance(e, Notice)]
    assert len(notices) == 2 and "for plan" in notices[0] and "unusable reply for synthesis" in notices[1]


async def test_an_abstention_is_judged_by_the_offline_rule_not_the_model(events):
    """Qwen2.5-0.5B scored the honest "no evidence" draft for "What is the boiling point of tungsten?" 0/10
    and named a retrieved chunk's title as the missing item; the retry then searched that paper and
    answered from it. An abstention's verdict does not depend on the brain."""
    b, model = brain('{"score": 0, "completeness": 0, "faithfulness": 0, "issues": ["LoRA"]}')
    honest = await b.critique("What is the boiling point of tungsten?", Intent(type="factual", confidence=0.9,
                              entities=["tungsten"]), [LORA], "The knowledge base holds no evidence about the boiling "
                              "point of tungsten.", [])
    assert honest.passed and model.calls == []
    wrong = await b.critique("What rank does LoRA train?", INTENT, [LORA],
                             "The knowledge base holds no evidence to answer this.", [])
    assert not wrong.passed and model.calls == []  # the sources bear on it: the offline rule fails it
