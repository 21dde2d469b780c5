"""Router training data from the LLM brain: paraphrases of seeded template questions.

When an LLM is configured (``llm.provider: openai`` with a key or a local OpenAI-compatible
``base_url``), ``python -m training.data.generate_router --llm N`` asks it to rephrase N training
questions the way researchers actually type them. Each paraphrase keeps the seed's label, language
and history and is marked ``"source": "llm:<model>"``. Paraphrases only ever join the training split:
any that repeats a held-out question (or another row) is dropped, and so is one that loses the
seed's entity names (a rewrite that changed the subject no longer carries the seed's label).

A reply that is not the requested JSON gets the LLM brain's usual tolerant parse and one repair
request; a seed whose reply still cannot be read is skipped and counted, never guessed.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from training.data import vocab as V

INTENT_MEANING = {
    "factual": "asks for one fact about one method or paper",
    "comparative": "compares two or more methods along some dimension",
    "multi_hop": "needs several linked lookups, one building on another",
    "exploratory": "asks for an overview, survey or open-ended exploration of a topic",
    "follow_up": "continues the previous turn and only makes sense with it",
}

SYSTEM = (
    "You write training data for an intent classifier of a research assistant about AI/ML papers. "
    "Rewrite the given question {n} different ways a researcher might type it. Keep its language "
    "({lang}), its intent ({label}: a question that {meaning}) and every method or paper name it "
    "mentions, spelled the same. Vary wording, length, politeness and word order; do not answer it. "
    "Reply with JSON only: {{\"paraphrases\": [\"...\", ...]}}"
)


class Paraphrases(BaseModel):
    paraphrases: list[str] = Field(default_factory=list, description="rewrites of the question")


def _names_in(text: str) -> list[str]:
    names = sorted(set(V.ENTITIES_TRAIN + V.ENTITIES_HELDOUT), key=len, reverse=True)
    found, rest = [], text
    for name in names:
        if name in rest:
            found.append(name)
            rest = rest.replace(name, " ")
    return found


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


def messages_for(row: dict, n: int) -> list:
    lang = "English" if row.get("lang", "en") == "en" else "Chinese"
    system = SYSTEM.format(n=n, lang=lang, label=row["label"], meaning=INTENT_MEANING[row["label"]])
    prompt = f"Question: {row['question']}"
    if row.get("history"):
        prompt = f"Previous question: {row['history'][0]['content']}\n" + prompt
    return [SystemMessage(content=system), HumanMessage(content=prompt)]


async def paraphrase_rows(caller: Any, seeds: list[dict], *, per_seed: int, taken: set[str],
                          concurrency: int = 4, log=print) -> tuple[list[dict], dict]:
    """Paraphrase ``seeds`` with ``caller`` (a :class:`core.brains.llm.caller.ModelCaller`).

    ``taken`` holds normalised questions that must not be produced again (training and held-out);
    it is updated. Returns (new rows in seed order, counts).
    """
    gate = asyncio.Semaphore(concurrency)

    async def one(row: dict) -> Paraphrases | None:
        async with gate:
            return await caller.structured(Paraphrases, messages_for(row, per_seed), "data.paraphrase")

    replies = await asyncio.gather(*(one(r) for r in seeds))
    counts = {"seeds": len(seeds), "unreadable": 0, "duplicate": 0, "lost_names": 0, "added": 0}
    rows: list[dict] = []
    for seed, reply in zip(seeds, replies):
        if reply is None:
            counts["unreadable"] += 1
            continue
        names = _names_in(seed["question"])
        for text in reply.paraphrases[:per_seed]:
            text = " ".join(str(text).split())
            if not text or len(text) > 400:
                continue
            if any(name not in text for name in names):
                counts["lost_names"] += 1
                continue
            if _norm(text) in taken:
                counts["duplicate"] += 1
                continue
            taken.add(_norm(text))
            rows.append({**seed, "question": text, "source": f"llm:{caller.model_name}"})
            counts["added"] += 1
    log(f"router data: LLM paraphrases {counts}")
    return rows, counts


def extend_with_llm(train: list[dict], heldout: list[dict], caller: Any, *, seeds: int, per_seed: int = 3,
                    seed: int = 13, log=print) -> tuple[list[dict], dict]:
    """The training split plus LLM paraphrases of ``seeds`` rows picked with ``seed`` (balanced by label)."""
    rng = random.Random(seed)
    by_label: dict[str, list[dict]] = {}
    for row in train:
        by_label.setdefault(row["label"], []).append(row)
    picked: list[dict] = []
    labels = sorted(by_label)
    for i in range(seeds):
        pool = by_label[labels[i % len(labels)]]
        picked.append(pool[rng.randrange(len(pool))])
    taken = {_norm(r["question"]) for r in train + heldout}
    new, counts = asyncio.run(paraphrase_rows(caller, picked, per_seed=per_seed, taken=taken, log=log))
    mixed = train + new
    rng.shuffle(mixed)
    return mixed, counts


def caller_from_settings(settings: Any) -> Any:
    """The LLM brain's model caller for ``settings.llm`` (ConfigError when no LLM is configured)."""
    from core.brains.llm.caller import ModelCaller
    from core.brains.llm.chat import build_chat_model, endpoint_of
    from core.config import ConfigError

    provider = settings.llm.resolved_provider()
    if provider != "openai":
        raise ConfigError("llm.provider: LLM paraphrases need an OpenAI-compatible LLM "
                          f"(provider resolves to {provider!r}); set OPENAI_API_KEY or OPENAI_BASE_URL")
    return ModelCaller(build_chat_model(settings), model_name=settings.llm.model, base_url=endpoint_of(settings))
