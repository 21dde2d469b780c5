"""Train the offline brain's sentence scorer (:mod:`core.brains.offline.scorer`) and write its weights.

Each group of :mod:`training.data.generate_scorer` (a question, the sentence that answers it, hard
negatives) goes through the brain's own path: the question's :func:`profile`, the candidates'
:func:`sentence_pool` (IDF weights over the pool), then :func:`features`. A model on the
standardized features is fitted on the training groups: a one-hidden-layer network (``mlp``, the
default), listwise ranking (softmax over each group), pointwise logistic regression or pairwise
logistic ranking; the ranking objectives are Platt-scaled to a probability. The held-out groups
(unseen papers) give top-1 accuracy (the answering sentence ranked first) and MRR, overall and per question source (structural or LLM-written), beside two
references on the same groups: term coverage alone and the hand-set rules the scorer replaced
(:func:`rules_score`). ``--no-cosine`` fits the lexical features alone; ``--llm-weight`` weighs the
LLM-written groups in training.

``python -m training.scorer_train`` regenerates the data when missing, trains, prints the
held-out numbers and writes ``core/models/sentence_scorer.json`` (with the direct answer's length
share calibrated for the new weights, :mod:`training.scorer_lead`); the comparison-cell weights are the
same model with the cosine and the comparison-cell groups, ``--sides --out core/models/side_scorer.json``
(see that file's ``trained_on``).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from core.brains.offline import scorer
from core.brains.offline.evidence import Profile, Sentence, dim_hits, profile, sentence_pool, subject
from core.brains.offline.lexicon import mention_pattern, mentions
from core.types import RetrievedContext
from core.vocabulary import DocumentText, Vocabulary
from core.vocabulary import build as build_vocabulary
from training.data.generate_scorer import DEFAULT_SEED, HELDOUT_FILE, SYNTHETIC_PAPERS, TRAIN_FILE, main as generate
from training.data.scorer_questions import short_name


def load(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def rules_score(sent: Sentence, prof: Profile) -> float:
    """The hand-set relevance the learned scorer replaced (kept here only as the reference it must beat)."""
    v = float(sum(prof.weights.get(t, 1.0) for t in prof.key_terms if t in sent.terms))
    v += 1.5 * sum(prof.weights.get("@" + e, 1.0) for e in prof.entities if e in sent.about or mentions(sent.text, e, prof.vocab))
    subj = subject(sent, prof.vocab)
    about_main = subj is not None and bool(prof.entities) and subj == prof.entities[0]
    v += 1.5 * prof.weights.get("@" + subj, 1.0) if about_main else 0.0
    v -= 0.6 * max(0, len(sent.about) - 2)
    v += sum(min(dim_hits(sent.text, d), 2) for d in prof.dimensions)
    v += 1.0 if prof.numeric and any(c.isdigit() for c in sent.text) else 0.0
    if prof.definitional and (about_main or not prof.entities) and scorer._DEFINITION.search(sent.text):
        v += 1.5
    if prof.definitional and prof.entities and mention_pattern(prof.entities[0], prof.vocab).match(sent.text):
        v += 0.5
    return v - 0.03 * max(0, len(sent.terms) - 25) + 0.5 / (1 + sent.pos) + 0.1 / (1 + sent.ctx)


def vocabulary_of(group: dict):
    """The vocabulary the brain would have for a collection holding the group's paper (its title
    and text): its short name is a recognized name, as it is at run time."""
    own = [c["text"] for c in group["candidates"] if c["own"]]
    return build_vocabulary([DocumentText(group["title"], 0, [], own)])


def group_pool(group: dict, vocab: Vocabulary):
    """(profile, pool, labels, own-paper flag) of one group's candidates as the brain would see them over
    ``vocab``, or None."""
    q = group["question"]
    prof = profile(q, vocab=vocab)
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


def matrices(groups: list[dict], *, cosine: bool = True, named: bool = False) -> list[tuple[np.ndarray, np.ndarray, str, np.ndarray]]:
    """(features, labels, source, hand-rule scores) per usable group; the MiniLM vectors of all
    texts are computed in one batch. ``named``: each group is read under its paper's vocabulary
    (:func:`vocabulary_of`), so an invented paper's name counts as a name, as in a collection."""
    vocabs = [vocabulary_of(g) if named else Vocabulary() for g in groups]
    kept = []
    for g, v in zip(groups, vocabs):
        p = group_pool(g, v)
        if p is not None:
            kept.append((p, g.get("source", "structural")))
    pools = [p for p, _ in kept]
    vec: dict[str, np.ndarray] = {}
    if cosine:
        from core.embeddings import embed

        texts = list(dict.fromkeys(t for prof, pool, _, _ in pools for t in [prof.question, *(s.text for s in pool)]))
        vec = dict(zip(texts, embed(texts, batch_size=128)))
    out = []
    for (prof, pool, labels, owns), (_, source) in zip(pools, kept):
        sims = [float(vec[s.text] @ vec[prof.question]) if cosine else 0.0 for s in pool]
        rows = [scorer.features(s, prof, own=o, cos=c) for s, o, c in zip(pool, owns, sims)]
        rules = [rules_score(s, prof) for s in pool]
        out.append((np.array(rows, dtype=np.float64), labels, source, np.array(rules)))
    return out


