"""Train the offline critic's learned verdict and evidence gate (:mod:`core.brains.offline.verdict`).

Data: :mod:`training.data.generate_verdict` (drafts built from the sentence scorer's question groups:
training abstracts, the bundled corpus, invented papers; never evaluation text), split by paper.

1. Fit a logistic model on the training rows' standardized features. Each draft the brain composes
   itself (a direct answer, an overview, a chain) weighs ``--composed-weight`` (default 5) against 1
   for a constructed contrast: the critic judges composed drafts in use, and their misses (the
   scorer's own wrong pick) are the hard ones (held-out composed AUC, uniform vs 5: 0.77 vs 0.83 on
   one-paragraph drafts alone; 0.920 vs 0.926 with the overviews and chains). The direct answers the
   brain composes when retrieval missed the answering sentence (``composed_unretrieved``, all misses)
   are composed drafts too: they give the fit most of its realistic misses.
2. Calibrate it on the held-out composed drafts (Platt scaling of its decision value, folded into the
   weights, so the file stays one logistic model and its probability reads as "this draft answers").
3. Choose the pass threshold on the held-out *composed* drafts (what the brain itself writes): the
   highest threshold that still passes ``--hit-pass`` of the drafts that answer.
4. Choose the evidence gate's threshold on the held-out gate pairs: the highest strength that still
   keeps ``--false-no-evidence`` or fewer of the answerable questions from being declined.
5. Fit the evidence gate's own model the same way (same features, its own weights) on the gate's
   drafts only (the best retrieved sentence as a one-sentence answer), labelled by whether the
   question's paper was retrieved: the gate asks "is there evidence at all?", and the critic judges
   the answer afterwards. A separate model keeps the critic's verdict calibrated for the drafts the
   brain writes. Its threshold (the gate's draft must reach it when no chunk is lexically on topic)
   is the highest that still passes ``--gate-hit-pass`` of the held-out gate drafts with the paper
   (default 0.97: the issue's false "no evidence" budget is 0.03 of answerable questions); its pass
   rate without the paper is reported. ``--gate-pass`` sets it by hand instead.

6. Fit the prose model the same way on the brain's own overviews and chains only (judged, as the
   critic judges them, on all their prose; composed with and without the answering sentence in the
   evidence). Its threshold is the highest that passes ``--hit-pass`` of the held-out prose drafts that
   answer. One-paragraph drafts taught the verdict nothing about long many-sentence prose: it rated
   nearly every overview and chain a pass. A model of their own keeps the verdict's scores of
   one-paragraph drafts and comparisons as they were.

7. ``--direct-only`` fits the direct-answer model (``direct_model``) alone: one-paragraph drafts judged
   with the features that do not come from the sentence scorer (a new or echoed number, a lead from
   another paper, the question's words met only outside the lead), and the drafts composed without the
   answering sentence. Comparison rows keep the shared verdict block: a refit of it failed correct rows.

8. ``--row-only`` fits the comparison-row model (``row_model``) alone, on its own generated rows
   (:func:`training.data.generate_verdict.comparison_rows`: tables the brain composed for two named
   papers, the asked paper's row judged). A full retrain does not carry it over. None ships (the README,
   "Session 23"): comparison rows are judged by the shared verdict block.

``--prose-only`` fits the prose model alone and keeps the shipped verdict and gate (the shipped file was
made so: ``--prose-only --hit-pass 0.95``). ``--keep-gate`` refits the verdict alone and keeps the shipped evidence gate (its model and both
thresholds), so "no evidence" decisions do not move. ``python -m training.critic_verdict_train`` regenerates the data when missing (``--regenerate`` to
force it, e.g. after the sentence scorer changed; with ``--gate-only`` only the gate's drafts are
generated, into their own files, about a third of the work), prints the held-out numbers and writes
``core/models/critic_verdict.json``. Not to be confused with ``paperpilot train critic`` (the SmolLM2
DPO critic).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

import numpy as np

from core.brains.offline import verdict
from training.critic_verdict_fit import (COMPOSED_PREFIX, COMPOSED_WEIGHT, GATE_KINDS, as_model, auc,
                                         composed_mask, ece, fit, load, pass_threshold, predict, rates, split)
from training.data import generate_verdict
from training.data.generate_scorer import DEFAULT_SEED, SYNTHETIC_PAPERS



def _by_form(held: list[dict], pg: np.ndarray, t: float) -> dict:
    """The gate's held-out pass rates per question form (one paper, comparison, two-part, one side
    of two), with and without the question's paper: ``pg`` follows ``split(held, "verdict", gate=True)``."""
    sub = [r for r in held if r["task"] == "verdict" and r.get("kind") in GATE_KINDS]
    out: dict = {}
    for form in sorted({r.get("form", "one_paper") for r in sub}):
        for kind in GATE_KINDS:
            idx = [i for i, r in enumerate(sub) if r.get("form", "one_paper") == form and r["kind"] == kind]
            if idx:
                out[f"{form}/{kind}"] = {"pass": round(float((pg[idx] >= t).mean()), 4), "n": len(idx)}
    return out


