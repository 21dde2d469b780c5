"""The learned sentence scorer: how well one candidate sentence (or table row) answers a question.

A small model over declarative features of the pair — the question's key terms the sentence
holds (IDF-weighted over the pool, see :func:`core.brains.offline.evidence.weigh`), the named
entities it mentions, whether it opens with the main one, whether the question asks for a number
and the sentence has one, whether a value the question lacks sits in the clause of an asked term
(:func:`value_features`: a sentence that states the asked value against one that only sets it
up), how much of the sentence merely echoes the question, whether the question asks what something
is and the sentence defines, its position, length and kind (a table row, a caption), whether it
comes from the paper the question names — and, when the weights were trained with it
(``uses_cosine``), the MiniLM cosine between question and sentence (:mod:`core.embeddings`, ONNX at
run time; the shipped weights leave it out: it tripled full-text turn time for about a point of
held-out top-1). The model is logistic, optionally through one ReLU hidden layer (``hidden`` in
the weights). Its weights are learned by ``python -m training.scorer_train`` from
:mod:`training.data.generate_scorer` data (never evaluation text) and read from
``core/models/sentence_scorer.json``; none is set by hand.

A comparison's cells are ranked by the same model trained with the cosine feature
(``core/models/side_scorer.json``, :func:`side_model`): a cell is one paper's answer to its side of
the question, and the sentence that gives it often shares no word with it ("trained on one public
dataset only" for "how much data"), which only the similarity sees. Cells are few per turn, so the
encoder's cost stays off the other strategies.

The score is the model's probability that the sentence answers the question, in (0, 1), so
MMR's ``min_ratio`` reads as "at least this share of the best sentence's probability". When the
weights file or the encoder is missing the scorer says so once on stderr and runs on what it has.
"""

from __future__ import annotations

import json
import math
import re
import sys
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

from core.brains.offline.evidence import Profile, Sentence, subject
from core.brains.offline.lexicon import mention_pattern, mentions
from core.brains.offline.text import stem

WEIGHTS_FILE = Path(__file__).resolve().parents[2] / "models" / "sentence_scorer.json"
SIDE_WEIGHTS_FILE = WEIGHTS_FILE.with_name("side_scorer.json")
FEATURES = ("coverage", "hits", "entities", "subject", "crowded", "asks_number", "has_number",
            "defines", "opens_with_entity", "position", "length", "table_row", "caption", "asked_caption", "own_paper",
            "value_near_term", "new_value", "echo", "cosine")
# A definition's form ("X is a …", "proposed by", "stands for"): a kind of sentence, not a cue of any question.
_DEFINITION = re.compile(r"^.{0,60}?\b(is|are) (a|an)\b|\b(introduced|proposed) by\b|\bstands? for\b|\brefers? to\b", re.I)
_TABLE_ROW = re.compile(r"^In (?:Table\s*[\dIVX]+|the table on)\b|^[^:;]{1,40}: [^;]+; [^:;]{1,40}: ", re.I)
_CAPTION = re.compile(r"^(?:Figure|Fig\.|Table)\s*\d+[a-z]?\s*[:.]", re.I)
_FLOAT_REF = re.compile(r"\b(fig(?:ure|\.)?|table)\s*(\d+)", re.I)
# A stated quantity: a number that is not part of a name ("GPT-4", "Qwen2") nor the index of a figure,
# table, section or equation — the kind of token a "how many / what value" question is answered by.
_INDEX_WORDS = frozenset(("figure", "fig", "table", "section", "sec", "eq", "equation", "appendix", "step", "stage"))
_lock = threading.Lock()
_warned: set[str] = set()
_vectors: dict[str, np.ndarray] = {}
_MAX_CACHED = 20000


def _warn(key: str, line: str) -> None:
    if key not in _warned:
        _warned.add(key)
        print(f"paperpilot: {line}", file=sys.stderr)


