"""Structural question writing and synthetic full-text papers for the sentence scorer's data.

:func:`question_for` writes a question that one sentence answers, from the sentence alone: the
wh-frame follows the sentence's kind (a table row, a caption, a number, a definition, a proposal,
plain prose), the subject words are some of the sentence's content words, and a seeded share of
them is swapped for a paraphrase so a question does not simply repeat its answer's words.
:func:`synthetic_papers` invents full-text-like papers (method, datasets, settings, results,
captions, table rows) whose names and numbers are random, so nothing is copied from any paper.
"""

from __future__ import annotations

import random
import re

from core.brains.offline.text import STOPWORDS

# Paraphrases for common words of ML prose (either direction is a valid rewording).
PARAPHRASE = {
    "improve": "boost", "improves": "boosts", "reduce": "cut", "reduces": "cuts", "method": "approach",
    "model": "network", "models": "networks", "performance": "results", "accuracy": "score",
    "training": "learning", "large": "big", "small": "compact", "efficient": "cheap", "propose": "introduce",
    "dataset": "benchmark", "datasets": "benchmarks", "outperforms": "beats", "achieves": "reaches",
    "fine-tuning": "adaptation", "parameters": "weights", "memory": "GPU memory", "tasks": "problems",
    "images": "pictures", "text": "language", "speed": "throughput", "latency": "delay", "uses": "relies on",
    "pretrained": "pre-trained", "evaluate": "test", "results": "findings", "significantly": "markedly",
}
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9\-]+")
_NUM = re.compile(r"\d")
_DEFN = re.compile(r"^([A-Z][\w\-]*(?: [A-Z0-9][\w\-]*){0,3}) (?:is|are) (?:a|an|the) ")
_PROPOSE = re.compile(r"^(?:we|this paper|in this (?:paper|work),? we) (?:propose|present|introduce|describe)", re.I)
_ROW = re.compile(r"^In (Table \d+) \(([^)]*)\), ([^:]+): (.+)\.$")
_CAPTION = re.compile(r"^(Figure|Fig\.|Table) (\d+)[:.] (.+)$")


def short_name(title: str) -> str:
    head = title.split(":", 1)[0].strip()
    return head if 0 < len(head) <= 40 else " ".join(title.split()[:4])


def subject_words(sentence: str, rng: random.Random, k: int) -> list[str]:
    """Up to ``k`` of the sentence's content words, in order, some replaced by a paraphrase."""
    # a hyphenated phrase with a stopword inside ("state-of-the-art", "end-to-end") is a stock
    # phrase, not a subject
    ws = [w for w in _WORD.findall(sentence) if w.lower() not in STOPWORDS and len(w) > 2
          and not any(p.lower() in STOPWORDS for p in w.split("-")[1:])]
    ws = list(dict.fromkeys(ws))
    if not ws:
        return []
    picked = sorted(rng.sample(range(len(ws)), min(k, len(ws))))
    out = []
    for i in picked:
        w = ws[i]
        alt = PARAPHRASE.get(w.lower())
        out.append(alt if alt and rng.random() < 0.6 else (w if w[1:].lower() != w[1:] else w.lower()))
    return out


def introduction(title: str, sentences: list[str]) -> int | None:
    """The index of the sentence that first names the paper's method (its short name), if any."""
    name = short_name(title)
    if len(name.split()) > 3:
        return None
    pat = re.compile(rf"(?<![\w-]){re.escape(name)}(?![\w-])")
    return next((i for i, s in enumerate(sentences) if pat.search(s)), None)


def overview_question(name: str, rng: random.Random) -> str:
    return rng.choice([f"What is {name}?", f"What does {name} do?", f"Give an overview of {name}.",
                       f"What kind of method is {name}?"])


def question_for(sentence: str, title: str, rng: random.Random) -> str:
    """A question the sentence answers, or "" when the sentence gives nothing to ask about."""
    name = short_name(title) if rng.random() < 0.7 else ""
    of = f" in {name}" if name else ""
    m = _ROW.match(sentence)
    if m:
        table, caption, label, cells = m.groups()
        col = re.sub(r"[\d.,%±]+", "", cells.split(",")[0]).strip() or "value"
        frames = [f"What {col} does {label} get{of}?", f"How does {label} score on {col}{of}?",
                  f"Which {col} is reported for {label} in the {' '.join(caption.split()[:4]).lower()} table?"]
        return rng.choice(frames)
    m = _CAPTION.match(sentence)
    if m:
        words = " ".join(subject_words(m.group(3), rng, 3))
        return rng.choice([f"Which figure shows {words}{of}?", f"What does {name or 'the paper'} plot about {words}?",
                           f"What does {m.group(1)} {m.group(2)}{of} show?", f"What is in {m.group(1)} {m.group(2)}{of}?"])
    m = _DEFN.match(sentence)
    if m and rng.random() < 0.7:
        return rng.choice([f"What is {m.group(1)}?", f"Can you define {m.group(1)}?", f"What kind of thing is {m.group(1)}?"])
    words = subject_words(sentence, rng, rng.randint(2, 4))
    if len(words) < 2:
        return ""
    topic = " ".join(words)
    who = name or "the paper"
    if _NUM.search(sentence) and rng.random() < 0.7:
        frames = [f"How much does {who} report for {topic}?", f"What number does {who} give for {topic}?",
                  f"Which change in {topic} does {who} report?", f"What value of {topic} is used{of}?"]
    elif _PROPOSE.match(sentence):
        frames = [f"What does {who} propose for {topic}?", f"What is new in {who} about {topic}?"]
    else:
        frames = [f"What does {who} say about {topic}?", f"How does {who} handle {topic}?",
                  f"Why does {who} rely on {topic}?", f"According to {who}, what about {topic}?",
                  f"Explain {topic}{of}.", f"What part does {topic} play{of}?"]
    return rng.choice(frames)