GATE_HIT_PASS = 0.97  # the false "no evidence" budget is 0.03 of answerable questions



def fit_gate(train: list[dict], held: list[dict], c: float, gate_pass: float | None,
             gate_hit_pass: float) -> tuple[dict, float, dict]:
    """The evidence gate's model, its calibrated threshold and its held-out report."""
    xg, _, tkinds = split(train, "verdict", gate=True)
    xgh, _, gkinds = split(held, "verdict", gate=True)
    # the gate asks "is there evidence at all?": its positives are the drafts with the question's paper retrieved
    yg, ygh = (np.array([k == "gate_own" for k in ks], dtype=int) for ks in (tkinds, gkinds))
    gate_model = fit(xg, yg, xgh, ygh, c)
    pg = predict(gate_model, xgh)
    own, other = np.array(gkinds) == "gate_own", np.array(gkinds) == "gate_other"
    if gate_pass is None:
        gate_pass = round(pass_threshold(pg[own], ygh[own], gate_hit_pass), 4)
    report = {
        "gate_pass_threshold": gate_pass,
        "gate_drafts_heldout": {"pass_with_the_paper": rates(pg[own], ygh[own], gate_pass)["pass_on_answers"],
                                "pass_without_the_paper": round(float((pg[other] >= gate_pass).mean()), 4)
                                if other.any() else None, "ece": ece(pg, ygh)},
        "gate_drafts_heldout_by_form": _by_form(held, pg, gate_pass),
        "gate_weights": dict(zip(verdict.FEATURES, (round(float(w), 3) for w in gate_model["weights"]))),
        "gate_rows": [len(xg), len(xgh)],
    }
    return gate_model, gate_pass, report


def fit_prose(train: list[dict], held: list[dict], c: float, hit_pass: float) -> tuple[dict, float, dict]:
    """The prose model (overviews and chains judged on all their prose), its pass threshold (the
    highest that passes ``hit_pass`` of the held-out prose drafts that answer) and its report."""
    x, y, _ = split(train, "verdict", gate=False, prose=True)
    xh, yh, kinds = split(held, "verdict", gate=False, prose=True)
    m = fit(x, y, xh, yh, c)
    p = predict(m, xh)
    t = round(pass_threshold(p, yh, hit_pass), 4)
    report = {"prose_heldout": {**rates(p, yh, t), "ece": ece(p, yh), "auc": auc(p, yh),
                                **{k: rates(p[np.array(kinds) == k], yh[np.array(kinds) == k], t) for k in sorted(set(kinds))}},
              "prose_pass_threshold": t, "prose_rows": [len(x), len(xh)],
              "prose_weights": dict(zip(verdict.FEATURES, (round(float(w), 3) for w in m["weights"])))}
    return m, t, report


def fit_direct(train: list[dict], held: list[dict], c: float, hit_pass: float,
               composed_weight: float) -> tuple[dict, float, dict]:
    """The direct-answer model (one-paragraph drafts: every non-prose, non-gate row, the drafts composed
    without the answering sentence among them), Platt-calibrated on the held-out drafts the brain
    composes from complete evidence, with its threshold the highest that passes ``hit_pass`` of those
    that answer: the probability keeps the scale of what the critic meets in use."""
    x, y, kinds = split(train, "verdict", gate=False, prose=False)
    return _fit_composed("direct", (x, y, kinds), split(held, "verdict", gate=False, prose=False), COMPOSED_PREFIX,
                         composed_mask(kinds), c, hit_pass, composed_weight)


