"""Researcher-style training questions for the sentence scorer, written by a small instruct model (doc2query).

The structural questions of :mod:`training.data.scorer_questions` read like keyword lists. Here a
local OpenAI-compatible server (Qwen2.5-Coder-0.5B-Instruct, GGUF Q4_K_M, through llama.cpp) is
given one sentence of a TRAINING paper (the 150 training abstracts, the bundled corpus, the
invented papers — never evaluation text) with its title, and asked for one question of a stated
kind that the sentence answers:

- ``number``: the sentence states a number; the question asks for it, without giving it;
- ``name``: the sentence names a dataset, model or benchmark; the question asks which one;
- ``reason``/``function``/``idea``: why, what a component does, what the main idea is.

The kind is chosen per sentence by what the sentence holds, so a model that otherwise opens every
question with "What method does…" writes varied ones. :func:`accept` then keeps a question only
when it is answerable from the sentence and does not copy it (see its docstring). Accepted rows are
appended to :data:`OUT_FILE` (committed, since generation takes 1–6 s a question on one CPU
thread); :mod:`training.data.generate_scorer` turns each into a training group.

``python -m training.data.doc2query --url http://127.0.0.1:8093 --limit 400`` resumes where the
file stops (rows already asked are skipped); the same seed picks the same sentences and kinds.
``--rounds N`` asks about N × 2 sentences of each paper. The committed file is round 1 (478 requests);
four rounds (1,714 requests, 961 kept) made the scorer and the reader no better (README, "Session 33").
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
import urllib.request
from pathlib import Path

from core.brains.offline.text import content_terms, words

OUT_FILE = Path(__file__).resolve().parent / "doc2query_scorer.jsonl"
DEFAULT_SEED = 31
MODEL = "qwen2.5-coder-0.5b-instruct-q4_k_m"
_NUMBER = re.compile(r"(?<![\w.-])(?<!Figure )(?<!Fig\. )(?<!Table )(?<!Section )(\d+(?:[.,]\d+)*)(?![\w-])")
_NAME = re.compile(r"(?<![\w-])([A-Z][A-Za-z]*[A-Z0-9][\w\-]*|[A-Z]{2,}[\w\-]*)(?![\w-])")
_ASK_WORDS = frozenset("paper method model approach propose proposed authors work study".split())

ASKS = {
    "number": "Write a question starting with '{opening}' that this sentence answers with the number {answer}. Do not write {answer} in the question.",
    "name": "Write a question starting with '{opening}' whose answer is {answer}. Do not write {answer} in the question.",
    "reason": "Write a question starting with 'Why' that this sentence answers.",
    "function": "Write a question starting with '{opening}' about what a part of the method does, that this sentence answers.",
    "idea": "Write a question starting with '{opening}' that this sentence answers.",
}
OPENINGS = {
    "number": ("How many", "How much", "What"),
    "name": ("Which", "On which", "What"),
    "reason": ("Why",),
    "function": ("What does", "How does"),
    "idea": ("What", "How"),
}
SYSTEM = ("You write short questions a machine-learning researcher would ask about a paper. Use your own words "
          "and never copy five or more consecutive words of the sentence. Reply with the question only.")
# One invented worked example (no real paper): the model copies the shape of the exchange.
EXAMPLE = ("Paper: KESTREL: Sparse Adapters for Speech\n"
           "Sentence: On the Marsh test set, KESTREL lowers the word error rate from 9.1% to 7.4%.\n"
           "Write a question starting with 'What' that this sentence answers with the number 7.4%. Do not write 7.4% in the question.",
           "What word error rate does KESTREL reach on Marsh?")


def answer_span(sentence: str, name: str) -> tuple[str, str]:
    """(kind, answer) for a sentence: the first number with its unit, else a name other than the
    paper's own, else ("", "") — a prose sentence, asked about by reason/function/idea."""
    m = _NUMBER.search(sentence)
    if m and not re.fullmatch(r"(19|20)\d\d", m.group(1)):
        return "number", m.group(1)
    for cand in _NAME.findall(sentence):
        if cand.lower() != name.lower() and cand not in sentence.split()[:1] and len(cand) > 2:
            return "name", cand
    return "", ""


def _runs(text: str, n: int) -> set[tuple[str, ...]]:
    ws = [w.lower() for w in words(text)]
    return {tuple(ws[i:i + n]) for i in range(len(ws) - n + 1)}


def accept(question: str, sentence: str, answer: str, name: str) -> str:
    """"" when ``question`` is usable for ``sentence``, else why not:

    one line ending in "?", 4–30 words; no run of 5 words copied from the sentence; the answer (a
    number or a name) not given away in the question; and answerable — a content term of the question,
    other than the paper's name and asking words, occurs in the sentence.
    """
    q = question.strip()
    if "\n" in q or not q.endswith("?") or not 4 <= len(q.split()) <= 30:
        return "form"
    if _runs(q, 5) & _runs(sentence, 5):
        return "copies"
    if answer and re.search(rf"(?<![\w.]){re.escape(answer.lower())}(?![\w]|\.\d)", q.lower()):
        return "gives answer"
    own = set(content_terms(name)) | set(content_terms(" ".join(_ASK_WORDS)))
    if not (set(content_terms(q)) - own) & set(content_terms(sentence)):
        return "unanswerable"
    return ""