def load_weights(path: Path, features: tuple[str, ...] | list[str], fallback: dict, what: str, instead: str) -> dict:
    """A learned-weights file for ``features``; ``fallback`` (with one stderr line naming ``what`` and
    what is done ``instead``) when it is missing, unreadable or for other features."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if list(data["features"]) != list(features):
            raise ValueError(f"features {data['features']} do not match {list(features)}")
        return data
    except (OSError, ValueError, KeyError) as exc:
        _warn(f"weights:{what}", f"{what} weights unavailable ({exc}); {instead}")
        return fallback


@lru_cache(maxsize=1)
def model() -> dict:
    """The learned weights (loaded once); without the file, unit weights on term coverage alone."""
    return load_weights(WEIGHTS_FILE, FEATURES, {
        "features": list(FEATURES), "weights": [1.0 if f in ("coverage", "entities") else 0.0 for f in FEATURES],
        "bias": 0.0, "mean": [0.0] * len(FEATURES), "scale": [1.0] * len(FEATURES), "uses_cosine": False},
        "sentence scorer", "ranking by term coverage alone")


@lru_cache(maxsize=1)
def side_model() -> dict:
    """The weights that rank a comparison's cells (the sentence scorer trained with the MiniLM
    cosine); without the file, the sentence scorer's own."""
    return load_weights(SIDE_WEIGHTS_FILE, FEATURES, model(), "comparison-cell scorer", "cells ranked by the sentence scorer")


def prime(texts: list[str], m: dict | None = None) -> None:
    """Embed, in one batch, the texts whose vectors are not cached yet (a pool before scoring with
    the weights ``m``, default :func:`model`), when those weights read the cosine."""
    if not (m or model()).get("uses_cosine", True):
        return
    missing = list(dict.fromkeys(t for t in texts if t not in _vectors))
    if not missing:
        return
    try:
        from core.embeddings import embed

        vecs = embed(missing, one_thread=True)  # a turn's few dozen texts: one thread costs the least CPU
    except (ImportError, OSError, RuntimeError, ValueError) as exc:  # no encoder: the cosine reads 0 (said once)
        _warn("encoder", f"sentence scorer runs without MiniLM similarity ({type(exc).__name__}: {exc})")
        vecs = np.zeros((len(missing), 1), dtype=np.float32)
    with _lock:
        if len(_vectors) + len(missing) > _MAX_CACHED:
            _vectors.clear()
        _vectors.update(zip(missing, vecs))


def cosine(question: str, text: str, m: dict | None = None) -> float:
    m = m or model()
    if not m.get("uses_cosine", True):
        return 0.0
    prime([question, text], m)
    a, b = _vectors.get(question), _vectors.get(text)
    if a is None or b is None or a.shape != b.shape:
        return 0.0
    return float(np.dot(a, b))


def features(sent: Sentence, prof: Profile, focus: set[str] | None = None, *, own: bool = False,
             question: str | None = None, cos: float | None = None, m: dict | None = None) -> list[float]:
    """The feature vector of one (question, sentence) pair, in :data:`FEATURES` order
    (``cos``: the question–sentence cosine when the caller has it already; ``m``: the weights that
    will read it, which say whether the cosine is computed)."""
    terms = (set(focus) if focus is not None else set(prof.key_terms)) | prof.boost
    total = sum(prof.weights.get(t, 1.0) for t in terms) or 1.0
    held = [t for t in terms if t in sent.terms]
    named = [e for e in prof.entities if e in sent.about or mentions(sent.text, e, prof.vocab)]
    subj = subject(sent, prof.vocab)
    main = prof.entities[0] if prof.entities else None
    has_num = bool(re.search(r"\d", sent.text))
    q = question or prof.question
    near, new = value_features(sent.text, q, terms)
    return [
        sum(prof.weights.get(t, 1.0) for t in held) / total,
        min(len(held), 5) / 5,
        len(named) / len(prof.entities) if prof.entities else 0.0,
        float(main is not None and subj == main),
        min(max(0, len(sent.about) - 2), 4) / 4,
        float(prof.numeric and has_num),
        float(has_num),
        float(prof.definitional and bool(_DEFINITION.search(sent.text))),
        float(main is not None and bool(mention_pattern(main, prof.vocab).match(sent.text))),
        1.0 / (1 + sent.pos),
        min(len(sent.terms), 60) / 60,
        float(bool(_TABLE_ROW.search(sent.text))),
        float(bool(_CAPTION.match(sent.text))),
        float(_captions_asked(sent.text, q)),
        float(own),
        near if prof.numeric else 0.0,
        new,
        len(held) / max(1, len(sent.terms)),
        cosine(q, sent.text, m) if cos is None else cos,
    ]


def _plain_words(text: str) -> list[str]:
    """Whitespace words without surrounding punctuation ("7.4%" and "9.1" stay whole)."""
    return [w.strip("()[]{},;:.!?\"'") for w in text.split()]