def fit_row(train: list[dict], held: list[dict], c: float, hit_pass: float,
            composed_weight: float) -> tuple[dict, float, dict]:
    """The comparison-row model (``row_model``): rows of the tables the brain composed
    (:func:`training.data.generate_verdict.comparison_rows`), with and without the asked paper's
    answering sentence in the evidence, calibrated and thresholded as :func:`fit_direct` is, on the
    held-out rows composed from complete evidence."""
    x, y, kinds = split(train, "row")
    return _fit_composed("row", (x, y, kinds), split(held, "row"), generate_verdict.ROW_COMPOSED,
                         np.array(kinds) == generate_verdict.ROW_COMPOSED, c, hit_pass, composed_weight)


def _fit_composed(name: str, train: tuple, held: tuple, full_kind: str, weighted: np.ndarray, c: float,
                  hit_pass: float, composed_weight: float) -> tuple[dict, float, dict]:
    """A model fitted on ``train`` (x, y, kinds; the ``weighted`` rows weigh ``composed_weight``),
    Platt-calibrated on the held-out rows of kind ``full_kind`` (what the brain composes from complete
    evidence), its threshold the highest that passes ``hit_pass`` of those that answer, and its report
    (keys prefixed ``name``)."""
    (x, y, _), (xh, yh, hkinds) = train, held
    full = np.array([k == full_kind for k in hkinds])
    m = fit(x, y, xh, yh, c, np.where(weighted, composed_weight, 1.0), full.astype(float))
    p = predict(m, xh)
    t = round(pass_threshold(p[full], yh[full], hit_pass), 4)
    report = {f"{name}_heldout": {"composed": {**rates(p[full], yh[full], t), "ece": ece(p[full], yh[full]),
                                               "auc": auc(p[full], yh[full])},
                                  **{k: rates(p[np.array(hkinds) == k], yh[np.array(hkinds) == k], t)
                                     for k in sorted(set(hkinds))}},
              f"{name}_pass_threshold": t, f"{name}_rows": [len(x), len(xh)],
              f"{name}_weights": dict(zip(verdict.FEATURES, (round(float(w), 3) for w in m["weights"])))}
    return m, t, report


def _with_row(data: dict, m: dict, t: float, report: dict, hit_pass: float, composed_weight: float) -> dict:
    data = {**data, "row_model": as_model(m), "row_pass_threshold": t}
    data["trained_on"].update({"row_rows": report["row_rows"], "row_hit_pass": hit_pass,
                               "row_composed_weight": composed_weight, "row_pair_seed": generate_verdict.SEED + 2,
                               "row_kinds": [generate_verdict.ROW_COMPOSED, generate_verdict.ROW_UNRETRIEVED]})
    data["heldout"]["row_heldout"] = report["row_heldout"]
    return data


def _with_direct(data: dict, m: dict, t: float, report: dict, hit_pass: float, composed_weight: float) -> dict:
    """The direct-answer model and its threshold from generated drafts; a threshold calibrated on the
    tuning set for the old model (``training.critic_dev_calibrate``) no longer applies and is dropped."""
    data = {**data, "direct_model": as_model(m), "direct_pass_threshold": t}
    if data.pop("direct_dev_calibration", None) is not None:
        print("the direct threshold calibrated on dev was for the old model: rerun training.critic_dev_calibrate")
    data["trained_on"].update({"direct_rows": report["direct_rows"], "direct_hit_pass": hit_pass,
                               "direct_composed_weight": composed_weight,
                               "direct_kinds": "every one-paragraph draft, incl. " + generate_verdict.UNRETRIEVED})
    data["heldout"]["direct_heldout"] = report["direct_heldout"]
    return data


def _with_prose(data: dict, m: dict, t: float, report: dict, hit_pass: float) -> dict:
    data = {**data, "prose_model": as_model(m), "prose_pass_threshold": t}
    data["trained_on"].update({"prose_drafts": list(generate_verdict.PROSE_DRAFTS), "prose_rows": report["prose_rows"],
                               "prose_hit_pass": hit_pass})
    data["heldout"]["prose_heldout"] = report["prose_heldout"]
    return data


