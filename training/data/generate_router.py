"""Router training data: templates × entity vocabulary × paraphrase patterns, seeded.

Writes ``router_train.jsonl`` and ``router_heldout.jsonl`` next to this file, one example a line::

    {"question": str, "history": [{"role": "user"|"assistant", "content": str}, ...],
     "label": "factual"|"comparative"|"multi_hop"|"exploratory"|"follow_up", "lang": "en"|"zh"}

The training split uses only training templates, wrappers and vocabulary; the held-out split uses
only held-out templates, held-out wrappers and held-out vocabulary (models, datasets, properties,
relations, titles, authors…), and drops any question text that also occurs in training, so it
measures unseen phrasings and names. Every follow_up carries a previous turn, and about a third of
the other examples carry one too (a decoy: a self-contained question after a turn, sometimes about
the same model), so the presence of history never gives the label away. The training split also
holds questions in the style of a reader of full papers (tables, figures, sections, setups, papers
named by title or topic; :mod:`training.data.router_fullpaper`) and lineage chains between systems with
short Chinese table asks (:mod:`training.data.router_lineage`), each drawn from its own random stream.

Run ``python -m training.data.generate_router [--seed N]`` to regenerate. With an LLM configured,
``--llm N`` adds the LLM brain's paraphrases of N training questions to the training split only
(see ``training.data.llm_paraphrase``); the committed files are the template-only output.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from pathlib import Path

from training.data import router_fullpaper, router_lineage
from training.data import router_templates as T
from training.data import vocab as V

LABELS = ("factual", "comparative", "multi_hop", "exploratory", "follow_up")
DATA_DIR = Path(__file__).resolve().parent
TRAIN_FILE = DATA_DIR / "router_train.jsonl"
HELDOUT_FILE = DATA_DIR / "router_heldout.jsonl"
DEFAULT_SEED = 13
EN_RATE = 0.65  # share of English examples
HISTORY_RATE = 0.35  # share of non-follow_up examples that carry a (decoy) previous turn
SAME_SUBJECT_RATE = 0.35  # of those, the share whose previous turn is about the same model


def _pools(lang: str, held: bool) -> dict[str, list[str]]:
    """Every slot's candidate fillers for one language and split (index 1 = held-out)."""
    k = 1 if held else 0
    zh = lang == "zh"

    def pick(train: list[str], heldout: list[str]) -> list[str]:
        return heldout if held else train

    return {
        "models": pick(V.R_MODELS_TRAIN, V.R_MODELS_HELDOUT),
        "datasets": pick(V.R_DATASETS_TRAIN, V.R_DATASETS_HELDOUT),
        "metric": V.R_METRICS,
        "prop": pick(V.R_PROPS_ZH_TRAIN, V.R_PROPS_ZH_HELDOUT) if zh else pick(V.R_PROPS_TRAIN, V.R_PROPS_HELDOUT),
        "comp": (pick(V.R_COMPONENTS_ZH_TRAIN, V.R_COMPONENTS_ZH_HELDOUT) if zh
                 else pick(V.R_COMPONENTS_TRAIN, V.R_COMPONENTS_HELDOUT)),
        "task": pick(V.R_TASKS_ZH_TRAIN, V.R_TASKS_ZH_HELDOUT) if zh else pick(V.R_TASKS_TRAIN, V.R_TASKS_HELDOUT),
        "dim": pick(V.R_DIMS_ZH_TRAIN, V.R_DIMS_ZH_HELDOUT) if zh else pick(V.R_DIMS_TRAIN, V.R_DIMS_HELDOUT),
        "goal": pick(V.R_GOALS_ZH_TRAIN, V.R_GOALS_ZH_HELDOUT) if zh else pick(V.R_GOALS_TRAIN, V.R_GOALS_HELDOUT),
        "area": pick(V.R_AREAS_ZH_TRAIN, V.R_AREAS_ZH_HELDOUT) if zh else pick(V.R_AREAS_TRAIN, V.R_AREAS_HELDOUT),
        "aspect": (pick(V.R_ASPECTS_ZH_TRAIN, V.R_ASPECTS_ZH_HELDOUT) if zh
                   else pick(V.R_ASPECTS_TRAIN, V.R_ASPECTS_HELDOUT)),
        "idea": pick(V.R_IDEAS_ZH_TRAIN, V.R_IDEAS_ZH_HELDOUT) if zh else pick(V.R_IDEAS_TRAIN, V.R_IDEAS_HELDOUT),
        "topic": pick(V.R_TOPICS_ZH_TRAIN, V.R_TOPICS_ZH_HELDOUT) if zh else pick(V.R_TOPICS_TRAIN, V.R_TOPICS_HELDOUT),
        "rel": (pick(V.R_RELATIONS_ZH_TRAIN, V.R_RELATIONS_ZH_HELDOUT) if zh
                else pick(V.R_RELATIONS_TRAIN, V.R_RELATIONS_HELDOUT)),
        "bridge": (pick(V.R_BRIDGES_ZH_TRAIN, V.R_BRIDGES_ZH_HELDOUT) if zh
                   else pick(V.R_BRIDGES_TRAIN, V.R_BRIDGES_HELDOUT)),
        "surnames": pick(V.R_SURNAMES_TRAIN, V.R_SURNAMES_HELDOUT),
        "orgs": pick(V.R_ORGS_TRAIN, V.R_ORGS_HELDOUT),
        "title_leads": pick(V.R_TITLE_LEADS_TRAIN, V.R_TITLE_LEADS_HELDOUT),
        "title_cores": pick(V.R_TITLE_CORES_TRAIN, V.R_TITLE_CORES_HELDOUT),
        "title_purposes": pick(V.R_TITLE_PURPOSES_TRAIN, V.R_TITLE_PURPOSES_HELDOUT),
        "title_shapes": pick(V.R_TITLE_SHAPES_TRAIN, V.R_TITLE_SHAPES_HELDOUT),
        "size": T.SIZES[k], "size_zh": T.SIZES_ZH[k], "comp_role": T.COMP_ROLES[lang][k],
        "comp_role_zh": T.COMP_ROLES["zh"][k], "hw_zh": T.HARDWARE_ZH[k], "count": T.COUNTS[lang][k], "thing": T.THINGS[k], "ds_kind": T.DS_KINDS[lang][k],
        "amount": T.AMOUNTS[lang][k], "cost": T.COSTS[lang][k], "adj": T.ADJECTIVES[lang][k],
        "hw": T.HARDWARE[k], "setting": T.SETTINGS[k],
    }


