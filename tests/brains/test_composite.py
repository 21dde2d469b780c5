"""CompositeBrain delegation and notices; LazyPart fallbacks; build_brain picks the right brains."""

from __future__ import annotations

import pytest

from core.brains.base import BackendUnavailable, RouteDecision, SynthesisRequest
from core.brains.cascade import RulesFirst
from core.brains.composite import CompositeBrain, LazyPart
from core.brains.factory import build_brain
from core.brains.llm.brain import LLMBrain
from core.brains.offline.brain import OfflineBrain
from core.config import Settings
from core.events import Notice
from core.state import Intent, RetrievedContext
from core.telemetry import capture
from tests.support.scripted_model import ScriptedChatModel, by_purpose
from tests.support.vocab import bundled_vocabulary

VOCAB = bundled_vocabulary()  # the bundled collection's names, as a turn over it has them

CTX = [RetrievedContext(content="LoRA freezes the pretrained weights and trains rank-8 matrices.", chunk_id="c1",
                        title="LoRA")]
INTENT = Intent(type="factual", confidence=1.0, entities=["LoRA"], reformulated_query="LoRA rank")


class FixedRouter:
    """A real object with only ``classify`` (what a router part needs)."""

    name = "fixed-router"

    def __init__(self) -> None:
        self.seen: list[str] = []

    async def classify(self, question, history):
        self.seen.append(question)
        return RouteDecision(type="exploratory", confidence=0.66, router=self.name)


class BrokenRouter:
    name = "broken"

    async def classify(self, question, history):
        raise RuntimeError("CUDA out of memory\nlong traceback here")


def llm(replies: dict) -> tuple[LLMBrain, ScriptedChatModel]:
    model = ScriptedChatModel(respond=by_purpose(replies))
    return LLMBrain(model, Settings()), model


async def test_parts_answer_their_methods_and_default_the_rest():
    router = FixedRouter()
    brain_llm, model = llm({"synthesis": "LoRA trains rank-8 matrices [1]."})
    composite = CompositeBrain({"classify": router}, brain_llm)
    assert (await composite.classify("Trace alignment", [])).router == "fixed-router"
    answer = await composite.synthesize(SynthesisRequest(kind="simple", question="q", intent=INTENT, contexts=CTX))
    assert answer == "LoRA trains rank-8 matrices [1]." and router.seen == ["Trace alignment"]
    assert [c.purpose for c in model.calls] == ["synthesis"]
    assert composite.name == "fixed-router + llm:scripted"


async def test_name_lists_roles_and_notices_are_emitted_once():
    offline = OfflineBrain(Settings(), vocabulary=VOCAB)
    brain_llm, _ = llm({"route": '{"type": "factual", "confidence": 0.9}'})
    composite = CompositeBrain({"critique": offline, "refine": offline}, brain_llm,
                               notices=[("info", "LoRA router not available (no adapter); using the llm router")])
    assert composite.name == "offline (critic, refine) + llm:scripted"
    events: list = []
    with capture(events.append):
        await composite.classify("What is LoRA?", [])
        await composite.classify("What is QLoRA?", [])
    notices = [e for e in events if isinstance(e, Notice)]
    assert len(notices) == 1 and "LoRA router not available" in notices[0].message
    verdict = await composite.critique("What rank?", INTENT, CTX, "LoRA trains rank-8 matrices [1].", [])
    assert verdict.score >= 0  # answered by the offline critic, no model call scripted for it


def test_bad_parts_are_rejected():
    offline = OfflineBrain(Settings(), vocabulary=VOCAB)
    with pytest.raises(ValueError, match="classiffy"):
        CompositeBrain({"classiffy": offline}, offline)
    with pytest.raises(TypeError, match="critique"):
        CompositeBrain({"critique": FixedRouter()}, offline)


async def test_lazy_part_loads_once_in_a_thread():
    loads: list[int] = []

    def loader():
        loads.append(1)
        return FixedRouter()

    part = LazyPart("lora-router", loader, OfflineBrain(Settings(), vocabulary=VOCAB), what="LoRA router")
    assert part.name == "lora-router"
    assert (await part.classify("a", [])).type == "exploratory"
    assert (await part.classify("b", [])).type == "exploratory"
    assert loads == [1] and part.name == "fixed-router"


