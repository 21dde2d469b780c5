"""Train the offline brain's sentence scorer (:mod:`core.brains.offline.scorer`) and write its weights.

Each group of :mod:`training.data.generate_scorer` (a question, the sentence that answers it, hard
negatives) goes through the brain's own path: the question's :func:`profile`, the candidates'
:func:`sentence_pool` (IDF weights over the pool), then :func:`features`. A pairwise logistic ranker on
the standardized features (the answer against each negative of its group), Platt-scaled to a
probability, is fitted on the training groups; the held-out groups (unseen papers)
give top-1 accuracy (the answering sentence ranked first) and MRR. ``--no-cosine`` fits the
lexical features alone, to measure what the MiniLM similarity adds.

``python -m training.scorer_train`` regenerates the data when missing, trains, prints the
held-out numbers and writes ``core/models/sentence_scorer.json``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from core.brains.offline import scorer
from core.brains.offline.evidence import profile, sentence_pool
from core.types import RetrievedContext
from training.data.generate_scorer import DEFAULT_SEED, HELDOUT_FILE, SYNTHETIC_PAPERS, TRAIN_FILE, main as generate
from training.data.scorer_questions import short_name


def load(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def group_pool(group: dict):
    """(profile, pool, labels, own-paper flag) of one group's candidates as the brain would see them, or None."""
    q = group["question"]
    prof = profile(q)
    own_named = short_name(group["title"]).lower() in q.lower()
    chunks: dict[str, list[dict]] = {}
    for c in group["candidates"]:
        chunks.setdefault(c["chunk"], []).append(c)
    contexts = [RetrievedContext(content="\n".join(c["text"] for c in cs), chunk_id=cid,
                                 title=group["title"] if cs[0]["own"] else "",
                                 source=(group["paper"].split(":")[-1] + ".md") if cs[0]["own"] else "")
                for cid, cs in chunks.items()]
    is_own = [cs[0]["own"] for cs in chunks.values()]
    pool = sentence_pool(contexts, prof, only_relevant=False)
    answer = next(c["text"] for c in group["candidates"] if c["label"])
    labels = np.array([int(s.text == answer and is_own[s.ctx]) for s in pool])
    if labels.sum() != 1 or len(pool) < 2:
        return None
    return prof, pool, labels, [own_named and is_own[s.ctx] for s in pool]


def matrices(groups: list[dict], *, cosine: bool = True) -> list[tuple[np.ndarray, np.ndarray]]:
    """(features, labels) per usable group; the MiniLM vectors of all texts are computed in one batch."""
    pools = [p for p in map(group_pool, groups) if p is not None]
    vec: dict[str, np.ndarray] = {}
    if cosine:
        from core.embeddings import embed

        texts = list(dict.fromkeys(t for prof, pool, _, _ in pools for t in [prof.question, *(s.text for s in pool)]))
        vec = dict(zip(texts, embed(texts, batch_size=128)))
    out = []
    for prof, pool, labels, owns in pools:
        sims = [float(vec[s.text] @ vec[prof.question]) if cosine else 0.0 for s in pool]
        rows = [scorer.features(s, prof, own=o, cos=c) for s, o, c in zip(pool, owns, sims)]
        out.append((np.array(rows, dtype=np.float64), labels))
    return out


def ranking(groups: list[tuple[np.ndarray, np.ndarray]], score) -> dict:
    """Top-1 accuracy and MRR of ``score`` (rows → scores) over held-out groups."""
    top1, rr = [], []
    for x, y in groups:
        s = score(x)
        order = np.argsort(-s, kind="stable")
        rank = int(np.where(y[order] == 1)[0][0]) + 1
        top1.append(rank == 1)
        rr.append(1.0 / rank)
    return {"groups": len(groups), "top1": round(float(np.mean(top1)), 4), "mrr": round(float(np.mean(rr)), 4)}


def fit_pointwise(train: list[tuple[np.ndarray, np.ndarray]], c: float = 1.0) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Logistic regression on each candidate (answers weighted up to balance the classes)."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([m[0] for m in train])
    y = np.concatenate([m[1] for m in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    clf = LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit((x - mean) / scale, y)
    return clf.coef_[0], float(clf.intercept_[0]), mean, scale


def fit_pairwise(train: list[tuple[np.ndarray, np.ndarray]], c: float = 1.0) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Pairwise logistic ranking (answer minus each negative of its group, on standardized
    features), then Platt scaling of the ranking score on all candidates so the score reads as a
    probability. Returns (weights, bias, mean, scale)."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([m[0] for m in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    diffs = []
    for xs, y in train:
        z = (xs - mean) / scale
        pos = z[y == 1][0]
        diffs += [pos - neg for neg in z[y == 0]]
    d = np.array(diffs)
    pairs = np.vstack([d, -d])
    labels = np.concatenate([np.ones(len(d)), np.zeros(len(d))])
    w = LogisticRegression(C=c, fit_intercept=False, max_iter=2000).fit(pairs, labels).coef_[0]
    z = ((x - mean) / scale) @ w
    y = np.concatenate([m[1] for m in train])
    platt = LogisticRegression(max_iter=2000).fit(z.reshape(-1, 1), y)
    a, b = float(platt.coef_[0][0]), float(platt.intercept_[0])
    return a * w, b, mean, scale


def run(*, cosine: bool = True, write: bool = True, objective: str = "pointwise") -> dict:
    if not TRAIN_FILE.exists() or not HELDOUT_FILE.exists():
        generate()
    t0 = time.time()
    train, held = matrices(load(TRAIN_FILE), cosine=cosine), matrices(load(HELDOUT_FILE), cosine=cosine)
    weights, bias, mean, scale = (fit_pairwise if objective == "pairwise" else fit_pointwise)(train)
    learned = ranking(held, lambda x: ((x - mean) / scale) @ weights + bias)
    coverage = ranking(held, lambda x: x[:, 0] + 1e-3 * x[:, scorer.FEATURES.index("position")])
    report = {"heldout": learned, "heldout_coverage_only": coverage, "train_groups": len(train),
              "seconds": round(time.time() - t0, 1)}
    print(json.dumps(report, indent=1))
    if write:
        data = {
            "features": list(scorer.FEATURES), "weights": [round(float(w), 6) for w in weights],
            "bias": round(float(bias), 6), "mean": [round(float(v), 6) for v in mean],
            "scale": [round(float(v), 6) for v in scale], "uses_cosine": cosine, "objective": objective,
            "trained_on": {"generator": "training.data.generate_scorer", "seed": DEFAULT_SEED,
                           "synthetic_papers": SYNTHETIC_PAPERS, "train_groups": len(train), "heldout_groups": len(held)},
            "heldout": learned,
        }
        scorer.WEIGHTS_FILE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {scorer.WEIGHTS_FILE}")
    return report


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-cosine", action="store_true", help="lexical features only (no MiniLM similarity)")
    ap.add_argument("--dry-run", action="store_true", help="report held-out numbers without writing the weights")
    ap.add_argument("--objective", choices=("pointwise", "pairwise"), default="pointwise",
                    help="pointwise (default: better on the abstract dev set) or pairwise ranking (better on the generated held-out groups)")
    args = ap.parse_args(argv)
    run(cosine=not args.no_cosine, write=not args.dry_run, objective=args.objective)


if __name__ == "__main__":
    main()
