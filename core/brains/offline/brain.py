"""OfflineBrain: the embedded, deterministic default brain (no network, no model, no GPU).

Each method delegates to a small rule module: ``router`` (intent + confidence), ``slots``
(entities, dimensions, constraints, follow-up rewriting), ``planner`` (plans, replans, ReAct),
``sufficiency`` (ADR-003 levels), ``synthesis``/``compose`` (extractive cited answers) and
``critic`` (coverage + support). All methods are pure functions of their inputs and of the
collection's vocabulary the brain was given (:meth:`OfflineBrain.use_vocabulary`), which each rule
module receives as an argument.
"""

from __future__ import annotations

from typing import Any

import re

from core.brains.base import (
    PlanOutput, ReactAction, RefinePlan, ReplanDecision, RouteDecision, SlotFillingOutput,
    SynthesisRequest, TokenSink, Turn,
)
from core.brains.offline import comparison, compose, critic, diff, planner, router, slots, sufficiency
from core.brains.offline.evidence import profile, relevant_indexes, row_sentences, sentence_pool
from core.brains.offline.synthesis import (
    NO_EVIDENCE_RE, missing_from_reflections, no_evidence_answer, prior_line, stream,
)
from core.brains.offline.form import answer_form, shaped
from core.brains.offline.text import markers, plain_text, strip_markers, term_set
from core.config import CriticSettings, Settings
from core.scope import Topic
from core.types import CriticVerdict, Intent, IntentType, RetrievedContext, SufficiencyJudgement
from core.vocabulary import Vocabulary


