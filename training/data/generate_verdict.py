"""Critic-verdict training data: drafts that answer their question and drafts that miss, as feature rows.

Every question group comes from :func:`training.data.generate_scorer.build` (a question written from
one sentence of a real training abstract, a bundled-corpus paper or an invented full-text paper, with
its paper's chunks and other papers' chunks that share its words): never evaluation text. Each group
yields drafts in the offline brain's own format (``sentence [n]`` paragraphs):

- **composed**: what the offline brain itself writes for the question from those chunks (its direct
  answer is right when it quotes the answering sentence: most are, the rest are the realistic misses);
- **composed overview / composed chain**: what it writes as an overview or a multi-hop chain, judged
  as the critic judges those, on all their prose (right when a line of the prose quotes the answering
  sentence), once from the chunks and once from the same chunks with the answering sentence left out
  (the judged evidence still holds it: the prose missed the answer). Without them the verdict met
  long many-sentence prose only in use, and rated nearly every overview and chain a pass;
- **composed unretrieved**: what the brain writes as a direct answer when retrieval missed the answering
  sentence (the group's chunks with it left out, and judged against those same chunks: label 0). This
  is the realistic miss of full-text retrieval, where the answering passage was never returned and the
  brain quotes its best remaining pick; the brain's own misses from complete evidence are too few
  (about one composed draft in five) to teach the verdict what a miss looks like;
- **answer**: the answering sentence first, then one or two other sentences of its paper (label 1);
- **topical**: the paper's best-scored sentence that is not the answer, first (label 0: a hard negative);
- **other paper**: a sentence of another paper that shares the question's words, first (label 0);
- **cut short**: the first third of the answering sentence, cited (label 0);
- **gate own / gate other**: the evidence gate's own draft (:func:`core.brains.offline.critic.gate_draft`,
  the scorer's best retrieved sentence as a one-sentence answer) with the question's paper among the
  chunks (label: whether it quotes the answering sentence) and without it (label 0: the knowledge base
  holds no answer; the names the question takes from its paper are then absent from every chunk);

Gate drafts also come for questions that ask about two papers at once, since the gate judges a
comparison as a one-sentence factual draft too: two groups of different papers whose titles give a
short name are joined (:func:`paired`) into a **comparison** ("How do A and B differ on <words of A's
answer>?") or a **two-part** question (A's question, then a trailing clause about B: ", and what does B
report on <words of B's answer>?"). Their contexts
are both papers' chunks with the two groups' lexical neighbours (gate own), one of the two papers
with the neighbours (gate own, form ``one_side``: a side spelt differently or missing still leaves
evidence) or the neighbours alone (gate other). Each such row says its ``form``.

and one gate pair: the evidence strength with the question's paper among the chunks (evidence: 1)
and without it (no evidence: 0). Rows carry the critic's own feature vector
(:func:`core.brains.offline.critic.verdict_inputs`), so training and use see the same features.

``python -m training.data.generate_verdict`` writes ``verdict_train.jsonl`` / ``verdict_heldout.jsonl``
(split by paper as the scorer's groups are); the same seed gives the same bytes.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path

from core.brains.offline import OfflineBrain
from core.brains.offline.critic import gate_draft, prose, row_inputs, structure, verdict_inputs
from core.brains.offline.evidence import profile
from core.brains.offline.verdict import direct_answer, evidence_strength
from core.brains.offline.slots import extract_entities
from core.brains.offline.text import term_set
from core.types import Intent, RetrievedContext, SynthesisRequest
from core.vocabulary import Vocabulary
from training.data.generate_scorer import DEFAULT_SEED, SYNTHETIC_PAPERS, build
from training.data.scorer_questions import short_name, subject_words

NO_NAMES = Vocabulary()  # the examples are read as the brain reads text outside a collection: no known names

DATA_DIR = Path(__file__).resolve().parent
TRAIN_FILE = DATA_DIR / "verdict_train.jsonl"
HELDOUT_FILE = DATA_DIR / "verdict_heldout.jsonl"
GATE_TRAIN_FILE = DATA_DIR / "verdict_gate_train.jsonl"  # the gate's drafts alone (``--gate-only``)
GATE_HELDOUT_FILE = DATA_DIR / "verdict_gate_heldout.jsonl"
ROW_TRAIN_FILE = DATA_DIR / "verdict_row_train.jsonl"  # comparison rows alone (``--row-only``)
ROW_HELDOUT_FILE = DATA_DIR / "verdict_row_heldout.jsonl"
SEED = 31
PAIR_SHARE = 0.5  # joined two-paper questions per question group
# The drafts the brain composes as an overview or a chain (the critic judges them on all their prose):
# draft kind -> the synthesis kind and intent type that compose and judge them.
PROSE_DRAFTS = {"composed_overview": "exploratory", "composed_chain": "multi_hop"}
# A direct answer composed from the chunks without the answering sentence, judged against those chunks.
UNRETRIEVED = "composed_unretrieved"
# Comparison tables the brain composes, one row judged (``comparison_rows``): with the asked paper's
# answering sentence in the evidence, and without it.
ROW_COMPOSED = "composed_row"
ROW_UNRETRIEVED = "composed_row_unretrieved"
ROW_SHARE = 1.0  # comparisons per named question group


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


def without(ctxs: list[RetrievedContext], sentence: str) -> list[RetrievedContext]:
    """The same chunks, in the same order (so markers keep their meaning), with ``sentence`` left out;
    [] when that empties its chunk."""
    out = [c.model_copy(update={"content": "\n".join(ln for ln in c.content.splitlines() if ln != sentence)})
           for c in ctxs]
    return out if all(c.content.strip() for c in out) else []


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
    lacking = without(ctxs, answer)
    if lacking:  # retrieval missed the answer: whatever the brain quotes instead is a miss
        unretrieved = brain.compose(req.model_copy(update={"contexts": lacking}))
        if "[" in unretrieved:
            out.append((UNRETRIEVED, unretrieved, 0))
    for kind, shape in PROSE_DRAFTS.items():  # an overview or a chain of the same evidence, judged on its prose
        for evidence in (ctxs, lacking):  # composed with the answering sentence, and with it left out
            req = SynthesisRequest(kind=shape, question=q, intent=Intent(type=shape, confidence=1.0),
                                   contexts=evidence)
            text = brain.compose(req) if evidence else ""
            if "[" in text:
                out.append((kind, text, int(any(quotes(unit, answer) for unit in prose(text).splitlines()))))
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

    ranked = sorted(((p, s.text) for s, p in scored_pool(ctxs, profile(question, vocab=NO_NAMES)) if s.text in own and s.text != answer),
                    reverse=True)
    return ranked[0][1] if ranked else own[0]


def _paper_of(chunk: str) -> str:
    return chunk.rsplit("#", 1)[0]


def _named(group: dict) -> str:
    """The group's paper's short name when its title has one ("Name: …", at most three words), else ""."""
    head = group["title"].split(":", 1)[0].strip() if ":" in group["title"] else ""
    return short_name(group["title"]) if head and len(head.split()) <= 3 else ""


def _topic(group: dict, rng: random.Random) -> str:
    """One to three subject words of the group's answering sentence ("results" when it has none)."""
    return " ".join(subject_words(_answer(group), rng, rng.randint(1, 3))) or "results"