def _authors(rng: random.Random, pool: dict[str, list[str]], lang: str) -> str:
    if rng.random() < 0.6:
        return f"{rng.choice(pool['surnames'])} et al." if lang == "en" else f"{rng.choice(pool['surnames'])} 等人"
    a, b = rng.sample(pool["surnames"], 2)
    return f"{a} and {b}" if lang == "en" else f"{a} 和 {b}"


def _title(rng: random.Random, pool: dict[str, list[str]], name: str) -> str:
    return rng.choice(pool["title_shapes"]).format(
        name=name, lead=rng.choice(pool["title_leads"]), core=rng.choice(pool["title_cores"]),
        purpose=rng.choice(pool["title_purposes"]))


def _relation(lang: str, rel: str, a: str, b: str) -> str:
    """"A builds on B" / "A 受到了 B 的启发"."""
    if lang == "zh" and "…" in rel:
        return f"{a} " + rel.replace("…", f" {b} ")
    return f"{a} {rel} {b}"


def _pick_vocab(rng: random.Random, lang: str, held: bool) -> dict[str, str]:
    """One filler for every slot the templates use (see ``router_templates``)."""
    pool = _pools(lang, held)
    m, m2, m3 = rng.sample(pool["models"], 3)
    ds, ds2 = rng.sample(pool["datasets"], 2)
    prop, prop2 = rng.sample(pool["prop"], 2)
    comp, comp2 = rng.sample(pool["comp"], 2)
    idea, idea2 = rng.sample(pool["idea"], 2)
    aspect, aspect2, aspect3 = rng.sample(pool["aspect"], 3)
    count, count2 = rng.sample(pool["count"], 2)
    dim, dim2 = rng.sample(pool["dim"], 2)
    org, authors = rng.choice(pool["orgs"]), _authors(rng, pool, lang)
    year = str(rng.randint(2015, 2024))
    title = _title(rng, pool, m)
    size = rng.choice(pool["size"])
    bridge = rng.choice(pool["bridge"])
    if lang == "en":
        paper = rng.choice([f"the {m} paper", f"'{title}'", f"the paper '{title}'", f"the paper by {authors}",
                            f"the {year} {m} paper", f"'{title}' ({m})", f"{authors}'s {m} paper"])
        ref = rng.choice([m, m, m, f"{org}'s {m}", f"the {size} {m} model", f"{m} ({authors})",
                          f"the model from '{title}'"])
    else:
        paper = rng.choice([f"{m} 论文", f"《{title}》", f"{authors}的论文"])
        ref = m
    slots = {
        "m": m, "m2": m2, "m3": m3, "a": m, "b": m2, "c": m3, "paper": paper, "ref": ref, "title": title,
        "authors": authors, "org": org, "year": year, "ds": ds, "ds2": ds2, "metric": rng.choice(pool["metric"]),
        "prop": prop, "prop2": prop2, "comp": comp, "comp2": comp2, "task": rng.choice(pool["task"]),
        "dim": dim, "dim2": dim2, "goal": rng.choice(pool["goal"]), "area": rng.choice(pool["area"]),
        "aspect": aspect, "aspect2": aspect2, "aspect3": aspect3, "idea": idea, "idea2": idea2,
        "topic": rng.choice(pool["topic"]),
        "a_rel_b": _relation(lang, rng.choice(pool["rel"]), m, m2), "bridge": bridge,
        "bridge_of": re.sub(r"^(the|its|that|那个|那项|它的|该|这个)\s*", "", bridge),
        "size": size, "size_zh": rng.choice(pool["size_zh"]), "count": count, "count2": count2,
        "thing": rng.choice(pool["thing"]), "comp_role": rng.choice(pool["comp_role"]),
        "comp_role_zh": rng.choice(pool["comp_role_zh"]), "hw_zh": rng.choice(pool["hw_zh"]),
        "ds_kind": rng.choice(pool["ds_kind"]), "amount": rng.choice(pool["amount"]),
        "cost": rng.choice(pool["cost"]), "adj": rng.choice(pool["adj"]), "hw": rng.choice(pool["hw"]),
        "setting": rng.choice(pool["setting"]),
    }
    return slots