def ask(url: str, user: str, seed: int, timeout: float = 180.0) -> str:
    """One completion for ``user`` after the system line and the worked example; its first line."""
    msgs = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": EXAMPLE[0]},
            {"role": "assistant", "content": EXAMPLE[1]}, {"role": "user", "content": user}]
    body = json.dumps({"messages": msgs, "temperature": 0.7, "max_tokens": 40, "seed": seed, "stop": ["\n"]}).encode()
    req = urllib.request.Request(url.rstrip("/") + "/v1/chat/completions", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as resp:
        text = json.load(resp)["choices"][0]["message"]["content"].strip()
    return (text.splitlines() or [""])[0].strip().strip('"')


def plan(seed: int = DEFAULT_SEED, per_paper: int = 2, rounds: int = 1) -> list[dict]:
    """The (paper, sentence, kind, answer, opening) requests, seeded, sources interleaved.

    Round 1 is the first ``per_paper`` sentences of each paper; each later round appends
    ``per_paper`` more of each paper's sentences not asked in an earlier round (on its own random
    stream), so the requests of earlier rounds keep their numbers and a longer run resumes them."""
    from training.data.generate_scorer import papers
    from training.data.scorer_questions import short_name

    out: list[dict] = []
    taken: dict[str, set[int]] = {}
    for rnd in range(1, rounds + 1):
        rng = random.Random(seed if rnd == 1 else seed * 1000 + rnd)
        batch = []
        for pid, title, sents in papers(23):  # the scorer data's own seed: the same sentences
            name = short_name(title)
            free = [i for i in range(len(sents)) if i not in taken.setdefault(pid, set())]
            for i in rng.sample(free, min(per_paper, len(free))):
                taken[pid].add(i)
                kind, answer = answer_span(sents[i], name)
                kind = kind if kind and rng.random() < 0.8 else rng.choice(("reason", "function", "idea"))
                answer = answer if kind in ("number", "name") else ""
                batch.append({"paper": pid, "title": title, "index": i, "sentence": sents[i], "kind": kind,
                              "answer": answer, "opening": rng.choice(OPENINGS[kind])})
        rng.shuffle(batch)
        out += batch
    return out


def drop_overlapping(questions: list[str], path: Path = OUT_FILE) -> int:
    """Mark as rejected ("overlaps an evaluation question") every kept row sharing a 4-word run
    with one of ``questions``: evaluation text is read only to keep the training data disjoint
    from it, never to write a question. Returns how many rows it marked."""
    def runs(text: str) -> set[tuple[str, ...]]:  # letters and digits only: "Gemini-1.5" is "gemini 1 5"
        ws = re.findall(r"[a-z0-9]+", text.lower())
        return {tuple(ws[i:i + 4]) for i in range(len(ws) - 3)}

    taken = set().union(*(runs(q) for q in questions)) if questions else set()
    rows = [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    marked = 0
    for r in rows:
        if not r["rejected"] and runs(r["question"]) & taken:
            r["rejected"], marked = "overlaps an evaluation question", marked + 1
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return marked


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url", default="http://127.0.0.1:8093")
    ap.add_argument("--limit", type=int, default=400, help="requests to make in this run (resumes after the last)")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--rounds", type=int, default=1, help="rounds of sentences per paper to ask about (each "
                    "later round adds two more of each paper's sentences; earlier requests keep their numbers)")
    ap.add_argument("--out", type=Path, default=OUT_FILE, help="the rows' file (default: the committed one)")
    ap.add_argument("--drop-overlap", metavar="DIR", help="only mark rows sharing a 4-word run with any "
                    "questions.jsonl under DIR (the evaluation sets) as rejected, then stop")
    args = ap.parse_args(argv)
    if args.drop_overlap:
        if not Path(args.drop_overlap).is_dir():
            raise SystemExit(f"doc2query: no such folder: {args.drop_overlap}")
        qs = [json.loads(ln)["question"] for p in sorted(Path(args.drop_overlap).rglob("questions.jsonl"))
              for ln in p.read_text(encoding="utf-8").splitlines() if ln.strip()]
        print(f"{drop_overlapping(qs, args.out)} rows overlap an evaluation question")
        return
    from training.data.scorer_questions import short_name

    done = {json.loads(ln)["request"] for ln in args.out.read_text(encoding="utf-8").splitlines()} if args.out.exists() else set()
    todo = [(k, r) for k, r in enumerate(plan(args.seed, rounds=args.rounds)) if k not in done][: args.limit]
    counts: dict[str, int] = {}
    with args.out.open("a", encoding="utf-8") as out:
        for k, r in todo:
            user = (f"Paper: {r['title']}\nSentence: {r['sentence']}\n"
                    + ASKS[r["kind"]].format(opening=r["opening"], answer=r["answer"]))
            t0 = time.time()
            try:
                q = ask(args.url, user, seed=args.seed * 1000 + k)
            except (OSError, ValueError, KeyError, IndexError) as exc:  # rows written so far stay; a rerun resumes
                raise SystemExit(f"doc2query: no question from {args.url} ({type(exc).__name__}: {exc}); "
                                 f"{sum(counts.values())} asked this run, kept in {args.out.name}") from None
            why = accept(q, r["sentence"], r["answer"], short_name(r["title"]))
            counts[why or "accepted"] = counts.get(why or "accepted", 0) + 1
            out.write(json.dumps({"request": k, **r, "question": q, "rejected": why, "model": MODEL,
                                  "seconds": round(time.time() - t0, 1)}, ensure_ascii=False) + "\n")
            out.flush()
    print(json.dumps(counts))


if __name__ == "__main__":
    main()
