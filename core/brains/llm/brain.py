"""LLMBrain: the Brain protocol answered by a LangChain chat model (any OpenAI-compatible endpoint).

Each method builds its prompt from :mod:`core.prompts`, asks the model (structured output with a
tolerant parser and one repair request; synthesis streamed token by token) and checks the reply in
code (:mod:`core.brains.llm.checks`: slots and queries against the question, the conversation and
the evidence). A reply that cannot be parsed, or fails its check, never crashes a turn: that one
judgement falls back to the offline brain and a warning :class:`core.events.Notice` says so. An unreachable endpoint raises
:class:`BackendUnavailable` with one line.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel

from core.brains.base import (
    Brain, PlanOutput, ReactAction, RefinePlan, ReplanDecision, RouteDecision, SlotFillingOutput,
    SynthesisRequest, TokenSink, Turn, share_vocabulary,
)
from core.prompts import schemas
from core.prompts.common import context_header
from core.brains.llm.caller import ModelCaller, deliver, clean_answer, prompt_tokens
from core.brains.llm.chat import endpoint_of
from core.budget import price_of
from core.brains.llm.checks import draft_problems, known_text, query_problems, slot_problems
from core.brains.llm.floor import floor_problems
from core.brains.llm.naming import ask_names
from core.config import Settings
from core.events import Notice
from core.vocabulary import Vocabulary
from core.prompts.critic import critic_messages
from core.prompts.facts import facts_messages
from core.prompts.planning import plan_messages, replan_messages
from core.prompts.react import react_messages
from core.prompts.refine import refine_messages
from core.prompts.router import router_messages
from core.prompts.slots import slot_messages
from core.prompts.sufficiency import sufficiency_messages
from core.prompts.synthesis import NO_EVIDENCE, synthesis_messages
from core.scope import Topic
from core.types import CriticVerdict, Intent, IntentType, RetrievedContext, SufficiencyJudgement
from core.telemetry import emit

MARKER_RE = re.compile(r"\[(\d+)\]")
NO_EVIDENCE_RE = re.compile(r"knowledge base (?:holds|has|contains) no evidence|no evidence in the knowledge base", re.I)
MAX_FACTS = 3

T = TypeVar("T")
Method = TypeVar("Method", bound=Callable[..., Awaitable[Any]])


class Unusable(Exception):
    """The model's reply gave nothing usable for one judgement (after one repair request)."""


