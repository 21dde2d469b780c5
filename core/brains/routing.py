"""Combine a learned router's probabilities with cheap conversational signals and a confidence fallback.

Pure functions, no torch: :func:`combine` takes the model's :class:`RouteDecision` and returns the
final one. Three rules, each measured on the router's held-out split and the real-paper dev set
(``training.eval_router``):

1. **No history ⇒ never follow_up.** A first turn cannot continue anything; the follow_up mass is
   dropped and the rest renormalised.
2. **History + a back-reference ⇒ follow_up.** After a turn, a question whose referring pronoun or
   demonstrative comes early and before any name of its own ("How does it compare with X?", "Who
   proposed that?"), that opens with a connective ("And…", "What about X?", "那…"), ends in an
   ellipsis particle ("…呢？") or is a short question naming nothing ("Was the code published?")
   continues that turn. A self-contained question after a turn (a decoy history) names its subject
   and has no such cue: it is never a follow_up, whatever the model says.
3. **Low confidence ⇒ fall back.** When the (combined) top probability is below ``threshold``
   (calibrated on the held-out split, never on the dev set), the decision comes from ``fallback``
   (the rule router) and says so in ``router``: ``"lora:minilm→rules (p=0.41)"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from collections.abc import Callable

from core.text import QUESTION_WORD
from core.types import RouteDecision, Turn

FOLLOW_UP = "follow_up"
# Used only when an adapter carries no calibrated ``fallback_threshold`` in its label_map.json (the shipped
# one does: ``python -m training.eval_router --calibrate --write`` fits it on the held-out split).
FALLBACK_THRESHOLD = 0.0
MAX_REF_POSITION = 8  # a pronoun that points back comes early: "How much data did it use…" (words; 汉字 in Chinese)
MAX_BARE_WORDS = 5  # "Was the code published?": short and naming nothing
MIN_STANDALONE_WORDS = 7  # shorter questions naming something may be ellipses: "Any numbers on COCO?"
# The confidence given to a follow_up that the cue (rule 2) decided. On the held-out split the cue fired
# on 118 questions after a turn, all of them follow-ups; 0.9 is a conservative bound on that precision.
CUE_CONFIDENCE = 0.9

_CJK = re.compile(r"[\u3400-\u9fff]")
# Words that are capitalised only because they start a sentence or are ordinary jargon, not names.
_ORDINARY = {
    "what", "which", "how", "who", "whom", "whose", "when", "where", "why", "is", "was", "are", "were", "do",
    "does", "did", "can", "could", "would", "should", "will", "has", "have", "had", "and", "so", "but", "then",
    "also", "ok", "okay", "in", "on", "for", "with", "by", "according", "compared", "unlike", "besides",
    "give", "tell", "name", "please", "hey", "hmm", "quick", "question", "i", "i'm", "i've", "the", "a", "an",
    "any", "same", "say", "interesting", "thanks", "cheers", "sure", "right", "yes", "no", "great", "nice",
    "explain", "describe", "compare", "contrast", "summarize", "list", "rank", "trace", "walk", "map", "survey",
    "between", "both", "it", "its", "they", "their", "that", "this", "those", "these", "there", "here",
    "gpu", "gpus", "cpu", "tpu", "tpus", "ai", "ml", "nlp", "faq", "q", "why's", "what's", "who's", "how's",
    "relative", "apart", "rather", "instead", "since", "given", "if", "starting", "looking", "across",
    "first", "one", "not", "curious", "let", "let's", "now", "well",
    # measures and units: what is asked about, not a name
    "f1", "bleu", "rouge", "rouge-l", "miou", "ap", "wer", "cer", "fid", "cider", "ndcg", "ndcg@10", "em",
    "auc", "mae", "mse", "psnr", "ssim", "flops", "gflops", "tflops", "pass@1", "pass@10", "top-1", "top-5", "acc",
    "recall@20", "mrr", "bpc", "mos", "v100", "a100", "h100", "ram", "vram",
}
_QUOTED = re.compile(r"['\"“‘《「]([^'\"”’》」]{4,})['\"”’》」]")
_COLLECTION = (r"(collection|corpus|papers|documents|library|set|field|area|survey|literature|list|topic|"
               r"direction|line of work|question|works)")
_REFERRING_NOUN = (r"(model|models|method|methods|paper|approach|technique|design|number|result|results|version|"
                   r"variant|one|ones|dataset|benchmark|work|idea|trick|change|component|system|score|figure|"
                   r"setting|part|point|claim|finding|loss|architecture|encoder|decoder)")
_EN_REF = re.compile(
    r"\b(it|its|it's|itself|they|them|their|theirs|he|she|his|her|the former|the latter|both of them|"
    r"(that|this)(?=\s*([?.!,;]|$))|(about|does|did|is|was|with|than|like|for|do) (that|this)\b|"
    r"(that|this|those|these) " + _REFERRING_NOUN + r"\b|(those|these)(?!\s+" + _COLLECTION + r"\b)|"
    r"the (same|other|smaller|larger|bigger|base|large|first|second|last|original|earlier|previous) "
    r"(one|version|variant|model|part|point))\b", re.I)
_ZH_REF = re.compile(r"它|他们|她们|该模型|该方法|该论文|这个模型|这个方法|这篇|这项工作|那个|那篇|前者|后者|两者|上面|刚才")
_EN_LEAD = re.compile(r"^\s*(and|so|then|also|but|plus|ok(ay)?,?\s+(and|so)?|what about|how about|same (question|for)|"
                      r"and what about|interesting|say more|now)\b", re.I)
_ZH_LEAD = re.compile(r"^\s*(那么?|还有|另外|换成|再|那在)")
_ZH_ELLIPSIS = re.compile(r"呢\s*[？?。!！]?\s*$")
_SUFFIX = re.compile(r"\s*(thanks!?|thank you!?|cheers\.?|please cite sources\.?|keep it short\.?|a short answer is fine\.?|"
                     r"\(from the paper\)|谢谢[！!]?|多谢[。.]?|请给出出处[。.]?|请附上引用[。.]?|简单说说就行[。.]?)\s*$", re.I)
_PREFIX = re.compile(r"^\s*(quick question|i was wondering|please tell me|hey|hmm|question|curious|"
                     r"not sure about this|请问|想知道|帮我看看|麻烦问一下|问一下|我有个疑问)\s*[:：,，—-]*\s*", re.I)


@dataclass(frozen=True)
class Signals:
    """Cheap facts about a question and its context."""

    has_history: bool
    back_reference: bool  # an early pronoun/demonstrative, before any name of the question's own
    leading_connective: bool  # "And…", "What about…", "那…"
    ellipsis: bool  # "…呢？", or a fragment of at most four words
    pronoun: bool  # any referring pronoun or demonstrative, wherever it is
    names: int  # names the question mentions (models, datasets, quoted titles)
    words: int  # English words, or Chinese characters / 2

    @property
    def follow_up_cue(self) -> bool:
        """After a turn, does the question point back at it?"""
        bare = self.names == 0 and self.words <= MAX_BARE_WORDS
        return self.back_reference or self.leading_connective or self.ellipsis or bare


def _names(text: str) -> list[tuple[int, str]]:
    """(offset, name) of capitalised, mixed-case, digit-bearing or quoted names in ``text``."""
    found: list[tuple[int, str]] = [(m.start(), m.group(1)) for m in _QUOTED.finditer(text)]
    first = True
    for m in QUESTION_WORD.finditer(text):
        word = m.group(0).rstrip(".,;:!?'")
        if not word:
            continue
        lower = word.lower().rstrip("s") if word.isupper() else word.lower()
        special = (any(c.isupper() for c in word[1:]) or any(c.isdigit() for c in word)) and word.lower() not in _ORDINARY
        capital = word[0].isupper() and lower not in _ORDINARY and word.lower() not in _ORDINARY
        if _CJK.search(text):  # in Chinese text every Latin-script word is a name
            if word.lower() not in _ORDINARY or word.isupper():
                found.append((m.start(), word))
        elif special or (capital and not first):
            found.append((m.start(), word))
        first = False
    return sorted(found)


def signals(question: str, history: list[Turn]) -> Signals:
    """The cues :func:`combine` uses, computed from the text alone."""
    text = _SUFFIX.sub("", _PREFIX.sub("", question.strip())) or question.strip()
    zh = bool(_CJK.search(text))
    names = _names(text)
    first_name = names[0][0] if names else len(text)
    if zh:
        ref = _ZH_REF.search(text)
        lead = bool(_ZH_LEAD.search(text))
        ellipsis = bool(_ZH_ELLIPSIS.search(text))
        words = len(_CJK.findall(text)) // 2 + len(QUESTION_WORD.findall(text))
    else:
        ref = _EN_REF.search(text)
        lead = bool(_EN_LEAD.search(text))
        words = len(QUESTION_WORD.findall(text))
        ellipsis = words <= 4 and not re.search(r"\b(what|which|who|how|is|are|was|were|does|did|do)\b.*\b\w+\b.*\b\w+",
                                                text, re.I) and words > 0
    early = bool(ref) and ref.start() < first_name and (
        len(_CJK.findall(text[: ref.start()])) <= MAX_REF_POSITION if zh
        else len(QUESTION_WORD.findall(text[: ref.start()])) < MAX_REF_POSITION)
    return Signals(has_history=bool(history), back_reference=early,
                   pronoun=bool(ref), leading_connective=lead, ellipsis=ellipsis, names=len(names), words=words)


def _with_mass(scores: dict[str, float], label: str, mass: float) -> dict[str, float]:
    """``scores`` with ``label`` set to ``mass`` and the others rescaled to share the rest."""
    rest = sum(v for k, v in scores.items() if k != label)
    out = {k: round(v * (1.0 - mass) / rest, 4) if rest > 0 else 0.0 for k, v in scores.items() if k != label}
    out[label] = round(mass, 4)
    return out


def combine(model: RouteDecision, question: str, history: list[Turn], *,
            fallback: Callable[[], RouteDecision] | None = None,
            threshold: float = FALLBACK_THRESHOLD, use_signals: bool = True) -> RouteDecision:
    """The final route from the model's decision, the conversation signals and the fallback."""
    scores = dict(model.scores) if model.scores else {model.type: model.confidence}
    name = model.router
    if use_signals:
        sig = signals(question, history)
        top = max(scores, key=scores.get)
        if not sig.has_history:
            if scores.get(FOLLOW_UP, 0.0) > 0:
                scores = _with_mass(scores, FOLLOW_UP, 0.0)
                if top == FOLLOW_UP:
                    name += "+cue"
        elif sig.follow_up_cue and top != FOLLOW_UP:
            scores = _with_mass(scores, FOLLOW_UP, max(scores.get(FOLLOW_UP, 0.0), CUE_CONFIDENCE))
            name += "+cue"
        elif not sig.follow_up_cue and not sig.pronoun and sig.names and sig.words >= MIN_STANDALONE_WORDS \
                and top == FOLLOW_UP:  # a full question that names its subject and has nothing to point back
            scores = _with_mass(scores, FOLLOW_UP, 0.0)
            name += "+cue"
    best = max(scores, key=scores.get)
    confidence = min(1.0, max(0.0, scores[best]))
    if fallback is not None and confidence < threshold:
        rule = fallback()
        return RouteDecision(type=rule.type, confidence=rule.confidence, scores=rule.scores,
                             router=f"{name}→{rule.router} (p={confidence:.2f})")
    return RouteDecision(type=best, confidence=confidence, router=name, scores=scores)  # type: ignore[arg-type]