async def test_lazy_part_falls_back_when_loading_or_inference_fails():
    events: list = []

    def missing():
        raise FileNotFoundError("no router adapter at /nowhere")

    with capture(events.append):
        part = LazyPart("lora-router", missing, OfflineBrain(Settings(), vocabulary=VOCAB), what="LoRA router")
        out = await part.classify("Compare LoRA and QLoRA", [])
        broken = LazyPart("lora-router", BrokenRouter, OfflineBrain(Settings(), vocabulary=VOCAB), what="LoRA router")
        out2 = await broken.classify("Compare LoRA and QLoRA", [])
    assert out.router == "rules" and out2.router == "rules" and part.name == "offline"
    messages = [e.message for e in events if isinstance(e, Notice)]
    assert messages == ["LoRA router could not be loaded (no router adapter at /nowhere); using offline instead",
                        "LoRA router failed (CUDA out of memory); using offline instead"]


def _settings(**sections) -> Settings:
    return Settings.model_validate(sections)


def test_factory_offline_default():
    brain = build_brain(_settings(llm={"provider": "offline"}, agent={"router": "rules"}))
    assert isinstance(brain, OfflineBrain) and brain.name == "offline"


def test_factory_offline_auto_router_without_adapter_notes_the_fallback(tmp_path):
    brain = build_brain(_settings(llm={"provider": "offline"}, agent={"router": "auto", "router_model": str(tmp_path)}))
    assert isinstance(brain, CompositeBrain) and brain.name == "offline" and not brain.parts
    level, message = brain.notices[0]
    assert level == "info" and "LoRA router not available" in message and "rule router" in message


def test_factory_openai_router_and_critic_choices(tmp_path):
    base = {"provider": "openai", "base_url": "http://127.0.0.1:9/v1"}
    every = {"router": "llm", "slots": "llm", "replan": "llm", "critic": "llm", "facts": "llm"}
    plain = build_brain(_settings(llm=base, agent=every))
    assert isinstance(plain, LLMBrain) and plain.name == "llm:gpt-4o-mini"

    mixed = build_brain(_settings(llm=base, agent={**every, "router": "rules", "critic": "rules"}))
    assert isinstance(mixed, CompositeBrain) and isinstance(mixed.default, LLMBrain)
    assert isinstance(mixed.brain_for("classify"), OfflineBrain) and isinstance(mixed.brain_for("critique"), OfflineBrain)
    assert isinstance(mixed.brain_for("synthesize"), LLMBrain)
    assert mixed.name == "offline (router, critic) + llm:gpt-4o-mini"

    auto = build_brain(_settings(llm=base, agent={"router": "lora", "router_model": str(tmp_path)}))
    assert isinstance(auto.brain_for("classify"), OfflineBrain)  # no adapter: the rule router, never a call
    assert auto.notices[0][0] == "warning" and "using the rule router" in auto.notices[0][1]


def test_factory_default_call_plan_gives_the_llm_only_planning_synthesis_and_the_undecided():
    brain = build_brain(_settings(llm={"provider": "openai", "base_url": "http://127.0.0.1:9/v1"},
                                  agent={"router": "rules"}))
    assert isinstance(brain.brain_for("classify"), OfflineBrain)
    assert isinstance(brain.brain_for("extract_facts"), OfflineBrain)
    first = brain.brain_for("fill_slots")
    assert isinstance(first, RulesFirst) and brain.brain_for("critique") is first and brain.brain_for("replan") is first
    assert all(isinstance(brain.brain_for(m), LLMBrain) for m in ("plan", "synthesize", "refine", "react_step"))
    assert brain.name == "offline (router, facts) + rules-first (slots, replan, critic) + llm:gpt-4o-mini"


def test_factory_uses_lazy_lora_router_when_adapter_present(tmp_path):
    (tmp_path / "adapter_config.json").write_text("{}")
    (tmp_path / "label_map.json").write_text('{"labels": ["factual", "comparative", "multi_hop", "exploratory", '
                                             '"follow_up"], "base": "minilm"}')
    brain = build_brain(_settings(llm={"provider": "openai", "base_url": "http://127.0.0.1:9/v1"},
                                  agent={"router": "auto", "router_model": str(tmp_path)}))
    part = brain.brain_for("classify")
    assert isinstance(part, LazyPart)
    assert brain.name == "lora-router + rules-first (slots, replan, critic) + offline (facts) + llm:gpt-4o-mini"
    assert part.impl is None  # nothing loaded (no torch) until the first question


def test_factory_transformers_provider_without_local_model_is_backend_error(tmp_path):
    with pytest.raises(BackendUnavailable) as err:
        build_brain(_settings(llm={"provider": "transformers", "model": str(tmp_path / "missing")}))
    assert "\n" not in str(err.value)


def test_factory_local_critic_choice_is_tolerated(tmp_path):
    brain = build_brain(_settings(llm={"provider": "offline"}, agent={"router": "rules", "critic": "local"}))
    assert isinstance(brain, CompositeBrain)
    assert brain.notices or isinstance(brain.brain_for("critique"), LazyPart)
