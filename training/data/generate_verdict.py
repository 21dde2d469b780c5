"""Critic-verdict training data: drafts that answer their question and drafts that miss, as feature rows.

Every question group comes from :func:`training.data.generate_scorer.build` (a question written from
one sentence of a real training abstract, a bundled-corpus paper or an invented full-text paper, with
its paper's chunks and other papers' chunks that share its words): never evaluation text. Each group
yields drafts in the offline brain's own format (``sentence [n]`` paragraphs):

- **composed**: what the offline brain itself writes for the question from those chunks (its direct
  answer is right when it quotes the answering sentence: most are, the rest are the realistic misses);
- **answer**: the answering sentence first, then one or two other sentences of its paper (label 1);
- **topical**: the paper's best-scored sentence that is not the answer, first (label 0: a hard negative);
- **other paper**: a sentence of another paper that shares the question's words, first (label 0);
- **cut short**: the first third of the answering sentence, cited (label 0);
- **gate own / gate other**: the evidence gate's own draft (:func:`core.brains.offline.critic.gate_draft`,
  the scorer's best retrieved sentence as a one-sentence answer) with the question's paper among the
  chunks (label: whether it quotes the answering sentence) and without it (label 0: the knowledge base
  holds no answer; the names the question takes from its paper are then absent from every chunk);

and one gate pair: the evidence strength with the question's paper among the chunks (evidence: 1)
and without it (no evidence: 0). Rows carry the critic's own feature vector
(:func:`core.brains.offline.critic.verdict_inputs`), so training and use see the same features.

``python -m training.data.generate_verdict`` writes ``verdict_train.jsonl`` / ``verdict_heldout.jsonl``
(split by paper as the scorer's groups are); the same seed gives the same bytes.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from core.brains.offline import OfflineBrain
from core.brains.offline.critic import gate_draft, verdict_inputs
from core.brains.offline.evidence import profile
from core.brains.offline.verdict import direct_answer, evidence_strength
from core.brains.offline.text import term_set
from core.types import Intent, RetrievedContext, SynthesisRequest
from training.data.generate_scorer import DEFAULT_SEED, SYNTHETIC_PAPERS, build

DATA_DIR = Path(__file__).resolve().parent
TRAIN_FILE = DATA_DIR / "verdict_train.jsonl"
HELDOUT_FILE = DATA_DIR / "verdict_heldout.jsonl"
SEED = 31


def contexts_of(group: dict, *, own: bool = True) -> tuple[list[RetrievedContext], dict[str, int]]:
    """The group's chunks as retrieval returns them (own paper first), and each sentence's 1-based marker."""
    chunks: dict[str, list[dict]] = {}
    for c in group["candidates"]:
        if own or not c["own"]:
            chunks.setdefault(c["chunk"], []).append(c)
    ctxs, marker = [], {}
    for i, (cid, cs) in enumerate(chunks.items()):
        ctxs.append(RetrievedContext(content="\n".join(c["text"] for c in cs), chunk_id=cid,
                                     title=group["title"] if cs[0]["own"] else "",
                                     source=(group["paper"].split(":")[-1] + ".md") if cs[0]["own"] else ""))
        marker.update({c["text"]: i + 1 for c in cs})
    return ctxs, marker


def quotes(text: str, sentence: str) -> bool:
    """Whether ``text`` quotes ``sentence`` (holds most of its words)."""
    want = term_set(sentence)
    return bool(want) and len(want & term_set(text)) / len(want) >= 0.7


def drafts(group: dict, rng: random.Random, brain: OfflineBrain) -> list[tuple[str, str, int]]:
    """(kind, draft, label) for one group."""
    q = group["question"]
    ctxs, marker = contexts_of(group)
    answer = next(c["text"] for c in group["candidates"] if c["label"])
    own = [c["text"] for c in group["candidates"] if c["own"] and not c["label"]]
    other = [c["text"] for c in group["candidates"] if not c["own"]]
    cite = lambda s: f"{s} [{marker[s]}]"  # noqa: E731
    tail = lambda: " ".join(cite(s) for s in rng.sample(own, min(len(own), rng.randint(1, 2))))  # noqa: E731
    out: list[tuple[str, str, int]] = []
    req = SynthesisRequest(kind="simple", question=q, intent=Intent(type="factual", confidence=1.0), contexts=ctxs)
    composed = brain.compose(req)
    if "[" in composed:
        out.append(("composed", composed, int(quotes(direct_answer(composed), answer))))
    out.append(("answer", f"{cite(answer)}\n\n{tail()}" if own else cite(answer), 1))
    if own:
        lead = _best_non_answer(q, ctxs, answer, own)
        out.append(("topical", f"{cite(lead)}\n\n{tail()}", 0))
    if other:
        out.append(("other_paper", f"{cite(rng.choice(other))}\n\n{tail()}" if own else cite(rng.choice(other)), 0))
    words = answer.split()
    if len(words) >= 9:
        out.append(("cut_short", f"{' '.join(words[: len(words) // 3])} [{marker[answer]}]", 0))
    return out


def _best_non_answer(question: str, ctxs: list[RetrievedContext], answer: str, own: list[str]) -> str:
    """The own-paper sentence the scorer rates highest after the answer: the likeliest wrong pick."""
    from core.brains.offline.verdict import scored_pool

    ranked = sorted(((p, s.text) for s, p in scored_pool(ctxs, profile(question)) if s.text in own and s.text != answer),
                    reverse=True)
    return ranked[0][1] if ranked else own[0]


def rows(groups: list[dict], seed: int = SEED) -> list[dict]:
    """Feature rows for every draft of every group, plus the evidence-gate pairs."""
    rng = random.Random(seed)
    brain = OfflineBrain()
    out: list[dict] = []
    for g in groups:
        q = g["question"]
        ctxs, _ = contexts_of(g)
        for kind, text, label in drafts(g, rng, brain):
            out.append({"task": "verdict", "kind": kind, "paper": g["paper"], "question": q, "label": label,
                        "x": [round(v, 6) for v in verdict_inputs(q, None, ctxs, text, [])]})
        without, _ = contexts_of(g, own=False)
        answer = next(c["text"] for c in g["candidates"] if c["label"])
        for kind, ctx_list in (("gate_own", ctxs), ("gate_other", without)):
            found = gate_draft(q, None, ctx_list, gated=False) if ctx_list else None
            if found is not None:
                draft, plain = found
                label = int(kind == "gate_own" and quotes(direct_answer(draft), answer))
                out.append({"task": "verdict", "kind": kind, "paper": g["paper"], "question": q, "label": label,
                            "x": [round(v, 6) for v in verdict_inputs(q, plain, ctx_list, draft, [])]})
        for ctx_list, label in ((ctxs, 1), (without, 0)):
            strength = evidence_strength(ctx_list, profile(q)) if ctx_list else 0.0
            out.append({"task": "gate", "paper": g["paper"], "question": q, "label": label, "x": [round(strength, 6)]})
    return out


def main(limit: int | None = None) -> tuple[int, int]:
    train_groups, held_groups = build(DEFAULT_SEED, SYNTHETIC_PAPERS)
    if limit:
        train_groups, held_groups = train_groups[:limit], held_groups[: max(1, limit // 5)]
    train, held = rows(train_groups), rows(held_groups)
    for path, data in ((TRAIN_FILE, train), (HELDOUT_FILE, held)):
        path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in data), encoding="utf-8")
    print(f"verdict data: {len(train)} train rows, {len(held)} held-out rows from {len(train_groups)}/{len(held_groups)} "
          f"question groups (scorer groups seed {DEFAULT_SEED}, {SYNTHETIC_PAPERS} synthetic papers; draft seed {SEED})")
    return len(train), len(held)


if __name__ == "__main__":
    main()
