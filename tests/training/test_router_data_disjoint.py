"""The router's training data never copies an evaluation question, literally or as a near paraphrase.

Every text the router learns from (the questions and previous user turns of ``router_train.jsonl`` and
``router_heldout.jsonl``, and every template in ``training.data.router_templates`` and
``training.data.router_fullpaper`` and ``training.data.router_lineage``) is checked against
every question of the two dev sets (``shared/eval/realpapers/dev`` and ``shared/eval/fullpapers/dev``);
reading evaluation questions is allowed here, in a test that guards against them, and nowhere else.

Two checks:

- **A shared 4-word run.** Lower-cased word 4-grams, punctuation stripped. A 4-gram made only of
  English stop words ("and what does it", "is it in the") is ignored: it carries no content, so any two
  English questions may share one. A template's slot (``{m}``) splits the run, so only its literal words
  count. Chinese has no spaces, so a Han-character run of 6 (about three words) plays the same part.
- **An embedding near-neighbour.** The project's encoder (MiniLM, unit vectors), cosine above
  ``NEAR_COSINE`` = 0.85. Measured before choosing it: the nearest realpapers question to each
  fullpapers question (different papers, same domain, same kind of asker) reaches at most 0.80 for
  English (99th percentile 0.81 over both languages), and a dev question's nearest other dev question
  at most 0.77; a paraphrase that keeps the skeleton ("What were the two variants they compared?" beside
  "What two variants of it were compared?") scores 0.86–0.92. MiniLM's English vocabulary lacks most
  Chinese characters, so unrelated Chinese questions reach 0.87–0.95; the cosine check therefore
  covers Latin-script text only and Chinese relies on the character runs.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from training.data import router_fullpaper, router_lineage
from training.data import router_templates as T
from training.data.generate_router import HELDOUT_FILE, TRAIN_FILE, read_jsonl
from tests.support.extras import needs

pytestmark = needs("train")  # scikit-learn's stop words

REPO = Path(__file__).resolve().parents[2]
DEV_SETS = ("realpapers", "fullpapers")
NEAR_COSINE = 0.85
ZH_RUN = 6
_WORD = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_SLOT = re.compile(r"\{[^{}]*\}")


def _shared_dir() -> Path | None:
    """``shared/`` beside the checkout (CI), or beside the main checkout when this is a worktree."""
    for base in (REPO.parent, REPO.parent.parent):
        if (base / "shared" / "eval").is_dir():
            return base / "shared"
    return None


def _dev_questions() -> list[str]:
    shared = _shared_dir()
    files = [shared / "eval" / s / "dev" / "questions.jsonl" for s in DEV_SETS] if shared else []
    if not files or not all(f.exists() for f in files):
        pytest.skip("the dev sets (shared/eval/*/dev) are not checked out beside the repo")
    return [row["question"] for f in files for row in read_jsonl(f)]


def _training_texts() -> list[str]:
    texts: set[str] = set()
    for path in (TRAIN_FILE, HELDOUT_FILE):
        for row in read_jsonl(path):
            texts.add(row["question"])
            texts.update(turn["content"] for turn in row["history"] if turn["role"] == "user")
    for by_lang in (*T.TEMPLATES.values(), T.HISTORY_QUESTIONS):  # label → language → (train, held-out)
        for splits in by_lang.values():
            for templates in splits:
                texts.update(templates)
    texts.update(router_fullpaper.templates())
    texts.update(router_lineage.templates())
    return sorted(texts)


@lru_cache(maxsize=1)
def _stop_words() -> frozenset[str]:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def word_runs(text: str, n: int = 4) -> set[str]:
    """Content-bearing lower-case word n-grams; a template slot breaks a run."""
    runs: set[str] = set()
    stop = _stop_words()
    for piece in _SLOT.split(text.lower()):
        words = _WORD.findall(piece)
        for i in range(len(words) - n + 1):
            gram = words[i:i + n]
            if not all(w in stop for w in gram):
                runs.add(" ".join(gram))
    return runs


def han_runs(text: str, n: int = ZH_RUN) -> set[str]:
    """Runs of n consecutive Han characters (no slot, punctuation or Latin word inside)."""
    runs: set[str] = set()
    for piece in re.split(r"[^\u4e00-\u9fff]+", _SLOT.sub("|", text)):
        runs.update(piece[i:i + n] for i in range(len(piece) - n + 1))
    return runs


def literal_overlaps(training: list[str], dev: list[str]) -> dict[str, tuple[str, str]]:
    """Dev question → (a training text, the shared run) for every dev question a training text copies."""
    index: dict[str, str] = {}
    for text in training:
        for run in word_runs(text) | han_runs(text):
            index.setdefault(run, text)
    found: dict[str, tuple[str, str]] = {}
    for question in dev:
        for run in sorted(word_runs(question) | han_runs(question)):
            if run in index:
                found[question] = (index[run], run)
                break
    return found


def near_neighbours(training: list[str], dev: list[str]) -> dict[str, tuple[str, float]]:
    """Dev question → (nearest training text, cosine) where the cosine exceeds NEAR_COSINE (Latin script only)."""
    from core.embeddings import embed

    train = [t for t in training if not _HAN.search(t) and not _SLOT.search(t)]
    questions = [q for q in dev if not _HAN.search(q)]
    sims = embed(questions) @ embed(train).T
    best = sims.argmax(axis=1)
    return {q: (train[j], round(float(sims[i, j]), 3)) for i, (q, j) in enumerate(zip(questions, best))
            if sims[i, j] > NEAR_COSINE}


def test_checks_catch_a_copy_and_spare_an_unrelated_question():
    """The two checks are live: a skeleton copy is caught, a different question of the domain is not."""
    dev = ["What do the collection's vision papers say about the role of augmentation?"]
    assert literal_overlaps(["What do the collection's {area} papers say about the role of {aspect}?"], dev)
    assert not literal_overlaps(["Which optimizer does {m} use, and is it also the one in {m2}?"], dev)
    assert not literal_overlaps(["and what is it for"], ["So, and what is it?"])  # stop words only
    assert literal_overlaps(["{m} 在哪些基准上取得了最好结果？"], ["它在哪些基准上取得了最好结果"])
    near = near_neighbours(["What were the two variants they compared?", "How was the tokenizer trained?"],
                           ["What two variants of it were compared?", "Which venue published the survey?"])
    assert list(near) == ["What two variants of it were compared?"]


@pytest.mark.slow
def test_router_training_data_shares_no_run_with_a_dev_question():
    dev = _dev_questions()
    found = literal_overlaps(_training_texts(), dev)
    lines = [f"{q!r} ← {t!r} (shares {r!r})" for q, (t, r) in sorted(found.items())]
    assert not found, f"{len(found)} dev questions share a run with router training text:\n" + "\n".join(lines[:40])


@pytest.mark.slow
def test_router_training_data_has_no_near_neighbour_of_a_dev_question():
    dev = _dev_questions()
    found = near_neighbours(_training_texts(), dev)
    lines = [f"{q!r} ~ {t!r} (cosine {c})" for q, (t, c) in sorted(found.items())]
    assert not found, f"{len(found)} dev questions have a near-neighbour in router training text:\n" + "\n".join(lines)


def test_embedding_rows_are_unit_vectors():
    """The cosine above is a dot product only because the encoder returns unit vectors."""
    from core.embeddings import embed

    vecs = embed(["How was the tokenizer trained?", "Which venue published the survey?"])
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-3)
