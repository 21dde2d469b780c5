"""Critic DPO pairs: good cited answers, corrupted in controlled ways, with accurate vs lenient reviews.

For each synthetic question we build numbered contexts holding concrete facts and a correct answer
that cites them, then apply one defect (or none):

* ``drop_citation`` – citations removed;           * ``unsupported_number`` – a figure not in any context;
* ``omit_entity`` – one compared entity left out;   * ``omit_dimension`` – one asked-for dimension left out;
* ``contradict`` – a claim reversed against its context;  * ``clean`` – the answer is fine.

``chosen`` names the real defect (or passes a clean answer); ``rejected`` is a lenient pass, a vague
fail, or a made-up complaint about a clean answer. Lines carry the structured fields too (question,
intent, contexts, answer, defect, passed) so evaluation can run the rule critic on the same data.
Held-out lines use held-out entities only. ``python -m training.data.generate_critic`` regenerates.
"""

from __future__ import annotations

import random
import re

from core.prompts.local_critic import build_critic_prompt, format_critique
from training.data import vocab as V
from training.data.generate_router import DATA_DIR, generator_main

TRAIN_FILE = DATA_DIR / "critic_train.jsonl"
HELDOUT_FILE = DATA_DIR / "critic_heldout.jsonl"
DEFAULT_SEED = 17
DEFECTS = ("drop_citation", "unsupported_number", "omit_entity", "omit_dimension", "contradict", "clean")

# Fact sentences per dimension; {e} entity, {n} a number. The "up" wording is what the context says.
FACTS = {
    "memory use": ("{e} cuts GPU memory use during fine-tuning by {n}% compared with full fine-tuning.", "%"),
    "accuracy": ("{e} reaches {n}% accuracy on the MMLU benchmark in the reported setting.", "%"),
    "training cost": ("Training {e} takes about {n} GPU-hours in the paper's main experiment.", " GPU-hours"),
    "inference speed": ("{e} improves inference throughput by {n}% over the baseline.", "%"),
    "trainable parameters": ("{e} trains only {n} million parameters for a 7B base model.", " million"),
    "latency": ("{e} adds {n} ms of latency per request on a single A100.", " ms"),
}
REVERSALS = [("cuts", "increases"), ("improves", "reduces"), ("only", "more than"), ("adds", "removes")]


def _fact(rng: random.Random, e: str, dim: str) -> tuple[str, str]:
    template, unit = FACTS[dim]
    n = str(rng.randint(3, 95))
    return template.format(e=e, n=n), n + unit


def _scenario(rng: random.Random, entities: list[str]) -> dict:
    """A question, its intent, numbered contexts and a correct cited answer as sentences."""
    dims = rng.sample(sorted(FACTS), 2)
    if rng.random() < 0.5:
        a, b = rng.sample(entities, 2)
        question = f"Compare {a} and {b} in {dims[0]} and {dims[1]}."
        intent, ents = "comparative", [a, b]
    else:
        a = rng.choice(entities)
        question = f"What does the {a} paper report about {dims[0]} and {dims[1]}?"
        intent, ents = "factual", [a]
    contexts, sentences = [], []
    for e in ents:
        for dim in dims:
            text, _ = _fact(rng, e, dim)
            contexts.append({"chunk_id": f"{e.lower().replace(' ', '-')}-{len(contexts)}",
                             "title": f"{e} (paper)", "content": text + " The authors discuss this in Section 4."})
            sentences.append({"text": text, "cite": len(contexts), "entity": e, "dim": dim})
    order = list(range(len(contexts)))
    rng.shuffle(order)
    contexts = [contexts[i] for i in order]
    remap = {old + 1: new + 1 for new, old in enumerate(order)}
    for s in sentences:
        s["cite"] = remap[s["cite"]]
    return {"question": question, "intent": intent, "entities": ents, "dims": dims,
            "contexts": contexts, "sentences": sentences}


def _render(sentences: list[dict], cite: bool = True) -> str:
    return " ".join(s["text"][:-1] + (f" [{s['cite']}]." if cite else ".") for s in sentences)


