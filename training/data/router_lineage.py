"""Router training questions for three kinds the full-paper forms left thin, for the training split only.

- **Lineage, one system building on another** (``multi_hop``). The full-paper chains name two *papers*;
  a reader as often names two *systems* joined by a relation ("X builds on Y", "X extends Y", "X
  reuses Y's parser"): the answer needs Y's paper to explain X. Without such forms a warm-started router
  moved such questions towards ``comparative`` (two names) or ``factual``.
- **Chains that name both papers** (``multi_hop``): "take the dataset of P2, then P's result on it".
  Two paper names are not a comparison when one paper is only the place to find the bridge.
- **Short Chinese asks about one table, figure or system** (``factual``), beside the short Chinese chains
  (``multi_hop``): a few characters and a table number read too little like the long Chinese forms, and
  a one-system ask must not read as a chain because the chains are short too.

The labels keep the definitions of :mod:`training.data.router_fullpaper`, stated by the kind of ask.
Every name is invented there or drawn from :mod:`training.data.vocab`'s training pools; nothing is
taken from evaluation text. Seeded, with its own random stream.
"""

from __future__ import annotations

import random

from training.data import router_fullpaper as F
from training.data import vocab as V

TEMPLATES: dict[str, dict[str, list[str]]] = {
    "multi_hop": {"en": [
        "How does {S} build on {S2} to {goal}?",
        "What does {S} take over from {S2}, and what does it add so that it can {goal}?",
        "{S} extends {S2}; which weakness of {S2} does the extension remove, and how?",
        "Starting from {S2}, what did the authors of {S} change in order to {goal}?",
        "How did {S} reuse the {C} of {S2}, and what did that give it on {D}?",
        "Which ideas from {S2} live on in {S}, and what is new in {S}?",
        "In what sense is {S} a successor of {S2}, and how does that let it {goal}?",
        "What did {S2} introduce that {S} relies on for its {M} on {D}?",
        "Building on {S2}, how does {S} manage to {goal}?",
        "{S} keeps the {C} of {S2} but swaps the rest; how does this help it {goal}?",
        "Which earlier system is {S} built from, and what did that system's paper report on {D}?",
        "Explain the step from {S2} to {S}: what was kept, what was replaced, and why?",
        "Using the dataset that {P2} introduces, what {M} does {S} in {P} reach, and how large is that dataset?",
        "{P} borrows its {C} from {P2}; according to {P2}, how well does that {C} work on {D}?",
        "Look up the baseline that {P} adopts in Table {n}, then say what {P2}, where it comes from, reports for it.",
        "What does {P2} report about the {C} that {P} later plugs into {S}?",
        "{P} re-uses the labels produced by {S2} from {P2}; how accurate were they in {P2}?",
        "Take the {M} that {P2} proposes and tell me how {P} applies it to {S}.",
    ], "zh": [
        "{S} 是怎么在 {S2} 的基础上做到{goal}的？",
        "{S} 从 {S2} 那里继承了什么？又加了什么才能{goal}？",
        "{S} 扩展了 {S2}，解决了 {S2} 的什么问题？",
        "{S} 借用了 {S2} 的{C}，这让它在 {D} 上有什么收益？",
        "{S} 基于哪个系统？那个系统的论文在 {D} 上报告了什么？",
        "从 {S2} 到 {S}，保留了什么，替换了什么？",
        "{S} 沿用 {S2} 的思路，是怎么{goal}的？",
        "{S} 的{C}来自哪里？原论文里它效果怎样？",
        "先找 {S} 所依赖的方法，再说那个方法是怎么训练的",
        "{P2}发布的数据集被{P}拿去评测，这个数据集有多大？{S} 在上面的 {M} 是多少？",
        "{P}的{C}取自{P2}，{P2}里它在 {D} 上表现如何？",
    ]},
    "factual": {"zh": [
        "表{n}中 {S} 的 {M} 是多少？",
        "表{n}的最后一列是什么指标？",
        "{S} 在表{n}里排第几？",
        "图{n}中 {S} 的曲线在哪个位置最高？",
        "{P}表{n}列了哪些指标？",
        "表{n}里 {S} 在 {D} 上的分数是多少？",
        "{S} 在 {D} 上的 {M}（表{n}）是多少？",
        "表{n}第一行是哪个系统？",
        "图{n}横轴是什么？",
        "{S} 的{C}是怎么实现的？",
        "{S} 用了多少{U}训练？",
        "{P}的表{n}里，{B} 的 {M} 是多少？",
        "{S} 采用了什么{C}？",
        "{S} 是用什么数据训练的？",
        "{S} 在 {D} 上的 {M} 比基线 {B} 高还是低？",
        "{S} 的{C}有什么特点？",
        "{S} 是哪个团队提出的？",
        "{S} 解决的是什么问题？",
    ], "en": [
        "What does {S} build its {C} from, according to {P}?",
        "In {P}, what {C} is {S} given, and with which settings?",
        "What is the {M} of {S} on {D} in Table {n}?",
        "Which system comes first in Table {n} of {P}?",
    ]},
}
COUNTS = {"multi_hop": 320, "factual": 260}
ZH_RATE = {"multi_hop": 0.3, "factual": 0.7}


def _system(rng: random.Random) -> str:
    """A system name: invented, or a real model name from the training pool."""
    return F._name(rng) if rng.random() < 0.5 else rng.choice(V.R_MODELS_TRAIN)


def _slots(rng: random.Random, lang: str) -> dict[str, str]:
    slots = F._slots(rng, lang)
    s, s2 = _system(rng), _system(rng)
    while s2 == s:
        s2 = _system(rng)
    slots.update(S=s, S2=s2, goal=rng.choice(V.R_GOALS_ZH_TRAIN if lang == "zh" else V.R_GOALS_TRAIN))
    return slots


def templates() -> list[str]:
    """Every template of this module (the disjointness test checks them against the dev questions)."""
    return [t for langs in TEMPLATES.values() for forms in langs.values() for t in forms]


def generate(rng: random.Random) -> list[dict]:
    """Rows for the training split: ``COUNTS`` per label, deduplicated; about ``F.HISTORY_RATE`` of them
    carry a decoy earlier exchange (these are standalone questions)."""
    rows: list[dict] = []
    seen: set[str] = set()
    for label, target in COUNTS.items():
        got, tries = 0, 0
        while got < target and tries < target * 50:
            tries += 1
            lang = "zh" if rng.random() < ZH_RATE[label] else "en"
            question = rng.choice(TEMPLATES[label][lang]).format(**_slots(rng, lang))
            question = question[0].upper() + question[1:]
            key = " ".join(question.lower().split())
            if key in seen:
                continue
            seen.add(key)
            history = F._previous_turn(rng, lang) if rng.random() < F.HISTORY_RATE else []
            rows.append({"question": question, "history": history, "label": label, "lang": lang})
            got += 1
    return rows
