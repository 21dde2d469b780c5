"""Router training data: templates × entity vocabulary × paraphrase patterns, seeded.

Writes ``router_train.jsonl`` and ``router_heldout.jsonl`` next to this file, one example a line::

    {"question": str, "history": [{"role": "user"|"assistant", "content": str}, ...],
     "label": "factual"|"comparative"|"multi_hop"|"exploratory"|"follow_up", "lang": "en"|"zh"}

The training split uses only training templates and training entities; the held-out split uses
held-out templates and/or held-out entities and topics, and drops any question text that also occurs
in training. Every follow_up carries a previous turn, and about a third of the other examples carry
one too, so the presence of history never gives the label away.

Run ``python -m training.data.generate_router [--seed N]`` to regenerate. With an LLM configured,
``--llm N`` adds the LLM brain's paraphrases of N training questions to the training split only
(see ``training.data.llm_paraphrase``); the committed files are the template-only output.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from training.data import router_templates as T
from training.data import vocab as V

LABELS = ("factual", "comparative", "multi_hop", "exploratory", "follow_up")
DATA_DIR = Path(__file__).resolve().parent
TRAIN_FILE = DATA_DIR / "router_train.jsonl"
HELDOUT_FILE = DATA_DIR / "router_heldout.jsonl"
DEFAULT_SEED = 13
HISTORY_RATE = 0.35  # share of non-follow_up examples that carry a previous turn


def _pick_vocab(rng: random.Random, lang: str, heldout_entities: bool) -> dict[str, str]:
    ents = V.ENTITIES_HELDOUT if heldout_entities else V.ENTITIES_TRAIN
    pairs = V.PAIRS_HELDOUT if heldout_entities else V.PAIRS_TRAIN
    if lang == "en":
        attrs, dims, goals = V.ATTRIBUTES_EN, V.DIMENSIONS_EN, V.GOALS_EN
        topics = V.TOPICS_EN_HELDOUT if heldout_entities else V.TOPICS_EN_TRAIN
    else:
        attrs, dims, goals = V.ATTRIBUTES_ZH, V.DIMENSIONS_ZH, V.GOALS_ZH
        topics = V.TOPICS_ZH_HELDOUT if heldout_entities else V.TOPICS_ZH_TRAIN
    a, b = rng.choice(pairs)
    if rng.random() < 0.5:
        a, b = b, a
    dim, dim2 = rng.sample(dims, 2)
    return {"e": rng.choice(ents), "a": a, "b": b, "attr": rng.choice(attrs), "dim": dim, "dim2": dim2,
            "goal": rng.choice(goals), "topic": rng.choice(topics)}


def _lower_first(text: str) -> str:
    """Lower-case a leading ordinary word ("What" → "what"), never a name ("LoRA", "Transformer")."""
    word = text.split(" ", 1)[0]
    names = V.ENTITIES_TRAIN + V.ENTITIES_HELDOUT
    if word.isalpha() and word[1:].islower() and word != "I" and not any(n.startswith(word) for n in names):
        return text[0].lower() + text[1:]
    return text


def _paraphrase(rng: random.Random, text: str, lang: str) -> str:
    if lang == "en":
        prefix = rng.choice(T.PREFIXES_EN)
        if prefix.endswith(", "):
            text = _lower_first(text)
        text = prefix + text
        if rng.random() < 0.15:
            text = _lower_first(text)
        if rng.random() < 0.1:
            text = text.rstrip("?.")
        return text + rng.choice(T.SUFFIXES_EN)
    text = rng.choice(T.PREFIXES_ZH) + text
    if rng.random() < 0.1:
        text = text.rstrip("？?。")
    return text + rng.choice(T.SUFFIXES_ZH)


def _previous_turn(rng: random.Random, lang: str, heldout: bool) -> list[dict]:
    """A plausible earlier exchange: a factual or comparative question and a short cited answer."""
    label = rng.choice(("factual", "comparative", "multi_hop"))
    q = rng.choice(T.TEMPLATES[label][lang][0]).format(**_pick_vocab(rng, lang, heldout))
    snippets = V.ANSWER_SNIPPETS_EN if lang == "en" else V.ANSWER_SNIPPETS_ZH
    ents = V.ENTITIES_HELDOUT if heldout else V.ENTITIES_TRAIN
    a = rng.choice(snippets).format(e=rng.choice(ents))
    return [{"role": "user", "content": q}, {"role": "assistant", "content": a}]


def _example(rng: random.Random, label: str, split: str) -> dict:
    lang = "en" if rng.random() < 0.6 else "zh"
    train_tpl, heldout_tpl = T.TEMPLATES[label][lang]
    if split == "train":
        template, heldout_vocab = rng.choice(train_tpl), False
    elif rng.random() < 0.6:
        template, heldout_vocab = rng.choice(heldout_tpl), rng.random() < 0.5
    else:
        template, heldout_vocab = rng.choice(train_tpl), True
    slots = _pick_vocab(rng, lang, heldout_vocab)
    if "{topic}" in template and "{a}" in template:  # an evolution question: use a real lineage
        topic_en, topic_zh, slots["a"], slots["b"] = rng.choice(
            V.LINEAGES_HELDOUT if heldout_vocab else V.LINEAGES_TRAIN)
        slots["topic"] = topic_en if lang == "en" else topic_zh
    question = _paraphrase(rng, template.format(**slots), lang)
    with_history = label == "follow_up" or rng.random() < HISTORY_RATE
    history = _previous_turn(rng, lang, split != "train") if with_history else []
    return {"question": question, "history": history, "label": label, "lang": lang}


def _key(ex: dict) -> str:
    last = ex["history"][-2]["content"] if ex["history"] else ""
    return " ".join(ex["question"].lower().split()) + "\x00" + last


def generate(seed: int = DEFAULT_SEED, per_label_train: int = 320,
             per_label_heldout: int = 60) -> tuple[list[dict], list[dict]]:
    """Return (train, heldout), deduplicated, deterministic for a given seed."""
    rng = random.Random(seed)
    splits: dict[str, list[dict]] = {"train": [], "heldout": []}
    seen: set[str] = set()
    train_questions: set[str] = set()
    for split, target in (("train", per_label_train), ("heldout", per_label_heldout)):
        for label in LABELS:
            got, tries = 0, 0
            while got < target and tries < target * 50:
                tries += 1
                ex = _example(rng, label, split)
                key, qnorm = _key(ex), " ".join(ex["question"].lower().split())
                if key in seen or (split == "heldout" and qnorm in train_questions):
                    continue
                seen.add(key)
                if split == "train":
                    train_questions.add(qnorm)
                splits[split].append(ex)
                got += 1
        rng.shuffle(splits[split])
    return splits["train"], splits["heldout"]


def write_jsonl(path: Path, rows: list[dict]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_jsonl(path: str | Path) -> list[dict]:
    with Path(path).open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def generator_main(argv: list[str] | None, doc: str, generate, default_seed: int, train_file: Path,
                   heldout_file: Path, label: str, extend=None) -> int:
    """Shared command line of the data generators: ``--seed``, ``--out-dir``; writes both splits.

    ``extend(parser)`` may add options and return ``f(args, train, heldout) -> train``.
    """
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--seed", type=int, default=default_seed)
    parser.add_argument("--out-dir", type=Path, default=DATA_DIR)
    more = extend(parser) if extend else None
    args = parser.parse_args(argv)
    train, heldout = generate(args.seed)
    if more:
        train = more(args, train, heldout)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_jsonl(args.out_dir / train_file.name, train)
    write_jsonl(args.out_dir / heldout_file.name, heldout)
    print(f"{label}: {len(train)} train, {len(heldout)} held-out → {args.out_dir}")
    return 0


def _llm_options(parser: argparse.ArgumentParser):
    parser.add_argument("--llm", type=int, default=0, metavar="N",
                        help="add the configured LLM's paraphrases of N training questions (training split only)")
    parser.add_argument("--per-seed", type=int, default=3, metavar="K", help="paraphrases asked per question")
    parser.add_argument("--config", default=None, metavar="FILE", help="settings file (LLM endpoint)")

    def more(args, train: list[dict], heldout: list[dict]) -> list[dict]:
        if not args.llm:
            return train
        from core.config import load_settings
        from training.data.llm_paraphrase import caller_from_settings, extend_with_llm

        caller = caller_from_settings(load_settings(args.config))
        return extend_with_llm(train, heldout, caller, seeds=args.llm, per_seed=args.per_seed, seed=args.seed)[0]

    return more


def main(argv: list[str] | None = None) -> int:
    from core.brains.base import BackendUnavailable
    from core.config import ConfigError

    try:
        return generator_main(argv, __doc__, generate, DEFAULT_SEED, TRAIN_FILE, HELDOUT_FILE, "router data",
                              extend=_llm_options)
    except (ConfigError, BackendUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