def _answer(group: dict) -> str:
    return next(c["text"] for c in group["candidates"] if c["label"])


def paired_question(a: dict, b: dict, rng: random.Random) -> tuple[str, str]:
    """(form, question) asking about the papers of groups ``a`` and ``b`` together."""
    na, nb = _named(a), _named(b)
    topic = lambda g: _topic(g, rng)  # noqa: E731
    if rng.random() < 0.5:
        t = topic(a)
        return "comparison", rng.choice([f"How do {na} and {nb} differ on {t}?", f"Compare {na} and {nb} on {t}.",
                                         f"{na} versus {nb}: {t}?", f"Which of {na} and {nb} does better on {t}?"])
    t = topic(b)
    second = rng.choice([f"what does {nb} report on {t}", f"how does {nb} handle {t}", f"what about {t} in {nb}"])
    return "two_part", f"{a['question'].rstrip('?. ')}, and {second}?"


def paired_contexts(a: dict, b: dict, keep: set[str]) -> list[RetrievedContext]:
    """The chunks of both groups as one retrieval: the papers in ``keep`` (own chunks, titled) and the
    lexical neighbours of either paper that are neither of the two."""
    titles = {a["paper"]: a["title"], b["paper"]: b["title"]}
    chunks: dict[str, list[str]] = {}
    for g in (a, b):
        for c in g["candidates"]:
            paper = _paper_of(c["chunk"])
            if (paper in keep or paper not in titles) and c["text"] not in chunks.get(c["chunk"], []):
                chunks.setdefault(c["chunk"], []).append(c["text"])
    out = []
    for cid, texts in sorted(chunks.items(), key=lambda kv: _paper_of(kv[0]) not in keep):
        paper = _paper_of(cid)
        out.append(RetrievedContext(content="\n".join(texts), chunk_id=cid, title=titles.get(paper, ""),
                                    source=(paper.split(":")[-1] + ".md") if paper in titles else ""))
    return out