_SYL = ("ra", "ko", "ven", "tal", "mi", "dor", "sel", "qua", "zen", "lo", "fir", "nex", "bri", "um", "tor", "ly")
_TASKS = ("image classification", "question answering", "speech recognition", "machine translation",
          "code generation", "object detection", "summarization", "retrieval", "depth estimation", "parsing")
_METRICS = ("accuracy", "F1", "BLEU", "word error rate", "mAP", "perplexity", "ROUGE-L", "recall@10")
_SETTINGS = ("learning rate", "batch size", "warmup steps", "dropout", "weight decay", "rank", "context length")
_PARTS = ("encoder", "decoder", "attention layer", "adapter", "tokenizer", "router", "memory bank", "loss")


def _name(rng: random.Random, n: int = 2) -> str:
    return "".join(rng.choice(_SYL) for _ in range(n)).capitalize()


def _val(rng: random.Random) -> str:
    return f"{rng.uniform(10, 95):.1f}"


def synthetic_papers(seed: int, n: int) -> list[tuple[str, str, list[str]]]:
    """``n`` invented full-text papers as (id, title, sentences), seeded."""
    rng = random.Random(seed * 7919 + 1)
    out: list[tuple[str, str, list[str]]] = []
    names: list[str] = []
    for k in range(n):
        m, base = _name(rng, 3).upper()[:rng.randint(3, 6)], _name(rng)
        task, metric, part = rng.choice(_TASKS), rng.choice(_METRICS), rng.choice(_PARTS)
        ds = [_name(rng) + rng.choice(("-10", "Bench", "QA", "Set", "-1K")) for _ in range(3)]
        title = f"{m}: {rng.choice(('Efficient', 'Scalable', 'Robust', 'Sparse'))} {part.title()}s for {task.title()}"
        s1, s2 = rng.sample(_SETTINGS, 2)
        v = [_val(rng) for _ in range(6)]
        fig = rng.randint(1, 6)
        sents = [
            f"{m} is a {rng.choice(('lightweight', 'modular', 'two-stage', 'sparse'))} method for {task} that replaces the {part} of {base} with a learned {rng.choice(_PARTS)}.",
            f"We propose {m}, which trains the {part} jointly with a {rng.choice(_PARTS)} and keeps the backbone frozen.",
            f"Prior work such as {base} needs a separate {part} per task, which makes deployment expensive.",
            f"We evaluate {m} on {ds[0]}, {ds[1]} and {ds[2]}, three {task} benchmarks.",
            f"On {ds[0]}, {m} reaches {v[0]} {metric}, {rng.randint(1, 9)}.{rng.randint(0, 9)} points above {base}.",
            f"We train with a {s1} of {rng.choice(('3e-4', '1e-3', '64', '128', '0.1', '8', '2048'))} and a {s2} of {rng.choice(('16', '0.05', '500', '4', '512'))}.",
            f"Removing the {rng.choice(_PARTS)} lowers {metric} on {ds[1]} from {v[1]} to {v[2]}.",
            f"{m} uses {rng.randint(2, 60)}% fewer trainable parameters than full fine-tuning of {base}.",
            f"A limitation of {m} is that it {rng.choice(('needs labelled data', 'does not handle long inputs', 'is slower at inference', 'assumes a fixed vocabulary'))}.",
            f"Figure {fig}: {metric} of {m} and {base} on {ds[2]} as the {s1} grows.",
            f"Figure {fig} shows that {m} keeps its {metric} as the {s1} grows, while {base} drops.",
            f"In Table {rng.randint(1, 5)} ({metric.capitalize()} on {ds[0]} and {ds[1]}), {m}: {ds[0]} {v[3]}, {ds[1]} {v[4]}.",
            f"In Table {rng.randint(1, 5)} ({metric.capitalize()} on {ds[0]} and {ds[1]}), {base}: {ds[0]} {v[5]}, {ds[1]} {_val(rng)}.",
            f"The code and checkpoints of {m} are released under an open licence.",
            f"Training takes {rng.randint(2, 90)} hours on {rng.choice((1, 4, 8))} {rng.choice(('A100', 'V100', 'H100'))} GPUs.",
        ]
        if names:  # another invented paper's method, named in this one (a sentence about it, not from it)
            prev = rng.choice(names)
            sents += [f"Compared with {prev}, {m} needs {rng.randint(2, 9)}x less compute on {ds[0]}.",
                      f"{prev} reported {_val(rng)} {metric} on {ds[1]}, which {m} improves on."]
        names.append(m)
        rest = sents[1:]  # the definition opens the paper, as an introduction does; the rest in any order
        rng.shuffle(rest)
        sents = sents[:1] + rest
        # Set-up sentences: they name the measure, the data and the method of a result but state no
        # value (the text around a table or a results paragraph), the hardest negatives for a
        # "how much / what value" question. A separate seeded stream leaves the rest of the paper as it was.
        side = random.Random(seed * 104729 + k)
        for text in (f"We report the {metric} of {m} and {base} on {ds[0]} and {ds[1]} in Table {side.randint(1, 5)}.",
                     f"We study how the {metric} of {m} on {ds[1]} changes with the {s1}.",
                     f"To measure {metric}, we follow the standard protocol of {ds[side.randint(0, 2)]}."):
            sents.insert(side.randint(1, len(sents)), text)
        out.append((f"{k:03d}-{m.lower()}", title, sents))
    return out
