"""Train the offline brain's reader: a cross-encoder that reads a question and one candidate sentence
together and scores whether the sentence answers it (:mod:`core.brains.offline.reader`).

The sentence scorer (:mod:`core.brains.offline.scorer`) sees declarative features of a pair (terms
held, names, numbers, kind, position); it cannot see that "how long did the checks take" is answered
by "the evaluations took weeks". The reader is all-MiniLM-L6-v2 with LoRA on its attention and a
linear head over the masked mean of its last hidden states (:mod:`core.models.minilm_classifier`,
the router's network), fed "[CLS] question [SEP] sentence [SEP]".

Data: the sentence scorer's groups (:mod:`training.data.generate_scorer`: the real training
abstracts, the bundled corpus and invented full-text papers, structural and doc2query questions;
never evaluation text), each a question, the sentence that answers it and hard negatives (the other
sentences of its paper, sentences of other papers sharing its words). Loss: listwise, a softmax over
one group's candidates (the answer and up to ``--negatives`` negatives drawn afresh each epoch).

Held-out groups (unseen papers) report top-1 over the brain's own pool for the feature scorer, the
reader, and their blend ``logit(scorer) + w · reader`` for a grid of ``w``; the best ``w`` on these
generated groups is written beside the adapter (``reader.json``), never chosen on evaluation items.

``python -m training.reader_train`` (about 8 min on 2 CPU cores) writes ``core/models/adapters/reader``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path

import numpy as np

from core.brains.offline import scorer
from training.data.generate_scorer import HELDOUT_FILE, TRAIN_FILE, main as generate
from training.scorer_lead import calibration_groups
from training.scorer_train import group_pool, load

OUT_DIR = Path(__file__).resolve().parents[1] / "core" / "models" / "adapters" / "reader"
MAX_LENGTH = 96
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0)


def encode(tok, pairs: list[tuple[str, str]]) -> dict:
    """Token ids of (question, sentence) pairs as the run time encodes them (type ids all 0)."""
    import torch

    enc = tok.encode_batch(pairs)
    ids = torch.tensor([e.ids for e in enc], dtype=torch.long)
    mask = torch.tensor([e.attention_mask for e in enc], dtype=torch.long)
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": torch.zeros_like(ids)}


def sample(group: dict, rng: random.Random, negatives: int) -> tuple[list[str], int]:
    """The answer and up to ``negatives`` negatives (half from its own paper where it has them), shuffled."""
    pos = next(c["text"] for c in group["candidates"] if c["label"])
    own = [c["text"] for c in group["candidates"] if not c["label"] and c["own"] and c["text"] != pos]
    other = [c["text"] for c in group["candidates"] if not c["own"] and c["text"] != pos]
    k_own = min(len(own), max(negatives - len(other), (negatives + 1) // 2))
    picked = rng.sample(own, k_own) + rng.sample(other, min(len(other), negatives - k_own))
    texts = [pos, *picked]
    rng.shuffle(texts)
    return texts, texts.index(pos)


def reader_logits(model, tok, question: str, texts: list[str]) -> np.ndarray:
    import torch

    with torch.no_grad():
        return model(**encode(tok, [(question, t) for t in texts])).logits[:, 0].numpy()


def _read_pools(model, tok, held: list[dict], weight: float):
    """Per usable held-out group: (group, its pool, labels, the scorer's probabilities, the blend as the
    brain computes it with :func:`core.brains.offline.reader.rescore`, shortlist included, no skip)."""
    from core.brains.offline import reader
    from core.vocabulary import Vocabulary

    m = scorer.model()
    read = (lambda q, texts: list(reader_logits(model, tok, q, texts)), weight)
    for g in held:
        p = group_pool(g, Vocabulary())
        if p is None:
            continue
        prof, pool, labels, owns = p
        probs = [scorer.probability(scorer.features(s, prof, own=o, m=m), m) for s, o in zip(pool, owns)]
        yield g, pool, labels, probs, reader.rescore(prof.question, [s.text for s in pool], probs, read=read)


def blended_groups(model, tok, held: list[dict], weight: float) -> list[tuple[np.ndarray, np.ndarray, list[str]]]:
    """(blended probabilities, labels, papers) per usable held-out group, as the brain blends them, for
    the lead's calibration (:mod:`training.scorer_lead`)."""
    out = []
    for g, pool, labels, _, blend in _read_pools(model, tok, held, weight):
        chunks = list(dict.fromkeys(c["chunk"] for c in g["candidates"]))
        out.append((np.array(blend), labels, [chunks[s.ctx].split("#")[0] for s in pool]))
    return out


