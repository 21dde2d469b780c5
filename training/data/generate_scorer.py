"""Sentence-scorer training groups: a question, the sentence that answers it, and hard negatives.

Sources (never evaluation text): the real abstracts under ``../shared/train/abstracts/docs``, the
bundled corpus (``core/hub/corpus``) and synthetic full-text papers invented here (sections, body
sentences with numbers, settings and datasets, figure captions, and table rows in the form the PDF
reader writes them: ``In Table 2 (caption), label: column value, column value.``).

Questions are written structurally from the answering sentence (:mod:`training.data.scorer_questions`):
a wh-frame chosen by the sentence's kind (a number, a definition, a proposal, a table row, a caption,
plain prose), some of its content words, a few of them swapped for a paraphrase, and the paper's
short name or not. Negatives per group: the other sentences of the same paper (they share its name)
and the sentences of other papers that share most of the question's words (they share its wording).

Researcher-style questions written by a small instruct model (:mod:`training.data.doc2query`, kept
in ``doc2query_scorer.jsonl``) join as further groups on the same sentences, with the same
negatives; each group says its ``source`` ("structural" or "llm").

Groups are split by paper (one paper in five is held out), so held-out accuracy is on unseen
papers. ``python -m training.data.generate_scorer`` regenerates both files; the same seed gives the
same bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from pathlib import Path

from core.brains.offline.text import content_terms, passage_sentences
from training.data.scorer_questions import introduction, overview_question, question_for, short_name, synthetic_papers

DATA_DIR = Path(__file__).resolve().parent
TRAIN_FILE = DATA_DIR / "scorer_train.jsonl"
HELDOUT_FILE = DATA_DIR / "scorer_heldout.jsonl"
DEFAULT_SEED = 23
SYNTHETIC_PAPERS = 80
CHUNK = 4  # sentences per retrieved chunk
CORPUS_DIR = Path(__file__).resolve().parents[2] / "core" / "hub" / "corpus"
ABSTRACTS_DIR = Path(os.environ.get("PAPERPILOT_TRAIN_ABSTRACTS", "/work/shared/train/abstracts/docs"))
_META = re.compile(r"^(?:authors?|source|url|title|year|venue|arxiv|tags)\s*:|https?://", re.I)


def load_markdown(path: Path) -> tuple[str, list[str]]:
    """(title, sentences) of a Markdown paper: front matter and header lines dropped."""
    text = path.read_text(encoding="utf-8")
    if text.startswith("---"):
        text = text.split("---", 2)[-1]
    title = next((ln[2:].strip() for ln in text.splitlines() if ln.startswith("# ")), path.stem)
    body = "\n".join(ln for ln in text.splitlines() if not _META.search(ln.strip()))
    sents = [s for s in passage_sentences(body) if len(s.split()) >= 5]
    return title, sents


def papers(seed: int, n_synthetic: int = SYNTHETIC_PAPERS) -> list[tuple[str, str, list[str]]]:
    """(id, title, sentences) of every source paper, in a fixed order."""
    out = []
    for d, tag in ((ABSTRACTS_DIR, "abstract"), (CORPUS_DIR, "corpus")):
        for p in sorted(d.glob("*.md")) if d.is_dir() else []:
            title, sents = load_markdown(p)
            if len(sents) >= 2:
                out.append((f"{tag}:{p.stem}", title, sents))
    for pid, title, sents in synthetic_papers(seed, n_synthetic):
        out.append((f"synthetic:{pid}", title, sents))
    return out


def _heldout(pid: str) -> bool:
    return int(hashlib.sha1(pid.encode()).hexdigest(), 16) % 5 == 0


def llm_questions(path: Path | None = None) -> dict[str, list[tuple[int, str, str]]]:
    """Accepted doc2query questions by paper id: (sentence index, question, sentence)."""
    from training.data.doc2query import OUT_FILE

    path = path or OUT_FILE
    out: dict[str, list[tuple[int, str, str]]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            r = json.loads(line)
            if not r["rejected"]:
                out.setdefault(r["paper"], []).append((r["index"], r["question"], r["sentence"]))
    return out


def build(seed: int = DEFAULT_SEED, n_synthetic: int = SYNTHETIC_PAPERS, per_paper: int = 6,
          lexical_negatives: int = 3, llm: bool = True) -> tuple[list[dict], list[dict]]:
    """Train and held-out groups: {question, paper, title, candidates: [{text, chunk, own, label}]}.

    Candidates come in chunks of :data:`CHUNK` consecutive sentences, as retrieval returns them: the
    question's whole paper, and the chunk of each other paper's sentence that shares most of the
    question's words.
    """
    rng = random.Random(seed)
    docs = papers(seed, n_synthetic)
    index = [(pid, pos, set(content_terms(s))) for pid, _, sents in docs for pos, s in enumerate(sents)]
    by_id = {pid: sents for pid, _, sents in docs}
    written = llm_questions() if llm else {}
    train, held = [], []
    for pid, title, sents in docs:
        anchors = [(a, question_for(sents[a], title, rng), "structural")
                   for a in rng.sample(range(len(sents)), min(per_paper, len(sents)))]
        intro = introduction(title, sents)
        if intro is not None:  # "what is X?": the sentence that first names X introduces it
            anchors.append((intro, overview_question(short_name(title), rng), "structural"))
        where = {s: i for i, s in enumerate(sents)}  # by text: sentences added later may shift indexes
        anchors += [(where[s], q, "llm") for _, q, s in written.get(pid, []) if s in where]
        for a, q, source in anchors:
            if not q:
                continue
            qterms = set(content_terms(q))
            cands = [{"text": s, "chunk": f"{pid}#{i // CHUNK}", "own": True, "label": int(i == a)} for i, s in enumerate(sents)]
            others = sorted(((len(qterms & t), rng.random(), p, i) for p, i, t in index if p != pid), reverse=True)
            for n, _, p, i in others[:lexical_negatives]:
                if not n:
                    continue
                start = i - i % CHUNK
                cands += [{"text": s, "chunk": f"{p}#{i // CHUNK}", "own": False, "label": 0}
                          for s in by_id[p][start:start + CHUNK] if not any(c["text"] == s for c in cands)]
            group = {"question": q, "paper": pid, "title": title, "source": source, "candidates": cands}
            (held if _heldout(pid) else train).append(group)
    return train, held


def write(path: Path, groups: list[dict]) -> None:
    path.write_text("".join(json.dumps(g, ensure_ascii=False, sort_keys=True) + "\n" for g in groups), encoding="utf-8")


def main() -> None:
    train, held = build()
    write(TRAIN_FILE, train)
    write(HELDOUT_FILE, held)
    print(f"scorer data: {len(train)} train groups, {len(held)} held-out groups "
          f"(seed {DEFAULT_SEED}, {SYNTHETIC_PAPERS} synthetic papers) -> {TRAIN_FILE.parent}")


if __name__ == "__main__":
    main()