class Rejected(Unusable):
    """The model's reply parsed but failed a check (:mod:`core.brains.llm.checks`)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


def checked(out: T, problems: list[str]) -> T:
    """``out`` itself; :class:`Rejected` when a check found problems."""
    if problems:
        raise Rejected(problems)
    return out


def usable(out: T | None) -> T:
    """``out`` itself; :class:`Unusable` when the model gave nothing."""
    if out is None or (isinstance(out, (str, list)) and not out):
        raise Unusable
    return out


def falls_back(purpose: str) -> Callable[[Method], Method]:
    """On :class:`Unusable`, warn once and let the offline brain answer the same call."""

    def wrap(method: Method) -> Method:
        @functools.wraps(method)
        async def run(self: LLMBrain, *args: Any, **kwargs: Any) -> Any:
            try:
                return await method(self, *args, **kwargs)
            except Rejected as exc:
                self._rejected(purpose, exc.problems)
                return await getattr(self.fallback, method.__name__)(*args, **kwargs)
            except Unusable:
                self._fell_back(purpose)
                return await getattr(self.fallback, method.__name__)(*args, **kwargs)

        return run  # type: ignore[return-value]

    return wrap


def _model_name(model: Any, settings: Settings) -> str:
    name = settings.llm.model
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            name = value
            break
    # A local model given as a path shows as its folder or file name.
    return Path(name).name if ("/" in name and Path(name).expanduser().exists()) else name


def _dedupe(items: list[str]) -> list[str]:
    seen: dict[str, str] = {}
    for item in items:
        text = " ".join(str(item).split()).strip(" -•")
        if text and text.lower() not in seen:
            seen[text.lower()] = text
    return list(seen.values())


class LLMBrain:
    """Implements :class:`core.brains.base.Brain` with a chat model; ``name`` is ``llm:<model>``."""

    def __init__(self, model: BaseChatModel, settings: Settings, *, name: str | None = None,
                 fallback: Brain | None = None) -> None:
        self.settings = settings
        self.model_name = _model_name(model, settings)
        self.name = name or f"llm:{self.model_name}"
        base_url = getattr(model, "openai_api_base", None) or endpoint_of(settings)
        self.caller = ModelCaller(model, model_name=self.model_name, base_url=base_url,
                                  retries=settings.llm.retries, timeout=settings.llm.timeout,
                                  price=price_of(settings.llm.pricing, self.model_name))
        self._fallback = fallback
        self._vocabulary: Vocabulary | None = None

    @property
    def fallback(self) -> Brain:
        """The offline brain, answering any single judgement the model's reply could not give."""
        if self._fallback is None:
            from core.brains.offline.brain import OfflineBrain

            self._fallback = OfflineBrain(self.settings, vocabulary=self._vocabulary)
        return self._fallback

    def use_vocabulary(self, vocabulary: Vocabulary) -> None:
        """The collection's vocabulary, for the offline brain this one falls back on."""
        self._vocabulary = vocabulary
        if self._fallback is not None:
            share_vocabulary(self._fallback, vocabulary)

    def _fell_back(self, purpose: str) -> None:
        emit(Notice(level="warning", source=self.name,
                    message=f"{self.name}: unusable reply for {purpose} (after one repair request); "
                            f"used the offline brain for this step"))

    def _rejected(self, purpose: str, problems: list[str]) -> None:
        more = f" (+{len(problems) - 2} more)" if len(problems) > 2 else ""
        emit(Notice(level="warning", source=self.name,
                    message=f"{self.name}: {purpose} failed the check: {'; '.join(problems[:2])}{more}; "
                            f"used the offline brain for this step"))

    def _fit(self, purpose: str, contexts: list[RetrievedContext],
             build: Callable[[list[RetrievedContext]], list[Any]]) -> list[Any]:
        """The prompt ``build(contexts)``, with the lowest-ranked chunks left out until it fits
        ``llm.context_tokens`` with room for the reply (a notice says how many were cut)."""
        messages = build(contexts)
        budget = (self.settings.llm.context_tokens or 0) - self.settings.llm.max_tokens
        if budget <= 0 or prompt_tokens(messages) <= budget:
            return messages
        kept = list(contexts)
        while len(kept) > 1 and prompt_tokens(messages) > budget:
            kept.pop()
            messages = build(kept)
        emit(Notice(level="warning", source=self.name,
                    message=f"{purpose} prompt cut to fit llm.context_tokens={self.settings.llm.context_tokens}: "
                            f"{len(contexts) - len(kept)} of {len(contexts)} lowest-ranked chunks left out"))
        return messages

    # -- routing and slots ------------------------------------------------------------------
    @falls_back("route")
    async def classify(self, question: str, history: list[Turn]) -> RouteDecision:
        out = usable(await self.caller.structured(schemas.IntentClassification, router_messages(question, history),
                                                  "route"))
        intent = out.type if (out.type != "follow_up" or history) else "factual"
        return RouteDecision(type=intent, confidence=out.confidence, router=self.name,
                             scores={intent: round(out.confidence, 4)})

    @falls_back("slots")
    async def fill_slots(self, question: str, intent_type: IntentType, history: list[Turn],
                         vocabulary: list[str]) -> SlotFillingOutput:
        out = usable(await self.caller.structured(
            schemas.Slots, slot_messages(question, intent_type, history, vocabulary), "slots"))
        slots = SlotFillingOutput(
            entities=_dedupe(out.entities), dimensions=_dedupe(out.dimensions), constraints=out.constraints,
            reformulated_query=" ".join(out.reformulated_query.split()) or question,
        )
        return checked(slots, slot_problems(slots, question, history, vocabulary))

    # -- Plan-and-Execute ---------------------------------------------------------------------
    @falls_back("plan")
    async def plan(self, question: str, intent: Intent, *, executed: list[str], contexts: list[RetrievedContext],
                   previous_plan: list[str], reflections: list[str], max_steps: int) -> PlanOutput:
        messages = plan_messages(question, intent, executed=executed, contexts=contexts,
                                 previous_plan=previous_plan, reflections=reflections, max_steps=max_steps)
        out = usable(await self.caller.structured(schemas.Plan, messages, "plan.revise" if previous_plan else "plan"))
        steps = usable(_dedupe(out.sub_questions)[:max_steps])
        known = known_text(question, [], *executed, *reflections, *(c.content for c in contexts),
                           *(intent.entities or []))
        checked(steps, [p for step in steps for p in query_problems(step, known)])
        return PlanOutput(sub_questions=steps, reason=out.reason)

    @falls_back("replan decision")
    async def replan(self, question: str, plan: list[str], executed: list[str],
                     latest: list[RetrievedContext]) -> ReplanDecision:
        out = usable(await self.caller.structured(schemas.Replan, replan_messages(question, plan, executed, latest),
                                                  "replan"))
        action = out.action
        if action == "next_step" and len(executed) >= len(plan):
            action = "synthesize"
        return ReplanDecision(action=action, reason=out.reason)

    # -- ReAct ----------------------------------------------------------------------------------
    @falls_back("ReAct step")
    async def react_step(self, question: str, intent: Intent, *, step: int, max_steps: int, queries: list[str],
                         contexts: list[RetrievedContext], observations: list[SufficiencyJudgement],
                         reflections: list[str]) -> ReactAction:
        messages = react_messages(question, intent, step=step, max_steps=max_steps, queries=queries,
                                  contexts=contexts, observations=observations, reflections=reflections)
        out = usable(await self.caller.structured(schemas.ReactChoice, messages, "react"))
        query = " ".join(out.query.split())
        if out.action == "search" and not query:
            query = "" if queries else (intent.reformulated_query or question)
        action = "search" if out.action == "search" and query else "finish"
        if action == "search":
            known = known_text(question, [], *queries, *(c.content for c in contexts), *(intent.entities or []))
            checked(query, query_problems(query, known))
        return ReactAction(thought=out.thought.strip() or f"Next: {action}", action=action,
                           query=query if action == "search" else "")

    @falls_back("sufficiency")
    async def judge_sufficiency(self, question: str, intent: Intent, contexts: list[RetrievedContext],
                                new: list[RetrievedContext]) -> SufficiencyJudgement:
        out = usable(await self.caller.structured(
            schemas.Sufficiency, sufficiency_messages(question, intent, contexts, new), "sufficiency"))
        return SufficiencyJudgement(level=out.level, reason=out.reason, missing=_dedupe(out.missing))

    # -- synthesis ------------------------------------------------------------------------------
    @falls_back("synthesis")
    async def synthesize(self, request: SynthesisRequest, on_token: TokenSink | None = None) -> str:
        has_evidence = getattr(self.fallback, "has_evidence", None)
        if inspect.iscoroutinefunction(has_evidence):  # not the offline brain's synchronous rule
            has_evidence = None
        if not request.contexts or (has_evidence is not None and not has_evidence(request)):
            # Nothing retrieved bears on the question (the offline brain's rule, so abstention does
            # not depend on the brain): there is nothing to cite, and no model call can do better.
            await deliver(on_token, NO_EVIDENCE)
            return NO_EVIDENCE
        messages = self._fit("synthesis", request.contexts,
                             lambda kept: synthesis_messages(request.model_copy(update={"contexts": kept})))
        draft = usable(clean_answer(await self.caller.stream(messages, "synthesis", on_token)))
        # A weak model's draft that is not an answer (markers only, its own instructions or plan
        # echoed, junk past the reply budget), or that falls below the offline draft of the same
        # evidence (core.brains.llm.floor), is replaced by the offline brain's draft for this turn.
        instructions = " ".join(str(m.content) for m in messages if getattr(m, "type", "") == "system")
        headers = [context_header(n, c) for n, c in enumerate(request.contexts, 1)]
        checked(draft, draft_problems(draft, instructions, request.sub_questions, self.settings.llm.max_tokens,
                                      headers))
        compose = getattr(self.fallback, "compose", None)
        if callable(compose) and not inspect.iscoroutinefunction(compose):  # the offline brain's
            floor = floor_problems(request, draft, compose(request))
            checked(draft, [f"below the floor: {p}" for p in floor])
        return draft

    # -- critic and Reflexion -------------------------------------------------------------------
    @falls_back("critic")
    async def critique(self, question: str, intent: Intent, contexts: list[RetrievedContext], answer: str,
                       sub_questions: list[str]) -> CriticVerdict:
        if NO_EVIDENCE_RE.search(answer) and not MARKER_RE.search(answer):
            # An abstention is judged as it was made, whatever the brain: by the offline rule (an
            # honest one passes; one over sources that bear on the question fails, naming them). A weak
            # model failed every abstention and named a stray context's title as the missing item,
            # so the retry searched that paper and answered the question from it.
            return await self.fallback.critique(question, intent, contexts, answer, sub_questions)
        thresholds = self.settings.agent.critic_thresholds
        messages = self._fit("critic", contexts,
                             lambda kept: critic_messages(question, intent, kept, answer, sub_questions, thresholds))
        out = usable(await self.caller.structured(schemas.Critique, messages, "critic"))
        return apply_thresholds(out, answer, contexts, thresholds)

    @falls_back("refine")
    async def refine(self, question: str, intent: Intent, verdict: CriticVerdict) -> RefinePlan:
        out = usable(await self.caller.structured(schemas.Refinement, refine_messages(question, intent, verdict),
                                                  "refine"))
        queries = _dedupe(out.extra_queries) or _dedupe(verdict.suggested_queries)
        queries = [q for q in queries if q.lower() != question.lower()][:3]
        reformulated = " ".join((out.reformulated_query or "").split()) or None
        if reformulated and reformulated.lower() in ("null", "none", question.lower()):
            reformulated = None
        known = known_text(question, [], verdict.feedback, *verdict.issues, *verdict.suggested_queries,
                           *(intent.entities or []))
        checked(queries, [p for q in [*queries, reformulated or ""] for p in query_problems(q, known)])
        return RefinePlan(reflection=out.reflection.strip() or verdict.feedback, extra_queries=queries,
                          reformulated_query=reformulated)

    @falls_back("fact extraction")
    async def extract_facts(self, question: str, answer: str, contexts: list[RetrievedContext]) -> list[str]:
        if not answer.strip() or (NO_EVIDENCE_RE.search(answer) and not MARKER_RE.search(answer)):
            return []  # an abstention teaches nothing worth remembering
        out = usable(await self.caller.structured(
            schemas.Facts, facts_messages(question, answer, contexts, MAX_FACTS), "facts"))
        facts = []
        for fact in out.facts:
            fact = re.sub(r"\s+([.,;:])", r"\1", " ".join(MARKER_RE.sub("", fact).split())).strip()
            if len(fact.split()) >= 4 and not NO_EVIDENCE_RE.search(fact):
                facts.append(fact if fact.endswith((".", "!", "?", "。")) else fact + ".")
        return _dedupe(facts)[:MAX_FACTS]

    # -- naming the hub's topics ------------------------------------------------------------------
    async def name_topics(self, topics: list[Topic]) -> dict[str, str]:
        """One request names every topic; a name that fails its check keeps the keyphrase label."""
        return await ask_names(self.caller, topics, self.name)