# A quantity spelt in words as papers write large counts: a number word and its magnitude ("one billion",
# "nine million", "a few thousand" is no quantity). A number word alone ("two encoders") stays a word.
_NUMBER_WORDS = frozenset("""one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty
    forty fifty sixty seventy eighty ninety hundred several""".split())
_MAGNITUDES = frozenset("hundred thousand million billion trillion".split())


def stated_values(text: str) -> list[tuple[int, str]]:
    """(word position, value) of each quantity the text states (see ``_INDEX_WORDS``), in digits or as a
    number word with its magnitude ("one billion", :data:`_MAGNITUDES`)."""
    ws = _plain_words(text)
    out = [(i, w) for i, w in enumerate(ws)
           if re.fullmatch(r"[$~]?\d+(?:[.,]\d+)*(?:%|x|×|k|K|M|B|GB|-bit|-shot)?", w)
           and not (i and ws[i - 1].lower().rstrip(".") in _INDEX_WORDS)]
    out += [(i, f"{w.lower()} {ws[i + 1].lower()}") for i, w in enumerate(ws[:-1])
            if w.lower() in _NUMBER_WORDS and ws[i + 1].lower() in _MAGNITUDES]
    return sorted(out)


def value_features(text: str, question: str, terms: set[str]) -> tuple[float, float]:
    """(nearness, new) for the stated values the question does not already hold: nearness is
    1/(1 + words between such a value and the nearest of the question's ``terms`` in the same clause)
    (0 when none shares a clause), new is 1 when there is such a value at all.

    "KESTREL lowers the word error rate from 9.1% to 7.4%" states the asked value in the clause of
    the asked noun; "training takes 6 hours, and the error rate drops" has a value in another
    clause; a sentence that only names the measure (a set-up sentence) scores 0 on both."""
    asked = {w for _, w in stated_values(question)}
    values = [(i, w) for i, w in stated_values(text) if w not in asked]
    if not values:
        return 0.0, 0.0
    ws, clause, k = _plain_words(text), [], 0
    for raw in text.split():
        clause.append(k)
        k += raw.endswith((",", ";", ":")) or raw.lower() in ("while", "whereas", "but")
    at = [i for i, w in enumerate(ws) if any(stem(p) in terms for p in {w.lower(), *w.lower().split("-")})]
    gaps = [max(0, abs(i - j) - 1) for i, _ in values for j in at if clause[i] == clause[j]]
    return (1.0 / (1 + min(gaps)) if gaps else 0.0), 1.0


def _captions_asked(text: str, question: str) -> bool:
    """The sentence is the caption (or a row) of a figure or table the question names by number."""
    asked = {(k.lower()[:3], n) for k, n in _FLOAT_REF.findall(question)}
    head = re.match(r"^(?:In )?(fig(?:ure|\.)?|table)\s*(\d+)\b", text, re.I)
    return bool(head and (head.group(1).lower()[:3], head.group(2)) in asked
                and (_CAPTION.match(text) or text.startswith("In ")))


def _arrays(m: dict) -> tuple:
    """The weights as numpy arrays, built once per weights dict (kept in it under ``_np``)."""
    if "_np" not in m:
        h = m.get("hidden")
        m["_np"] = (np.asarray(m["mean"], dtype=np.float64), np.asarray(m["scale"], dtype=np.float64),
                    np.asarray(m["weights"], dtype=np.float64),
                    (np.asarray(h["weights"], dtype=np.float64), np.asarray(h["bias"], dtype=np.float64)) if h else None)
    return m["_np"]


def probability(x: list[float], m: dict | None = None) -> float:
    """The model's probability for feature vector ``x`` (weights ``m``, default :func:`model`):
    logistic over the standardized features, through one ReLU hidden layer when the weights have
    one (``hidden``)."""
    m = m or model()
    mean, scale, weights, hidden = _arrays(m)
    z = (np.asarray(x, dtype=np.float64) - mean) / scale
    if hidden is not None:
        z = np.maximum(0.0, hidden[0] @ z + hidden[1])
    out = float(m["bias"] + weights @ z)
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, out))))


def score(sent: Sentence, prof: Profile, focus: set[str] | None = None, *, own: bool = False,
          question: str | None = None, m: dict | None = None) -> float:
    """The probability that ``sent`` answers the question of ``prof`` (or the ``focus`` terms of a
    step), by the weights ``m`` (default :func:`model`)."""
    return probability(features(sent, prof, focus, own=own, question=question, m=m), m)