def calibrate_lead(model, tok, groups: list[dict], weight: float) -> dict:
    """The direct answer's share for blended scores, chosen as :mod:`training.scorer_lead` chooses
    the scorer's, on the same researcher-style ``groups`` (:func:`training.scorer_lead.calibration_groups`;
    the blend makes several candidates near-certain, so the scorer's share would let more of them into
    the lead)."""
    from training.scorer_lead import choose, curve

    points = curve(blended_groups(model, tok, groups, weight))
    share, recall, length = choose(points)
    return {"share": share, "heldout_recall": recall, "heldout_mean_sentences": length,
            "one_sentence_recall": points[0][1], "curve": [list(p) for p in points]}


SKIP_GRID = (0.8, 0.85, 0.9, 0.92, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99)
SKIP_TOLERANCE = 0.005  # about one held-out group in 241


def choose_skip(top: np.ndarray, alone: np.ndarray, blended: np.ndarray) -> dict:
    """``skip_above`` from per-group (the scorer's best probability, its pick right, the blend's pick
    right): the lowest on :data:`SKIP_GRID` whose top-1 (the scorer's pick where it is that confident,
    the blend's elsewhere) stays within :data:`SKIP_TOLERANCE` of reading every group (None: no
    threshold does); with the share of groups still read at each point."""
    full = float(blended.mean())
    curve = [(t, round(float(np.where(top >= t, alone, blended).mean()), 4), round(float((top < t).mean()), 4))
             for t in SKIP_GRID]
    ok = [c for c in curve if c[1] >= full - SKIP_TOLERANCE]
    chosen = min(ok, key=lambda c: c[0]) if ok else None
    return {"skip_above": chosen[0] if chosen else None, "heldout_top1": chosen[1] if chosen else round(full, 4),
            "read_share": chosen[2] if chosen else 1.0, "top1_reading_all": round(full, 4),
            "tolerance": SKIP_TOLERANCE, "curve": [list(c) for c in curve]}


def calibrate_skip(model, tok, held: list[dict], weight: float) -> dict:
    """The scorer's probability from which the reader is not run, chosen on the held-out groups
    (:func:`choose_skip`)."""
    rows = [(max(probs), int(np.argmax(probs)) == int(np.argmax(labels)), int(np.argmax(blend)) == int(np.argmax(labels)))
            for _, _, labels, probs, blend in _read_pools(model, tok, held, weight)]
    return choose_skip(*(np.array(c, dtype=float) for c in zip(*rows)))


