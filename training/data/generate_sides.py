"""Comparison-cell training groups: one side of a comparison, answered from that paper's own text.

A comparison's cell quotes the sentences of one paper that answer the question asked of it (see
:func:`core.brains.offline.comparison.side_question`). Its hard negatives are the paper's own
background sentences: they share the aspect's words ("text recognizers are usually ...") without
saying what the paper itself does. A group here is built so the aspect's words do not decide:

- the answer is the sentence that first names the paper's method (:func:`introduction`: what the
  method is or does);
- the aspect is one or two content words that the answer shares with another sentence of the same
  paper (so that sentence holds them too), a seeded share of them paraphrased;
- the question compares the paper with another paper of the pool, in one of a few comparison
  frames, and is reduced to its side with the brain's own :func:`side_question`;
- the candidates are the paper's sentences (a cell reads only its paper).

Sources are those of :mod:`training.data.generate_scorer` (training abstracts, the bundled corpus,
synthetic papers; never evaluation text), split by paper in the same way.
"""

from __future__ import annotations

import random
import re

from core.brains.offline.comparison import side_question
from core.brains.offline.text import content_terms
from core.vocabulary import Vocabulary
from training.data.generate_scorer import CHUNK, DEFAULT_SEED, _heldout, papers
from training.data.scorer_questions import PARAPHRASE, introduction, short_name

_WORD = re.compile(r"[A-Za-z][A-Za-z\-]*[A-Za-z]")
FRAMES = (
    "How do {a} and {b} differ in {x}?",
    "Compare {a} and {b} in terms of {x}.",
    "What does each of {a} and {b} do about {x}?",
    "{a} versus {b}: how does each handle {x}?",
    "How do {b} and {a} differ with respect to {x}?",
)


def shared_words(answer: str, others: list[str]) -> list[str]:
    """The answer's content words (as written) whose stem another sentence of the paper also holds."""
    elsewhere = {t for s in others for t in content_terms(s)}
    out = []
    for w in _WORD.findall(answer):
        terms = content_terms(w)
        if len(w) > 3 and terms and set(terms) <= elsewhere and w.lower() not in out:
            out.append(w.lower())
    return out


def build(seed: int = DEFAULT_SEED) -> tuple[list[dict], list[dict]]:
    """Train and held-out side groups, in :mod:`training.data.generate_scorer`'s group format."""
    rng = random.Random(seed + 1)
    docs = papers(seed)
    names = [short_name(t) for _, t, _ in docs]
    train, held = [], []
    for k, (pid, title, sents) in enumerate(docs):
        a = introduction(title, sents)
        name = names[k]
        if a is None or len(sents) < 3:
            continue
        words = [w for w in shared_words(sents[a], sents[:a] + sents[a + 1:])
                 if w not in content_terms(name.lower()) and w != name.lower()]
        if not words:
            continue
        aspect = [PARAPHRASE.get(w, w) if rng.random() < 0.3 else w for w in rng.sample(words, min(2, len(words)))]
        rival = names[rng.choice([j for j in range(len(docs)) if names[j] != name])]
        q = rng.choice(FRAMES).format(a=name, b=rival, x=" and ".join(aspect))
        cands = [{"text": s, "chunk": f"{pid}#{i // CHUNK}", "own": True, "label": int(i == a)} for i, s in enumerate(sents)]
        group = {"question": side_question(q, name, [name, rival], Vocabulary()), "paper": pid, "title": title,
                 "source": "side", "candidates": cands}
        (held if _heldout(pid) else train).append(group)
    return train, held