def apply_thresholds(out: schemas.Critique, answer: str, contexts: list[RetrievedContext],
                     thresholds: Any) -> CriticVerdict:
    """The verdict with the pass rule applied in code (the prompt states it too) plus citation checks."""
    issues = _dedupe(out.issues)
    cited = {int(n) for n in MARKER_RE.findall(answer)}
    unknown = sorted(n for n in cited if n < 1 or n > len(contexts))
    abstains = bool(NO_EVIDENCE_RE.search(answer))
    citations_ok = True
    if contexts and not cited and not abstains:
        issues.append("the answer cites none of the contexts; every claim needs an [n] citation")
        citations_ok = False
    if unknown:
        issues.append(f"cites context number(s) {', '.join(map(str, unknown))} that do not exist (1..{len(contexts)})")
    if not out.citations_ok and not any("citation" in i.lower() for i in issues):
        issues.append("some claims lack a supporting [n] citation")
    passed = (out.score >= thresholds.pass_score and out.faithfulness >= thresholds.min_faithfulness
              and out.completeness >= thresholds.min_completeness and citations_ok)
    feedback = out.feedback.strip()
    if not passed and not feedback:
        feedback = "; ".join(issues) or (
            f"score {out.score:.1f} below the bar (needs score ≥ {thresholds.pass_score}, faithfulness ≥ "
            f"{thresholds.min_faithfulness}, completeness ≥ {thresholds.min_completeness})")
    return CriticVerdict(passed=passed, score=out.score, completeness=out.completeness,
                         faithfulness=out.faithfulness, feedback=feedback, issues=issues,
                         suggested_queries=_dedupe(out.suggested_queries)[:3])