class OfflineBrain:
    """Rule-based implementation of :class:`core.brains.base.Brain`."""

    name = "offline"

    def __init__(self, settings: Settings | None = None, *, pace: float = 0.0,
                 vocabulary: Vocabulary | None = None) -> None:
        self.thresholds: CriticSettings = settings.agent.critic_thresholds if settings else CriticSettings()
        self.pace = pace  # seconds between streamed sentences (the app's ``tui.answer_pace``); 0 = at once
        self.vocabulary = vocabulary or Vocabulary()

    def use_vocabulary(self, vocabulary: Vocabulary) -> None:
        """Match names against ``vocabulary`` (the collection's terms) from now on; the agent calls it
        whenever its collection's vocabulary changes."""
        self.vocabulary = vocabulary

    async def classify(self, question: str, history: list[Turn]) -> RouteDecision:
        intent, confidence, probs, _ = router.classify(question, bool(history), self.vocabulary)
        return RouteDecision(type=intent, confidence=confidence, router="rules", scores=probs)

    async def fill_slots(self, question: str, intent_type: IntentType, history: list[Turn], vocabulary: list[str]) -> SlotFillingOutput:
        return SlotFillingOutput(**slots.fill(question, intent_type, history, vocabulary, self.vocabulary))

    async def plan(self, question: str, intent: Intent, *, executed: list[str], contexts: list[RetrievedContext],
                   previous_plan: list[str], reflections: list[str], max_steps: int) -> PlanOutput:
        vocab = self.vocabulary
        steps, reason = planner.make_plan(question, intent, reflections, executed, max_steps, vocab)
        if previous_plan and executed:
            # Replanning: keep what ran, rewrite the failed step as a broader keyword query.
            last = executed[-1]
            latest = [c for c in contexts if c.query == last]
            if not latest or not relevant_indexes(latest, profile(last, vocab=vocab)):
                rewrite = planner.keyword_rewrite(last, question, vocab)
                rest = [s for s in previous_plan if s not in executed]
                steps = list(executed) + [rewrite] + rest
                steps = steps[: max(max_steps, len(executed) + 1)]
                reason = f"step '{last}' found nothing relevant; retrying it as '{rewrite}'"
            else:
                # the next step points back at what this one found ("that model"): ask it about that
                rest = [s for s in previous_plan if s not in executed]
                named = planner.bridge(rest[0], last, question, latest, vocab) if rest else None
                if named is not None:
                    steps = list(executed) + [named] + rest[1:]
                    reason = f"step '{rest[0]}' points back at what step '{last}' found: asking '{named}'"
        return PlanOutput(sub_questions=steps, reason=reason)

    async def replan(self, question: str, plan: list[str], executed: list[str], latest: list[RetrievedContext]) -> ReplanDecision:
        action, reason = planner.decide_replan(question, plan, executed, latest, self.vocabulary)
        return ReplanDecision(action=action, reason=reason)  # type: ignore[arg-type]

    async def react_step(self, question: str, intent: Intent, *, step: int, max_steps: int, queries: list[str],
                         contexts: list[RetrievedContext], observations: list[SufficiencyJudgement],
                         reflections: list[str]) -> ReactAction:
        last = observations[-1] if observations else None
        if last is not None and last.level == "fully_sufficient":
            return ReactAction(thought=f"Evidence is fully sufficient ({last.reason}); answering.", action="finish")
        if step >= max_steps:
            return ReactAction(thought=f"Reached the step limit ({max_steps}); answering with what was found, which may be incomplete.", action="finish")
        used = {planner.norm_query(q) for q in queries}
        for query, why in planner.react_candidates(question, intent, observations, reflections, self.vocabulary):
            key = planner.norm_query(query)
            if key and key not in used:
                state = f"Evidence is {last.level.replace('_', ' ')}: {last.reason}. " if last else ""
                return ReactAction(thought=f"Step {step + 1}/{max_steps}. {state}Next I {why}: search '{query}'.", action="search", query=query)
        return ReactAction(thought="Every facet has been searched; answering with the evidence gathered.", action="finish")

    async def judge_sufficiency(self, question: str, intent: Intent, contexts: list[RetrievedContext], new: list[RetrievedContext]) -> SufficiencyJudgement:
        return sufficiency.judge(question, intent, contexts, new, self.vocabulary)

    async def synthesize(self, request: SynthesisRequest, on_token: TokenSink | None = None) -> str:
        text = self.compose(request)
        await stream(text, on_token, self.pace)
        return text

    def _evidence(self, request: SynthesisRequest) -> tuple[Any, list]:
        """The question's profile and the pool of retrieved sentences relevant to it."""
        vocab = self.vocabulary
        m_ents, m_dims, feedback = missing_from_reflections(request.reflections, vocab)
        prof = profile(request.question, request.intent, vocab=vocab, extra=feedback if request.reflections else "")
        prof.entities += [e for e in m_ents if e not in prof.entities and request.intent.type != "comparative"]
        prof.dimensions += [d for d in m_dims if d not in prof.dimensions]
        if request.intent.type == "comparative":
            prof.entities += [e for e in m_ents if e not in prof.entities and len(prof.entities) < 4]
        steps = request.sub_questions if request.kind == "multi_hop" else None
        pool = sentence_pool(request.contexts, prof, steps=steps)
        if not pool and request.contexts and critic.evidence_gate(request.question, request.intent, request.contexts,
                                                                             vocab=vocab):
            # no chunk is lexically on topic, yet the best retrieved sentence passes the critic's verdict
            pool = sentence_pool(request.contexts, prof, only_relevant=False)
        return prof, pool

    def has_evidence(self, request: SynthesisRequest) -> bool:
        """Whether any retrieved sentence bears on the question: the abstention rule, shared with
        the LLM brain so that irrelevant retrieval is declined whichever brain writes."""
        return bool(request.contexts) and bool(self._evidence(request)[1])

    def compose(self, request: SynthesisRequest) -> str:
        """The answer text for a request (synchronous core of :meth:`synthesize`)."""
        if request.kind == "comparative" and (changes := diff.version_diff(request)) is not None:
            return changes  # two versions of one document: a sentence diff
        prof, pool = self._evidence(request)
        if not pool:
            return no_evidence_answer(request.intent.reformulated_query or request.question)
        kind = request.kind
        subs = (request.sub_questions or planner.make_plan(request.question, request.intent, [], [], 4, self.vocabulary)[0]
                ) if kind == "multi_hop" else []
        if kind == "multi_hop" and len(compose.shown_steps(subs, request.question)) <= 1:
            kind = "simple"  # a chain of one step is a direct question: its answer, not a step and a conclusion
        # a question about one paper as a whole, whichever strategy it was routed to: the start of its abstract
        gist = compose.paper_gist(pool, prof, request.contexts) if kind in ("simple", "follow_up", "exploratory") else None
        if gist is not None:
            body, used = gist
        elif kind == "comparative":
            body, used = comparison.comparative(pool, prof, request.contexts)
        elif kind == "multi_hop":
            body, used = compose.multi_hop(pool, prof, subs, request.contexts)
        elif kind == "exploratory":
            body, used = compose.exploratory(pool, prof, request.contexts)
        else:
            body, used = compose.simple(pool, prof, request.contexts)
        if not body:
            return no_evidence_answer(request.intent.reformulated_query or request.question)
        if kind in ("simple", "exploratory"):
            body = shaped(body, answer_form(request.question)[1])
        # a paper's gist from its abstract takes no recalled fact: the scorer cannot tell one recalled
        # detail of the paper from its gist; nor does a comparison answered by its papers' gists (any
        # recalled detail of either names it, and nothing else is asked)
        overview = kind == "comparative" and comparison.by_abstracts(pool, prof, request.contexts)
        prior = "" if gist is not None or overview else prior_line(request.prior_facts, prof, used)
        return f"{body}\n\n{prior}" if prior else body

    async def critique(self, question: str, intent: Intent, contexts: list[RetrievedContext], answer: str,
                       sub_questions: list[str]) -> CriticVerdict:
        return critic.critique(question, intent, contexts, answer, sub_questions, self.thresholds, vocab=self.vocabulary)

    async def refine(self, question: str, intent: Intent, verdict: CriticVerdict) -> RefinePlan:
        queries = list(verdict.suggested_queries)
        if not queries:
            queries = [f"{e} {' '.join(intent.dimensions)}".strip() for e in intent.entities][:3] or [question]
        reflection = f"Previous attempt scored {verdict.score:.1f}/10. {verdict.feedback}".strip()
        reformulated = None
        m_ents, _, _ = missing_from_reflections([verdict.feedback], self.vocabulary)
        base = intent.reformulated_query or question
        extra = [e for e in m_ents if e.lower() not in base.lower()]
        if extra:
            reformulated = f"{base} ({', '.join(extra)})"
        return RefinePlan(reflection=reflection, extra_queries=queries, reformulated_query=reformulated)

    async def extract_facts(self, question: str, answer: str, contexts: list[RetrievedContext]) -> list[str]:
        if not answer.strip() or (NO_EVIDENCE_RE.search(answer) and not markers(answer)):
            return []
        found, _ = critic.claims(answer)
        rows = {term_set(r) for ctx in contexts for r in row_sentences(ctx)}
        ranked = []
        for i, c in enumerate(found):
            if c.subject or term_set(c.text) in rows:  # a table's cells and rows need its columns: no facts
                continue
            ok, _why = critic.support(c, contexts)
            text = plain_text(strip_markers(c.text)).strip()
            if not ok or len(text.split()) < 6 or re.match(r"(?i)^(it|they|this|these|that|those|he|she)\b", text):
                continue
            ranked.append((-len(slots.extract_entities(text, self.vocabulary)) > -1, i, text))
        facts = []
        for _, _, text in sorted(ranked, key=lambda r: (r[0], r[1])):
            text = " ".join(text.split())
            text = text if text.endswith((".", "!", "?", "。")) else text + "."
            if text not in facts:
                facts.append(text)
            if len(facts) == 3:
                break
        return facts

    async def name_topics(self, topics: list[Topic]) -> dict[str, str]:
        """No names: without a language model the hub's keyphrase labels are the topics' names."""
        return {}
