"""A learned decision over the LoRA router and the rule router: multinomial logistic regression.

The adapter and the rule router err on different questions (the adapter over-reads long factual
questions as multi_hop; the rules miss paraphrases), and a fixed confidence threshold that hands the
whole decision to one of them throws the other's evidence away. Instead one small linear model reads
both distributions and returns a calibrated one. It is fitted by ``training.router_combiner`` on the
router's held-out split (never on an evaluation set) and stored in the adapter's ``label_map.json`` as
``combiner``; inference is a dot product in numpy (no scikit-learn, no torch).

Features (:func:`features`), in the adapter's label order:

- the adapter's log-probabilities over all labels (softmax at the adapter's fitted temperature);
- the rule router's log-probabilities over the content labels (renormalised without ``follow_up``,
  which only the conversation signals of ``core.brains.routing`` decide), written into an English or
  a Chinese block: the rules' Chinese cues are a different set from their English ones, so one weight
  per cue language lets the fit trust each set as far as it earns;
- a Chinese indicator, so each block has its own bias.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

FOLLOW_UP = "follow_up"
RULE_FLOOR = 1e-3  # a rule probability of 0 means "no cue fired", not impossibility
_CJK = re.compile(r"[\u3400-\u9fff]")


def question_lang(question: str) -> str:
    """``zh`` when the question has CJK characters, else ``en``."""
    return "zh" if _CJK.search(question) else "en"


def content_labels(labels: list[str]) -> list[str]:
    return [label for label in labels if label != FOLLOW_UP]


def features(model_scores: dict[str, float], rule_scores: dict[str, float], labels: list[str],
             question: str) -> list[float]:
    """The combiner's input for one question (see the module docstring)."""
    feats = [math.log(max(model_scores.get(label, 0.0), 1e-6)) for label in labels]
    content = content_labels(labels)
    raw = [rule_scores.get(label, 0.0) + RULE_FLOOR for label in content]
    total = sum(raw)
    rule = [math.log(v / total) for v in raw]
    zero = [0.0] * len(content)
    zh = bool(_CJK.search(question))
    feats += (zero + rule + [1.0]) if zh else (rule + zero + [0.0])
    return feats


@dataclass(frozen=True)
class Combiner:
    """Weights of a fitted multinomial logistic regression: ``classes`` × features, plus intercepts."""

    classes: list[str]
    coef: list[list[float]]
    intercept: list[float]
    languages: tuple[str, ...] = ("en", "zh")  # the questions it was fitted on, and so decides

    @classmethod
    def from_dict(cls, data: dict) -> Combiner:
        classes, coef, intercept = list(data["classes"]), data["coef"], data["intercept"]
        if len(coef) != len(classes) or len(intercept) != len(classes) or len({len(r) for r in coef}) != 1:
            raise ValueError("combiner: coef, intercept and classes disagree in shape")
        languages = tuple(data.get("languages") or ("en", "zh"))
        return cls(classes, [list(map(float, r)) for r in coef], list(map(float, intercept)), languages)

    def to_dict(self) -> dict:
        return {"classes": self.classes, "coef": [[round(v, 6) for v in r] for r in self.coef],
                "intercept": [round(v, 6) for v in self.intercept], "languages": list(self.languages)}

    def decides(self, question: str) -> bool:
        """Whether ``question`` is in a language this combiner was fitted on."""
        return question_lang(question) in self.languages

    def scores(self, feats: list[float], labels: list[str]) -> dict[str, float]:
        """Probabilities per label (labels the fit never saw get 0)."""
        if len(feats) != len(self.coef[0]):
            raise ValueError(f"combiner: {len(feats)} features, weights expect {len(self.coef[0])}")
        z = [b + sum(w * x for w, x in zip(row, feats)) for row, b in zip(self.coef, self.intercept)]
        top = max(z)
        exps = [math.exp(v - top) for v in z]
        total = sum(exps)
        probs = dict(zip(self.classes, (e / total for e in exps)))
        return {label: round(probs.get(label, 0.0), 4) for label in labels}