def ranking(groups: list[tuple], score, source: str | None = None) -> dict:
    """Top-1 accuracy and MRR of ``score`` (group → scores) over held-out groups (of one source)."""
    top1, rr = [], []
    for g in groups:
        if source and g[2] != source:
            continue
        y = g[1]
        s = score(g)
        order = np.argsort(-s, kind="stable")
        rank = int(np.where(y[order] == 1)[0][0]) + 1
        top1.append(rank == 1)
        rr.append(1.0 / rank)
    return {"groups": len(top1), "top1": round(float(np.mean(top1)), 4) if top1 else None,
            "mrr": round(float(np.mean(rr)), 4) if rr else None}


def _weights(train: list[tuple], llm_weight: float) -> np.ndarray:
    return np.concatenate([np.full(len(m[1]), llm_weight if m[2] == "llm" else 1.0) for m in train])


def fit_pointwise(train: list[tuple], c: float = 1.0, llm_weight: float = 1.0) -> dict:
    """Logistic regression on each candidate (answers weighted up to balance the classes)."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([m[0] for m in train])
    y = np.concatenate([m[1] for m in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    clf = LogisticRegression(C=c, class_weight="balanced", max_iter=2000).fit((x - mean) / scale, y,
                                                                             sample_weight=_weights(train, llm_weight))
    return {"weights": clf.coef_[0], "bias": float(clf.intercept_[0]), "mean": mean, "scale": scale}


def fit_mlp(train: list[tuple], llm_weight: float = 1.0, hidden: int = 8, seed: int = 0, bag: int = 5) -> dict:
    """One-hidden-layer ReLU networks on the standardized features (negatives subsampled per group to
    balance the classes; LLM-written groups repeated ``llm_weight`` times, rounded), ``bag`` of them
    with seeds ``seed``.. averaged: the mean of their log-odds is itself one network with all their
    hidden units, so the brain runs it as one (and one seed's luck does not pick the model)."""
    from sklearn.neural_network import MLPClassifier

    x = np.vstack([m[0] for m in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    hw, hb, ow, ob = [], [], [], []
    for k in range(seed, seed + bag):
        rng = np.random.default_rng(k)
        xs, ys = [], []
        for m in train:
            for _ in range(max(1, round(llm_weight)) if m[2] == "llm" else 1):
                pos = np.where(m[1] == 1)[0]
                idx = np.concatenate([pos, pos, pos, pos, rng.permutation(np.where(m[1] == 0)[0])[:4]])
                xs.append((m[0][idx] - mean) / scale)
                ys.append(m[1][idx])
        clf = MLPClassifier(hidden_layer_sizes=(hidden,), alpha=1e-3, max_iter=800, random_state=k)
        clf.fit(np.vstack(xs), np.concatenate(ys))
        hw.append(clf.coefs_[0].T)
        hb.append(clf.intercepts_[0])
        ow.append(clf.coefs_[1][:, 0] / bag)
        ob.append(float(clf.intercepts_[1][0]) / bag)
    return {"weights": np.concatenate(ow), "bias": sum(ob), "mean": mean, "scale": scale,
            "hidden": {"weights": np.vstack(hw), "bias": np.concatenate(hb)}}


def fit_pairwise(train: list[tuple], c: float = 1.0, llm_weight: float = 1.0) -> dict:
    """Pairwise logistic ranking (answer minus each negative of its group, on standardized
    features), then Platt scaling of the ranking score on all candidates so the score reads as a
    probability. Returns (weights, bias, mean, scale)."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([m[0] for m in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    diffs = []
    for xs, y, source, _ in train:
        z = (xs - mean) / scale
        pos = z[y == 1][0]
        diffs += [pos - neg for neg in z[y == 0]] * (max(1, round(llm_weight)) if source == "llm" else 1)
    d = np.array(diffs)
    pairs = np.vstack([d, -d])
    labels = np.concatenate([np.ones(len(d)), np.zeros(len(d))])
    w = LogisticRegression(C=c, fit_intercept=False, max_iter=2000).fit(pairs, labels).coef_[0]
    z = ((x - mean) / scale) @ w
    y = np.concatenate([m[1] for m in train])
    platt = LogisticRegression(max_iter=2000).fit(z.reshape(-1, 1), y)
    a, b = float(platt.coef_[0][0]), float(platt.intercept_[0])
    return {"weights": a * w, "bias": b, "mean": mean, "scale": scale}


def fit_listwise(train: list[tuple], l2: float = 0.1, llm_weight: float = 1.0) -> dict:
    """Listwise ranking: a linear score whose softmax over each group puts its mass on the answer
    (cross-entropy, L2 ``l2``, LLM-written groups weighted ``llm_weight``), then Platt scaling on
    all candidates so the score reads as a probability."""
    from scipy.optimize import minimize
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([m[0] for m in train])
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    groups = [((m[0] - mean) / scale, int(np.argmax(m[1])), llm_weight if m[2] == "llm" else 1.0) for m in train]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = l2 * float(w @ w), 2 * l2 * w
        for z, pos, wt in groups:
            s = z @ w
            p = np.exp(s - s.max())
            p /= p.sum()
            f -= wt * float(np.log(p[pos] + 1e-12))
            g = g - wt * (z[pos] - p @ z)
        return f, g

    w = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B").x
    y = np.concatenate([m[1] for m in train])
    platt = LogisticRegression(max_iter=2000).fit((((x - mean) / scale) @ w).reshape(-1, 1), y)
    return {"weights": float(platt.coef_[0][0]) * w, "bias": float(platt.intercept_[0]), "mean": mean, "scale": scale}


def logit(fit: dict, x: np.ndarray) -> np.ndarray:
    """The fitted model's log-odds for rows ``x`` (as :func:`core.brains.offline.scorer.probability` computes them)."""
    z = (x - fit["mean"]) / fit["scale"]
    if "hidden" in fit:
        z = np.maximum(0.0, z @ fit["hidden"]["weights"].T + fit["hidden"]["bias"])
    return z @ fit["weights"] + fit["bias"]


def _rounded(v) -> list:
    return np.round(np.asarray(v, dtype=np.float64), 6).tolist()


def run(*, cosine: bool = True, write: bool = True, objective: str = "mlp", llm_weight: float = 1.0, seed: int = 0,
        out=None, sides: bool = False, named: bool = False) -> dict:
    if not TRAIN_FILE.exists() or not HELDOUT_FILE.exists():
        generate()
    t0 = time.time()
    train_groups, held_groups = load(TRAIN_FILE), load(HELDOUT_FILE)
    if sides:  # comparison-cell groups (training.data.generate_sides), for the cells' weights
        from training.data.generate_sides import build as side_groups

        side_train, side_held = side_groups()
        train_groups, held_groups = train_groups + side_train, held_groups + side_held
    train, held = matrices(train_groups, cosine=cosine, named=named), matrices(held_groups, cosine=cosine, named=named)
    fitter = {"pointwise": fit_pointwise, "pairwise": fit_pairwise, "listwise": fit_listwise, "mlp": fit_mlp}[objective]
    fit = fitter(train, llm_weight=llm_weight, **({"seed": seed} if objective == "mlp" else {}))
    cov = scorer.FEATURES.index("coverage"), scorer.FEATURES.index("position")
    scorers = {"learned": lambda g: logit(fit, g[0]), "coverage_only": lambda g: g[0][:, cov[0]] + 1e-3 * g[0][:, cov[1]],
               "hand_rules": lambda g: g[3]}
    report = {name: {src or "all": ranking(held, f, src) for src in (None, "structural", "llm", *(("side",) if sides else ()))}
              for name, f in scorers.items()}
    report.update(train_groups=len(train), train_llm_groups=sum(m[2] == "llm" for m in train),
                  objective=objective, llm_weight=llm_weight, seed=seed, seconds=round(time.time() - t0, 1))
    print(json.dumps(report, indent=1))
    if write:
        data = {
            "features": list(scorer.FEATURES), "weights": _rounded(fit["weights"]), "bias": round(fit["bias"], 6),
            "mean": _rounded(fit["mean"]), "scale": _rounded(fit["scale"]), "uses_cosine": cosine, "objective": objective,
            "trained_on": {"generator": "training.data.generate_scorer", "seed": DEFAULT_SEED,
                           "synthetic_papers": SYNTHETIC_PAPERS, "train_groups": len(train),
                           "train_llm_groups": report["train_llm_groups"], "llm_weight": llm_weight, "fit_seed": seed,
                           "heldout_groups": len(held), "side_groups": sides and {
                               "generator": "training.data.generate_sides", "seed": DEFAULT_SEED + 1,
                               "train": sum(m[2] == "side" for m in train), "heldout": sum(m[2] == "side" for m in held),
                               "named": named}},
            "heldout": report["learned"]["all"], "heldout_by_source": report["learned"],
            "heldout_references": {"coverage_only": report["coverage_only"], "hand_rules": report["hand_rules"]},
        }
        if "hidden" in fit:
            data["hidden"] = {"weights": _rounded(fit["hidden"]["weights"]), "bias": _rounded(fit["hidden"]["bias"])}
        if not sides:  # the direct answer's length, calibrated for these weights (training.scorer_lead)
            from training.scorer_lead import calibrate, calibration_groups

            data["lead"] = calibrate(calibration_groups(train_groups, held_groups), dict(data))
        out = out or scorer.WEIGHTS_FILE
        out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {out}")
    return report


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-cosine", action="store_true", help="lexical features only (no MiniLM similarity)")
    ap.add_argument("--dry-run", action="store_true", help="report held-out numbers without writing the weights")
    ap.add_argument("--objective", choices=("mlp", "listwise", "pointwise", "pairwise"), default="mlp",
                    help="a one-hidden-layer network (default: best answer-first gold on the abstract dev set), "
                         "listwise ranking (best held-out top-1), pointwise logistic, or pairwise ranking")
    ap.add_argument("--llm-weight", type=float, default=1.0, help="weight of the LLM-written training groups")
    ap.add_argument("--seed", type=int, default=0, help="the first of the networks' initialisation and sampling seeds")
    ap.add_argument("--out", type=Path, default=None, help="where to write the weights (default: the scorer's file)")
    ap.add_argument("--sides", action="store_true", help="add the comparison-cell groups (training.data.generate_sides)")
    ap.add_argument("--named", action="store_true", help="read each group under its paper's vocabulary (see matrices)")
    args = ap.parse_args(argv)
    run(cosine=not args.no_cosine, write=not args.dry_run, objective=args.objective, llm_weight=args.llm_weight, seed=args.seed,
        out=args.out, sides=args.sides, named=args.named)


if __name__ == "__main__":
    main()