def _corrupt(rng: random.Random, sc: dict, defect: str) -> tuple[str, list[str], str, float, float] | None:
    """(answer, issues, feedback, faithfulness, completeness) for the defect, or None if not applicable."""
    sents = [dict(s) for s in sc["sentences"]]
    if defect == "clean":
        return _render(sents), [], "The answer is supported and complete.", 0.95, 0.95
    if defect == "drop_citation":
        return (_render(sents, cite=False), ["missing citations: no claim cites a context"],
                "Cite the context behind each claim with [n] markers.", 0.6, 0.9)
    if defect == "unsupported_number":
        s = rng.choice(sents)
        nums = re.findall(r"\d+", s["text"])
        new = str(int(nums[0]) + rng.randint(7, 40))
        s["text"] = s["text"].replace(nums[0], new, 1)
        return (_render(sents), [f"unsupported number: {new} is not in context [{s['cite']}] (it says {nums[0]})"],
                f"Use the figure from context [{s['cite']}] ({nums[0]}), not {new}.", 0.4, 0.9)
    if defect == "omit_entity":
        if len(sc["entities"]) < 2:
            return None
        gone = rng.choice(sc["entities"])
        kept = [s for s in sents if s["entity"] != gone]
        return (_render(kept), [f"incomplete: {gone} is not covered"],
                f"Add what the contexts say about {gone} so both sides are compared.", 0.9, 0.4)
    if defect == "omit_dimension":
        gone = rng.choice(sc["dims"])
        kept = [s for s in sents if s["dim"] != gone]
        return (_render(kept), [f"incomplete: the {gone} dimension is not addressed"],
                f"Cover {gone} as the question asks, using the contexts.", 0.9, 0.5)
    if defect == "contradict":
        options = [(s, a, b) for s in sents for a, b in REVERSALS if f" {a} " in s["text"]]
        if not options:
            return None
        s, a, b = rng.choice(options)
        s["text"] = s["text"].replace(f" {a} ", f" {b} ", 1)
        return (_render(sents), [f"contradiction: the answer says '{b}' but context [{s['cite']}] says '{a}'"],
                f"Correct the claim to match context [{s['cite']}].", 0.3, 0.9)
    raise ValueError(defect)


def _rejected(rng: random.Random, defect: str, sc: dict) -> str:
    """A plausible but wrong review: lenient for defective answers, made-up for clean ones."""
    if defect == "clean":
        bogus = rng.choice([
            ("fail", 4, ["missing citations"], "Add citations."),
            ("fail", 5, [f"incomplete: {sc['entities'][0]} is not covered"], "Cover all entities."),
            ("fail", 5, ["the answer could be better"], "Improve the answer."),
        ])
        return format_critique(False, bogus[1], 0.5, 0.5, bogus[2], bogus[3])
    return rng.choice([
        format_critique(True, 9, 0.95, 0.95, [], "Looks good overall."),
        format_critique(True, 8, 0.9, 0.85, [], "Well written and clear."),
        format_critique(False, 6, 0.7, 0.7, ["the answer could be more detailed"], "Improve the answer."),
    ])


def _pair(rng: random.Random, entities: list[str], defect: str) -> dict | None:
    sc = _scenario(rng, entities)
    out = _corrupt(rng, sc, defect)
    if out is None:
        return None
    answer, issues, feedback, faith, comp = out
    passed = defect == "clean"
    score = 9 if passed else {"unsupported_number": 3, "contradict": 2}.get(defect, 5)
    return {
        "prompt": build_critic_prompt(sc["question"], sc["intent"], sc["contexts"], answer),
        "chosen": format_critique(passed, score, faith, comp, issues, feedback),
        "rejected": _rejected(rng, defect, sc),
        "question": sc["question"], "intent": sc["intent"], "contexts": sc["contexts"],
        "answer": answer, "defect": defect, "passed": passed,
    }


def generate(seed: int = DEFAULT_SEED, n_train: int = 600, n_heldout: int = 120) -> tuple[list[dict], list[dict]]:
    """Return (train, heldout) critic pairs, deduplicated by prompt, balanced over defects."""
    rng = random.Random(seed)
    out: dict[str, list[dict]] = {"train": [], "heldout": []}
    seen: set[str] = set()
    for split, n, ents in (("train", n_train, V.ENTITIES_TRAIN), ("heldout", n_heldout, V.ENTITIES_HELDOUT)):
        i = 0
        while len(out[split]) < n and i < n * 20:
            defect = DEFECTS[i % len(DEFECTS)]
            i += 1
            pair = _pair(rng, ents, defect)
            if pair is None or pair["prompt"] in seen:
                continue
            seen.add(pair["prompt"])
            out[split].append(pair)
        rng.shuffle(out[split])
    return out["train"], out["heldout"]


def main(argv: list[str] | None = None) -> int:
    return generator_main(argv, __doc__, generate, DEFAULT_SEED, TRAIN_FILE, HELDOUT_FILE, "critic pairs")


if __name__ == "__main__":
    raise SystemExit(main())