def paired(groups: list[dict], rng: random.Random) -> list[dict]:
    """Gate rows for two-paper questions joined from ``groups`` (pairs of different named papers)."""
    out: list[dict] = []
    for a, b in _pairs(groups, rng, PAIR_SHARE):
        form, q = paired_question(a, b, rng)
        intent = Intent(type="comparative" if form == "comparison" else "multi_hop", confidence=1.0,
                        entities=extract_entities(q, NO_NAMES) or [_named(a), _named(b)], reformulated_query=q)
        sides = [("gate_own", form, {a["paper"], b["paper"]}), ("gate_other", form, set())]
        asked = [g["paper"] for g in (a, b) if _named(g) in q]  # one side alone: a paper the question names
        if asked:
            sides.append(("gate_own", "one_side", {rng.choice(asked)}))
        for kind, shape, keep in sides:
            ctx_list = paired_contexts(a, b, keep)
            found = gate_draft(q, intent, ctx_list, vocab=NO_NAMES, gated=False) if ctx_list else None
            if found is not None:
                draft, plain = found
                out.append({"task": "verdict", "kind": kind, "form": shape, "paper": a["paper"], "question": q,
                            "label": int(kind == "gate_own"),
                            "x": [round(v, 6) for v in verdict_inputs(q, plain, ctx_list, draft, [], vocab=NO_NAMES)]})
    return out


def _pairs(groups: list[dict], rng: random.Random, share: float) -> Iterator[tuple[dict, dict]]:
    """Pairs (a, b) of groups of two different named papers: about ``share`` of the named groups, each
    with a partner drawn at random."""
    named = [g for g in groups if _named(g)]
    for a in named:
        if rng.random() >= share:
            continue
        b = rng.choice(named)
        if b["paper"] != a["paper"] and _named(b) != _named(a):
            yield a, b


def comparison_rows(groups: list[dict], rng: random.Random, brain: OfflineBrain) -> list[dict]:
    """Rows of the comparison tables the brain composes (task ``row``): two named papers compared on
    the subject words of one's answering sentence ("How do A and B differ on <words>?"), over both
    papers' chunks and their lexical neighbours. The asked paper's row is labelled by whether its cells
    quote the answering sentence (``composed_row``); composed again with that sentence left out of the
    evidence, the row is a miss (``composed_row_unretrieved``). The features are the critic's own
    (:func:`core.brains.offline.critic.row_inputs`), so training and use see the same row."""
    out: list[dict] = []
    for a, b in _pairs(groups, rng, ROW_SHARE):
        na, nb = _named(a), _named(b)
        first, second = (na, nb) if rng.random() < 0.5 else (nb, na)
        t = _topic(a, rng)
        q = rng.choice([f"How do {first} and {second} differ on {t}?", f"Compare {first} and {second} on {t}.",
                        f"{first} versus {second}: {t}?", f"What do {first} and {second} each report on {t}?"])
        intent = Intent(type="comparative", confidence=1.0, entities=[first, second], reformulated_query=q)
        answer = _answer(a)
        ctxs = paired_contexts(a, b, {a["paper"], b["paper"]})
        for kind, evidence in ((ROW_COMPOSED, ctxs), (ROW_UNRETRIEVED, without(ctxs, answer))):
            if not evidence:
                continue
            draft = brain.compose(SynthesisRequest(kind="comparative", question=q, intent=intent, contexts=evidence))
            st = structure(q, intent, evidence, draft, [], vocab=NO_NAMES)
            x = row_inputs(evidence, draft, st).get(na)
            if x is None:  # the asked paper got no row of its own
                continue
            cells = "\n".join(c.text for c in st.found if c.subject == na)
            out.append({"task": "row", "kind": kind, "paper": a["paper"], "question": q,
                        "label": int(kind == ROW_COMPOSED and quotes(cells, answer)), "x": [round(v, 6) for v in x]})
    return out