def evaluate(model, tok, held: list[dict]) -> dict:
    """Top-1 over the brain's pool for the scorer, the reader and each blend weight."""
    from core.vocabulary import Vocabulary

    m = scorer.model()
    hits = {"scorer": [], "reader": [], **{f"blend {w}": [] for w in WEIGHTS}}
    by_source: dict[str, list[bool]] = {}
    for g in held:
        p = group_pool(g, Vocabulary())
        if p is None:
            continue
        prof, pool, labels, owns = p
        probs = np.array([scorer.probability(scorer.features(s, prof, own=o, m=m), m) for s, o in zip(pool, owns)])
        feat = np.log(np.clip(probs, 1e-6, 1 - 1e-6) / np.clip(1 - probs, 1e-6, 1))
        read = reader_logits(model, tok, prof.question, [s.text for s in pool])
        gold = int(np.argmax(labels))
        hits["scorer"].append(int(np.argmax(feat)) == gold)
        hits["reader"].append(int(np.argmax(read)) == gold)
        for w in WEIGHTS:
            hits[f"blend {w}"].append(int(np.argmax(feat + w * read)) == gold)
        by_source.setdefault(g.get("source", "structural"), []).append(int(np.argmax(feat + read)) == gold)
    out = {k: round(float(np.mean(v)), 4) for k, v in hits.items() if v}
    out["groups"] = len(hits["scorer"])
    out["blend 1.0 by source"] = {k: [round(float(np.mean(v)), 4), len(v)] for k, v in by_source.items()}
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--epochs", type=float, default=1.0)
    ap.add_argument("--negatives", type=int, default=7)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--rank", type=int, default=16)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--layers", type=int, default=None,
                    help="train on the encoder's first N layers only (a cheaper reader; default all six)")
    ap.add_argument("--out", type=Path, default=OUT_DIR)
    ap.add_argument("--eval-only", action="store_true", help="report held-out numbers of the adapter in --out")
    ap.add_argument("--calibrate-only", action="store_true",
                    help="recalibrate the direct answer's share and the skip threshold for the adapter in --out "
                         "and rewrite its reader.json")
    args = ap.parse_args(argv)

    import torch

    from core.models.minilm_classifier import load_classifier, new_classifier, save_classifier
    from core.onnx_runtime import tokenizer

    torch.set_num_threads(args.threads)
    if not TRAIN_FILE.exists():
        generate()
    train, held = load(TRAIN_FILE), load(HELDOUT_FILE)
    tok = tokenizer(MAX_LENGTH)
    if args.eval_only or args.calibrate_only:
        model, _ = load_classifier(args.out, 1)
        if args.eval_only:
            print(json.dumps(evaluate(model, tok, held), indent=1))
            return
        meta = json.loads((args.out / "reader.json").read_text(encoding="utf-8"))
        meta["lead"] = calibrate_lead(model, tok, calibration_groups(train, held), meta["blend_weight"])
        meta["skip"] = calibrate_skip(model, tok, held, meta["blend_weight"])
        (args.out / "reader.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
        print(json.dumps({k: meta[k] for k in ("lead", "skip")}, indent=1))
        return
    torch.manual_seed(args.seed)
    rng = random.Random(args.seed)
    model, _ = new_classifier(1, rank=args.rank, alpha=2 * args.rank, dropout=0.1, layers=args.layers)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=args.lr, weight_decay=0.01)
    steps = int(math.ceil(len(train) * args.epochs))
    warm = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warm) * max(0.0, 1 - s / steps))
    order: list[int] = []
    t0, running = time.time(), []
    model.train()
    for step in range(steps):
        if not order:
            order = list(range(len(train)))
            rng.shuffle(order)
        group = train[order.pop()]
        texts, gold = sample(group, rng, args.negatives)
        logits = model(**encode(tok, [(group["question"], t) for t in texts])).logits[:, 0]
        loss = torch.nn.functional.cross_entropy(logits[None, :], torch.tensor([gold]))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        running.append(loss.item())
        if (step + 1) % 100 == 0 or step + 1 == steps:
            print(f"step {step + 1}/{steps} loss {np.mean(running[-100:]):.3f} {time.time() - t0:.0f}s", flush=True)
    model.eval()
    report = evaluate(model, tok, held)
    print(json.dumps(report, indent=1))
    args.out.mkdir(parents=True, exist_ok=True)
    readme = OUT_DIR / "README.md"
    kept = readme.read_text(encoding="utf-8") if readme.exists() else None
    save_classifier(model, args.out)
    if kept is not None:  # PEFT writes a model card template over it: keep ours
        (args.out / "README.md").write_text(kept, encoding="utf-8")
    best = max(WEIGHTS, key=lambda w: (report[f"blend {w}"], -w))
    (args.out / "reader.json").write_text(json.dumps({
        "blend_weight": best, "max_length": MAX_LENGTH, "heldout": report,
        "lead": calibrate_lead(model, tok, calibration_groups(train, held), best), "skip": calibrate_skip(model, tok, held, best),
        "trained_on": {"generator": "training.data.generate_scorer", "train_groups": len(train),
                       "epochs": args.epochs, "negatives": args.negatives, "lr": args.lr, "rank": args.rank,
                       "layers": args.layers or "all", "seed": args.seed, "seconds": round(time.time() - t0)}}, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {args.out} (blend weight {best})")


if __name__ == "__main__":
    main()