def run(*, write: bool = True, regenerate: bool = False, hit_pass: float = 0.88, false_no_evidence: float = 0.02,
        c: float = 1.0, gate_pass: float | None = None, gate_hit_pass: float = GATE_HIT_PASS,
        gate_only: bool = False, keep_gate: bool = False, composed_weight: float = COMPOSED_WEIGHT,
        prose_only: bool = False, direct_only: bool = False, row_only: bool = False) -> dict:
    train_file, held_file = generate_verdict.files(gate_only, rows_only=row_only)
    if regenerate or not train_file.exists() or not held_file.exists():
        generate_verdict.main(gate_only=gate_only, rows_only=row_only)
    train, held = load(train_file), load(held_file)
    if row_only:  # keep every other model; add or replace the comparison-row model
        m, t, report = fit_row(train, held, c, hit_pass, composed_weight)
        return _one_model("--row-only", report, write, lambda d: _with_row(d, m, t, report, hit_pass, composed_weight))
    if direct_only:  # keep the shipped verdict (comparison rows), prose model and gate; add the direct model
        m, t, report = fit_direct(train, held, c, hit_pass, composed_weight)
        return _one_model("--direct-only", report, write,
                          lambda d: _with_direct(d, m, t, report, hit_pass, composed_weight))
    if prose_only:  # keep the shipped verdict and gate (their scores); add or replace the prose model only
        m, t, report = fit_prose(train, held, c, hit_pass)
        return _one_model("--prose-only", report, write, lambda d: _with_prose(d, m, t, report, hit_pass))
    gate_model, gate_pass, gate_report = fit_gate(train, held, c, gate_pass, gate_hit_pass)
    gate_trained = {"gate_hit_pass": gate_hit_pass, "gate_rows": gate_report["gate_rows"],
                    "pair_seed": generate_verdict.SEED + 1, "pair_share": generate_verdict.PAIR_SHARE}
    gate_heldout = {k: gate_report[k] for k in ("gate_drafts_heldout", "gate_drafts_heldout_by_form")}
    if gate_only:  # keep the shipped verdict (and so the critic's scores); replace the gate's model only
        print(json.dumps(gate_report, indent=1))
        data = json.loads(verdict.WEIGHTS_FILE.read_text(encoding="utf-8"))
        if data["features"] != list(verdict.FEATURES):
            raise SystemExit("--gate-only: the weights file is for other features; train both models")
        data["trained_on"].update(gate_trained)
        data["heldout"].update(gate_heldout)
        data.update({"gate_pass_threshold": gate_pass, "gate_model": as_model(gate_model)})
        if write:
            verdict.WEIGHTS_FILE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
            print(f"wrote {verdict.WEIGHTS_FILE}")
        return gate_report
    x, y, train_kinds = split(train, "verdict", gate=False, prose=False)
    xh, yh, kinds = split(held, "verdict", gate=False, prose=False)
    weigh = lambda ks: np.where(composed_mask(ks), composed_weight, 1.0)  # noqa: E731
    model = fit(x, y, xh, yh, c, weigh(train_kinds), composed_mask(kinds).astype(float))  # calibrated on what the brain writes
    p = predict(model, xh)
    composed = composed_mask(kinds)
    t = pass_threshold(p[composed], yh[composed], hit_pass)
    g, gy, _ = split(held, "gate")
    strengths = np.sort(g[gy == 1, 0])
    gate = float(strengths[int(np.floor(false_no_evidence * len(strengths)))]) if len(strengths) else 0.05
    report = {
        "heldout_all": {**rates(p, yh, t), "ece": ece(p, yh)},
        "heldout_composed": {**rates(p[composed], yh[composed], t), "ece": ece(p[composed], yh[composed]),
                             "auc": auc(p[composed], yh[composed])},
        "heldout_by_kind": {k: rates(p[np.array(kinds) == k], yh[np.array(kinds) == k], t) for k in sorted(set(kinds))},
        "pass_threshold": round(t, 4),
        "gate_threshold": round(gate, 4),
        "gate_heldout": {"declined_without_the_paper": round(float((g[gy == 0, 0] < gate).mean()), 4),
                         "declined_with_the_paper": round(float((g[gy == 1, 0] < gate).mean()), 4)},
        "weights": dict(zip(verdict.FEATURES, (round(float(w), 3) for w in model["weights"]))),
        **gate_report,
    }
    prose_model, prose_t, prose_report = fit_prose(train, held, c, hit_pass)
    report.update(prose_report)
    print(json.dumps(report, indent=1))
    if write:
        data = {
            "features": list(verdict.FEATURES), **as_model(model), "pass_threshold": round(t, 4),
            "gate_threshold": round(gate, 4), "gate_pass_threshold": gate_pass, "gate_model": as_model(gate_model),
            "trained_on": {"generator": "training.data.generate_verdict", "scorer_groups_seed": DEFAULT_SEED,
                           "synthetic_papers": SYNTHETIC_PAPERS, "draft_seed": generate_verdict.SEED,
                           "train_rows": len(train), "heldout_rows": len(held), "C": c,
                           "hit_pass": hit_pass, "false_no_evidence": false_no_evidence, "composed_weight": composed_weight,
                           **gate_trained},
            "heldout": {**{k: report[k] for k in ("heldout_all", "heldout_composed", "gate_heldout")}, **gate_heldout},
        }
        data = _with_prose(data, prose_model, prose_t, prose_report, hit_pass)
        if keep_gate:  # the shipped evidence gate (model, thresholds, its training record) stays as it is
            data = _with_shipped_gate(data)
        verdict.WEIGHTS_FILE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {verdict.WEIGHTS_FILE}")
    return report


