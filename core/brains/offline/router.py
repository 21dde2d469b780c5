"""Transparent intent router: weighted cue features per intent, softmax over the sums.

Every feature is a named regex with a weight, so a decision can be explained ("comparative: cue
'compare' +3.0, two entities +0.8"). Confidence is the softmax probability of the winning intent,
so it moves with the evidence instead of being a constant. ``follow_up`` is only scored when there
is history: a first turn can never be a follow-up.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from core.brains.offline.lexicon import find_dimensions
from core.brains.offline.slots import extract_entities
from core.vocabulary import Vocabulary

INTENTS = ("factual", "comparative", "multi_hop", "exploratory", "follow_up")
BASE = {"factual": 1.0, "comparative": 0.0, "multi_hop": 0.0, "exploratory": 0.0, "follow_up": 0.0}
TEMPERATURE = 1.0


@dataclass(frozen=True)
class Feature:
    intent: str
    weight: float
    pattern: re.Pattern
    label: str


def _f(intent: str, weight: float, pattern: str, label: str) -> Feature:
    return Feature(intent, weight, re.compile(pattern, re.I), label)


FEATURES: tuple[Feature, ...] = (
    # comparative
    _f("comparative", 3.0, r"\b(compare|comparing|comparison|contrast)\b|对比|比较", "compare"),
    _f("comparative", 3.0, r"\b(vs\.?|versus)\b|\bdiffer(ence|ences|s)?\b.*\b(between|from)\b|区别|差异|不同之处|异同", "versus/difference"),
    _f("comparative", 2.0, r"\b(pros and cons|trade-?offs?|better than|worse than|advantages? (of|over)|which (is|one is) (better|faster|cheaper|more))\b|哪个更|优劣", "preference"),
    _f("comparative", 0.8, r"\b(differ|different|similar|similarities)\b", "difference word"),
    _f("comparative", 2.5, r"\beach of\b|\brespectively\b|\bboth\b.+\beach( one)?\b|\bdistinguish(es)?\b|\bside[- ]by[- ]side\b|"
       r"\bstack(s)? up\b|\bweigh\b.+\bagainst\b|\b(and|or)\b [^?]+[,:]? which (one |of them )?(is|has|needs|scored|wins|reports)\b|"
       r"\bwhich (is|has|needs)\b[^?]+\bor\b|分别|各自|孰优孰劣|谁的|谁更|哪个更|相比[^，。？]*(优缺点|怎么样|如何)", "each/respectively"),
    # multi_hop
    _f("multi_hop", 3.0, r"(\b(inspired by|distilled from|derived from|initiali[sz]ed from|successor|predecessor|teacher|backbone|"
       r"based on|borrows?|inherits?|takes its|adopts?|reuses?|compared against|modell?ed after|the model (that|it))\b|"
       r"启发|蒸馏|源自|继承|沿用|借鉴|前身|教师|老师|骨干|基线|上游|源模型|参照|仿照|脱胎)"
       r".*([;；。]|, and |\?.+\?|？.+[？?]|，[^，]*(是多少|是什么|是谁|如何))", "bridge to another model"),
    _f("multi_hop", 3.0, r"\b(build|builds|built|building) (on|upon)\b|\bextends?\b|\bimproves? (on|upon)\b|基于|建立在", "builds on"),
    _f("multi_hop", 2.5, r"\bwhy\b.*\b(lead|leads|led|cause|causes|result|results) (to|in)\b|\bleads? to\b|导致", "causal chain"),
    _f("multi_hop", 2.5, r"\bstep[- ]by[- ]step\b|\b(trace|follow) the (chain|steps|path|reasoning)\b|\bchain of (reasoning|steps|events)\b|一步步|逐步", "step by step"),
    _f("multi_hop", 2.0, r"\bhow (does|do|did|can|could) .+ (enable|enables|allow|allows|make it possible|combine|combines|use .+ to)\b|如何.*(实现|做到)", "mechanism"),
    _f("multi_hop", 1.5, r"\b(relationship|relation|connection) between\b|\bhow .+ relates? to\b|之间的关系", "relation"),
    _f("multi_hop", 1.0, r"\bto (fine-?tune|train|fit|run|achieve|reach|reduce)\b.+\b(on|with|in|under)\b|\b\d+(\.\d+)?\s?[BM]\b.*\b(single|one) (gpu|device)\b|单张|单个GPU", "goal under constraint"),
    # exploratory
    _f("exploratory", 3.0, r"\b(overview|landscape|survey|state of the art|big picture)\b|综述|概览|全景|现状", "overview"),
    _f("exploratory", 3.0, r"\b(evolved|evolve|evolution|history|historical|developed over|progression|trajectory)\b|发展|演变|演进|脉络|历程", "evolution"),
    _f("exploratory", 3.0, r"\bwhat are (the )?(main |major |different |various |existing )?(approaches|methods|techniques|families|ways|options|alternatives)\b|有哪些(方法|技术|路线)", "what approaches"),
    _f("exploratory", 2.0, r"\b(explore|exploring|trends?|recent (work|advances|developments)|broadly|families of)\b|趋势|探索", "explore"),
    _f("exploratory", 1.0, r"\btrace how\b|\bfrom \S+ (to|through) \S+", "from..to"),
    _f("exploratory", 3.0, r"\b(this|the) collection\b|\bthese (papers|works|documents|models)\b|\bthe papers here\b|"
       r"\b(the|my|indexed) (papers|documents|library|corpus)\b|\bacross (the|these)\b|\blines of work\b|\bdirections?\b|"
       r"\bthe field\b|\bschools of thought\b|文集|这些论文|这批论文|这些文档|库里|这个方向|领域|流派|路线|全景|沿革", "collection/field"),
    # factual
    _f("factual", 1.5, r"^\s*(what|which|who|when|where|how (many|much|big|large|long))\b|^(什么|多少|哪)|是什么|是多少|是谁", "wh-question"),
    _f("factual", 1.0, r"\b(default|value|number of|how many|define|definition|stand for|introduced in|year)\b|默认|定义", "fact cue"),
)

FOLLOW_UP_FEATURES: tuple[Feature, ...] = (
    _f("follow_up", 2.5, r"^\s*(and|also|so|but|then|plus|ok|okay)\b|^\s*(what|how) about\b|^\s*(那|那么|还有|另外)", "leading connective"),
    _f("follow_up", 2.5, r"\b(it|its|it's|they|them|their|theirs|this one|that one|which one|the former|the latter|the first one|the second one|both of them)\b|它|它们|这个|那个|前者|后者", "pronoun"),
    _f("follow_up", 1.5, r"\b(does|did|do|is|was|about|of|with|than) (that|this|these|those)\b|\b(that|this)\s*\?", "demonstrative"),
    _f("follow_up", 1.5, r"呢\s*[？?]?\s*$", "ellipsis particle"),
)


def score(question: str, has_history: bool, vocab: Vocabulary) -> tuple[dict[str, float], list[str]]:
    """Raw feature scores per intent and the labels of the features that fired (names from ``vocab``)."""
    scores = dict(BASE)
    fired: list[str] = []
    for feat in FEATURES:
        if feat.pattern.search(question):
            scores[feat.intent] += feat.weight
            fired.append(f"{feat.intent}:{feat.label}")
    entities = extract_entities(question, vocab)
    n_ent = len(entities)
    if n_ent >= 2:
        scores["comparative"] += 0.5
        scores["multi_hop"] += 0.5
        fired.append("entities>=2")
    if n_ent >= 2 and find_dimensions(question):
        scores["comparative"] += 1.0
        fired.append("comparative:entities+dimensions")
    if has_history:
        for feat in FOLLOW_UP_FEATURES:
            if feat.pattern.search(question):
                scores["follow_up"] += feat.weight
                fired.append(f"follow_up:{feat.label}")
        if n_ent == 0:
            scores["follow_up"] += 1.0
            fired.append("follow_up:no entity")
        elif re.search(r"^\s*(and )?(what|how) about\b|呢\s*[？?]?\s*$", question, re.I):
            scores["follow_up"] += 0.5  # "what about QLoRA?" names a new entity on purpose
        else:
            scores["follow_up"] -= 0.75 * n_ent
        if len(question.split()) <= 8 or (len(question) <= 14 and re.search(r"[\u4e00-\u9fff]", question)):
            scores["follow_up"] += 0.5
    return scores, fired


def classify(question: str, has_history: bool, vocab: Vocabulary) -> tuple[str, float, dict[str, float], list[str]]:
    """(intent, confidence, probabilities per intent, fired features)."""
    raw, fired = score(question, has_history, vocab)
    candidates = [i for i in INTENTS if has_history or i != "follow_up"]
    top = max(raw[i] for i in candidates)
    exps = {i: math.exp((raw[i] - top) / TEMPERATURE) for i in candidates}
    total = sum(exps.values())
    probs = {i: round(exps.get(i, 0.0) / total, 4) for i in INTENTS}
    best = max(candidates, key=lambda i: (raw[i], -INTENTS.index(i)))
    return best, probs[best], probs, fired