def gate_draft_rows(group: dict) -> list[dict]:
    """The evidence gate's own drafts for one group: with the question's paper among the chunks
    (gate own) and without it (gate other)."""
    q = group["question"]
    answer = next(c["text"] for c in group["candidates"] if c["label"])
    out = []
    for kind, (ctx_list, _) in (("gate_own", contexts_of(group)), ("gate_other", contexts_of(group, own=False))):
        found = gate_draft(q, None, ctx_list, vocab=NO_NAMES, gated=False) if ctx_list else None
        if found is not None:
            draft, plain = found
            label = int(kind == "gate_own" and quotes(direct_answer(draft), answer))
            out.append({"task": "verdict", "kind": kind, "paper": group["paper"], "question": q, "label": label,
                        "x": [round(v, 6) for v in verdict_inputs(q, plain, ctx_list, draft, [], vocab=NO_NAMES)]})
    return out


def rows(groups: list[dict], seed: int = SEED, *, gate_only: bool = False) -> list[dict]:
    """Feature rows for every draft of every group, plus the evidence-gate pairs (``gate_only``: the
    gate's drafts alone, which are all that refitting the gate needs)."""
    rng = random.Random(seed)
    brain = OfflineBrain()
    out: list[dict] = []
    for g in groups:
        q = g["question"]
        ctxs, _ = contexts_of(g)
        if not gate_only:
            answer = next(c["text"] for c in g["candidates"] if c["label"])
            for kind, text, label in drafts(g, rng, brain):
                intent = Intent(type=PROSE_DRAFTS[kind], confidence=1.0) if kind in PROSE_DRAFTS else None
                judged = without(ctxs, answer) if kind == UNRETRIEVED else ctxs
                out.append({"task": "verdict", "kind": kind, "paper": g["paper"], "question": q, "label": label,
                            "x": [round(v, 6) for v in verdict_inputs(q, intent, judged, text, [], vocab=NO_NAMES)]})
        out += gate_draft_rows(g)
        if gate_only:
            continue
        others, _ = contexts_of(g, own=False)
        for ctx_list, label in ((ctxs, 1), (others, 0)):
            strength = evidence_strength(ctx_list, profile(q, vocab=NO_NAMES)) if ctx_list else 0.0
            out.append({"task": "gate", "paper": g["paper"], "question": q, "label": label, "x": [round(strength, 6)]})
    return out + paired(groups, random.Random(seed + 1))


def files(gate_only: bool = False, rows_only: bool = False) -> tuple[Path, Path]:
    """(train, held-out) files: every row, the gate's drafts alone, or the comparison rows alone."""
    if rows_only:
        return ROW_TRAIN_FILE, ROW_HELDOUT_FILE
    return (GATE_TRAIN_FILE, GATE_HELDOUT_FILE) if gate_only else (TRAIN_FILE, HELDOUT_FILE)


def main(limit: int | None = None, gate_only: bool = False, rows_only: bool = False) -> tuple[int, int]:
    train_groups, held_groups = build(DEFAULT_SEED, SYNTHETIC_PAPERS)
    if limit:
        train_groups, held_groups = train_groups[:limit], held_groups[: max(1, limit // 5)]
    if rows_only:
        brain = OfflineBrain()
        train, held = (comparison_rows(g, random.Random(SEED + 2), brain) for g in (train_groups, held_groups))
        for path, data in zip(files(rows_only=True), (train, held)):
            path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in data),
                            encoding="utf-8")
        print(f"comparison rows: {len(train)} train, {len(held)} held out from {len(train_groups)}/{len(held_groups)} "
              f"question groups (scorer groups seed {DEFAULT_SEED}; pair seed {SEED + 2})")
        return len(train), len(held)
    train, held = rows(train_groups, gate_only=gate_only), rows(held_groups, gate_only=gate_only)
    for path, data in zip(files(gate_only), (train, held)):
        path.write_text("".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in data), encoding="utf-8")
    pairs = [sum(1 for r in rs if r.get("form")) for rs in (train, held)]
    print(f"verdict data: {len(train)} train rows, {len(held)} held-out rows from {len(train_groups)}/{len(held_groups)} "
          f"question groups (scorer groups seed {DEFAULT_SEED}, {SYNTHETIC_PAPERS} synthetic papers; draft seed {SEED}, "
          f"pair seed {SEED + 1}); two-paper gate rows {pairs[0]} train / {pairs[1]} held out")
    return len(train), len(held)


if __name__ == "__main__":
    import sys

    main(gate_only="--gate-only" in sys.argv[1:], rows_only="--row-only" in sys.argv[1:])