def _one_model(flag: str, report: dict, write: bool, add: Callable[[dict], dict]) -> dict:
    """Print one model's held-out ``report`` and, with ``write``, put the model into the shipped weights
    file (``add`` of its data), keeping every other model in it; ``report`` back."""
    print(json.dumps(report, indent=1))
    data = json.loads(verdict.WEIGHTS_FILE.read_text(encoding="utf-8"))
    if data["features"] != list(verdict.FEATURES):
        raise SystemExit(f"{flag}: the weights file is for other features; train all models")
    if write:
        verdict.WEIGHTS_FILE.write_text(json.dumps(add(data), indent=1) + "\n", encoding="utf-8")
        print(f"wrote {verdict.WEIGHTS_FILE}")
    return report


_GATE_TRAINED = ("gate_hit_pass", "gate_rows", "pair_seed", "pair_share")


def _with_shipped_gate(data: dict) -> dict:
    """``data`` with the evidence gate of the shipped weights file: its model (for the same features),
    its two thresholds, and what its training and held-out records say about it."""
    shipped = json.loads(verdict.WEIGHTS_FILE.read_text(encoding="utf-8"))
    if shipped["features"] != data["features"]:
        raise SystemExit("--keep-gate: the shipped gate is for other features; train both models")
    data = {**data, **{k: shipped[k] for k in ("gate_threshold", "gate_pass_threshold", "gate_model")}}
    data["trained_on"].update({k: shipped["trained_on"][k] for k in _GATE_TRAINED if k in shipped["trained_on"]})
    data["heldout"].update({k: v for k, v in shipped["heldout"].items() if k.startswith("gate_")})
    return data


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dry-run", action="store_true", help="report held-out numbers without writing the weights")
    ap.add_argument("--regenerate", action="store_true", help="rebuild the training drafts first")
    ap.add_argument("--hit-pass", type=float, default=0.88, help="share of answering drafts the threshold must pass")
    ap.add_argument("--false-no-evidence", type=float, default=0.02,
                    help="share of answerable questions the evidence gate may decline")
    ap.add_argument("--gate-hit-pass", type=float, default=GATE_HIT_PASS,
                    help="share of answering gate drafts the gate's verdict threshold must pass")
    ap.add_argument("--gate-pass", type=float, default=None,
                    help="set the gate's verdict threshold by hand instead of calibrating it")
    ap.add_argument("--gate-only", action="store_true",
                    help="refit the evidence gate's model and threshold only, keeping the critic's verdict weights")
    ap.add_argument("--keep-gate", action="store_true",
                    help="refit the critic's verdict only, keeping the shipped evidence gate (model and thresholds)")
    ap.add_argument("--composed-weight", type=float, default=COMPOSED_WEIGHT,
                    help="weight in the fit of each draft the brain composes, against 1 for a constructed contrast")
    ap.add_argument("--prose-only", action="store_true",
                    help="fit the prose model (overviews and chains) only, keeping the shipped verdict and gate")
    ap.add_argument("--direct-only", action="store_true",
                    help="fit the direct-answer model only, keeping the shipped verdict, prose model and gate")
    ap.add_argument("--row-only", action="store_true",
                    help="fit the comparison-row model only (its own generated rows), keeping every other model")
    args = ap.parse_args(argv)
    run(write=not args.dry_run, regenerate=args.regenerate, hit_pass=args.hit_pass,
        false_no_evidence=args.false_no_evidence, gate_pass=args.gate_pass, gate_hit_pass=args.gate_hit_pass,
        gate_only=args.gate_only, keep_gate=args.keep_gate, composed_weight=args.composed_weight,
        prose_only=args.prose_only, direct_only=args.direct_only, row_only=args.row_only)


if __name__ == "__main__":
    main()