def _fill(template: str, slots: dict[str, str]) -> str:
    text = template.format(**slots)
    text = re.sub(r"[ ]{2,}", " ", text)
    text = re.sub(r" ([，。？；、])", r"\1", text)  # no space before Chinese punctuation
    return text


def _lower_first(text: str) -> str:
    """Lower-case a leading ordinary word ("What" → "what"), never a name ("ResNet", "Transformer")."""
    word = text.split(" ", 1)[0]
    names = V.R_MODELS_TRAIN + V.R_MODELS_HELDOUT
    if word.isalpha() and word[1:].islower() and word != "I" and not any(n.startswith(word) for n in names):
        return text[0].lower() + text[1:]
    return text


def _paraphrase(rng: random.Random, text: str, lang: str, held: bool) -> str:
    k = 1 if held else 0
    prefix, suffix = rng.choice(T.PREFIXES[lang][k]), rng.choice(T.SUFFIXES[lang][k])
    if lang == "en":
        if prefix.endswith((", ", "— ")):
            text = _lower_first(text)
        text = prefix + text
        if rng.random() < 0.15:
            text = _lower_first(text)
        if rng.random() < 0.1:
            text = text.rstrip("?.")
        return text + suffix
    text = prefix + text
    if rng.random() < 0.3:  # "LoRA默认…" as often as "LoRA 默认…"
        text = re.sub(r"(?<=[\u4e00-\u9fff，。？；：]) | (?=[\u4e00-\u9fff，。？；：])", "", text)
    if rng.random() < 0.1:
        text = text.rstrip("？?。")
    return text + suffix


def _previous_turn(rng: random.Random, lang: str, held: bool, subject: str | None = None) -> list[dict]:
    """A plausible earlier exchange: a question about a model and a short cited answer."""
    k = 1 if held else 0
    slots = _pick_vocab(rng, lang, held)
    if subject:
        slots["m"] = subject
    q = _fill(rng.choice(T.HISTORY_QUESTIONS[lang][k]), slots)
    a = _fill(rng.choice(T.HISTORY_ANSWERS[lang][k]), slots)
    return [{"role": "user", "content": q}, {"role": "assistant", "content": a}]


def _example(rng: random.Random, label: str, split: str) -> dict:
    held = split != "train"
    lang = "en" if rng.random() < EN_RATE else "zh"
    template = rng.choice(T.TEMPLATES[label][lang][1 if held else 0])
    slots = _pick_vocab(rng, lang, held)
    question = _paraphrase(rng, _fill(template, slots), lang, held)
    history: list[dict] = []
    if label == "follow_up":
        history = _previous_turn(rng, lang, held)
    elif rng.random() < HISTORY_RATE:  # a decoy: the question stands on its own after a turn
        history = _previous_turn(rng, lang, held, slots["m"] if rng.random() < SAME_SUBJECT_RATE else None)
    return {"question": question, "history": history, "label": label, "lang": lang}


def _key(ex: dict) -> str:
    last = ex["history"][-2]["content"] if ex["history"] else ""
    return " ".join(ex["question"].lower().split()) + "\x00" + last


def generate(seed: int = DEFAULT_SEED, per_label_train: int = 1100,
             per_label_heldout: int = 120) -> tuple[list[dict], list[dict]]:
    """Return (train, heldout), deduplicated, deterministic for a given seed."""
    splits: dict[str, list[dict]] = {"train": [], "heldout": []}
    seen: set[str] = set()
    train_questions: set[str] = set()
    # each split has its own random stream: the held-out split does not move when training templates change
    for split, target, rng in (("train", per_label_train, random.Random(seed)),
                               ("heldout", per_label_heldout, random.Random(f"heldout-{seed}"))):
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
        if split == "train":  # full-paper and lineage forms, own streams: the base draws do not move
            extra = router_fullpaper.generate(random.Random(f"fullpaper-{seed}"))
            extra += router_lineage.generate(random.Random(f"lineage-{seed}"))
            for ex in extra:
                qnorm = " ".join(ex["question"].lower().split())
                if _key(ex) not in seen:
                    seen.add(_key(ex))
                    train_questions.add(qnorm)
                    splits[split].append(ex)
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
