"""The offline brain's built-in vocabulary: ML methods and papers, comparison dimensions.

Each entity has a canonical name, aliases (matched on word boundaries; ``case=True`` for aliases
that collide with ordinary words, like "ReAct"), a year (orders stages in exploratory answers) and
related entities (facets the ReAct loop explores). Dimensions map normalized names to the cue
words that signal them in questions and in evidence.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache


@dataclass(frozen=True)
class Entity:
    name: str
    aliases: tuple[str, ...] = ()
    year: int = 0
    related: tuple[str, ...] = ()
    case_sensitive: tuple[str, ...] = ()  # aliases matched only with this exact casing
    kind: str = "method"


def _e(name: str, aliases: str = "", year: int = 0, related: str = "", case: str = "", kind: str = "method") -> Entity:
    split = lambda s: tuple(a.strip() for a in s.split("|") if a.strip())  # noqa: E731
    return Entity(name, split(aliases), year, split(related), split(case), kind)


ENTITIES: tuple[Entity, ...] = (
    _e("LoRA", "low-rank adaptation|low rank adaptation|低秩适配|低秩自适应", 2021, "full fine-tuning|rank|adapter"),
    _e("QLoRA", "quantized lora|qlora", 2023, "LoRA|NF4|double quantization|paged optimizers|Guanaco"),
    _e("NF4", "4-bit normalfloat|normalfloat|nf4", 2023, "QLoRA|quantization", kind="concept"),
    _e("Double Quantization", "double quantization|双重量化", 2023, "QLoRA", kind="concept"),
    _e("Paged Optimizers", "paged optimizer|paged optimizers", 2023, "QLoRA", kind="concept"),
    _e("Guanaco", "guanaco", 2023, "QLoRA", kind="model"),
    _e("full fine-tuning", "full fine-tuning|full finetuning|full-parameter fine-tuning|full parameter fine-tuning|全量微调|全参数微调", 0, "LoRA", kind="concept"),
    _e("DPO", "direct preference optimization|直接偏好优化", 2023, "RLHF|reward model|preference"),
    _e("RLHF", "reinforcement learning from human feedback|人类反馈强化学习|基于人类反馈的强化学习", 2017, "InstructGPT|PPO|reward model|supervised fine-tuning"),
    _e("PPO", "proximal policy optimization|近端策略优化", 2017, "RLHF|reward model"),
    _e("InstructGPT", "instructgpt|instruct-gpt", 2022, "RLHF|PPO|reward model|GPT-3", kind="paper"),
    _e("reward model", "reward model|reward models|奖励模型", 0, "RLHF|PPO", kind="concept"),
    _e("supervised fine-tuning", "supervised fine-tuning|supervised finetuning|SFT|监督微调", 0, "RLHF", kind="concept"),
    _e("RLAIF", "rlaif|reinforcement learning from ai feedback", 2022, "RLHF|Constitutional AI"),
    _e("Constitutional AI", "constitutional ai", 2022, "RLAIF|RLHF", kind="paper"),
    _e("KTO", "kto|kahneman-tversky optimization", 2024, "DPO"),
    _e("ORPO", "orpo|odds ratio preference optimization", 2024, "DPO"),
    _e("GRPO", "grpo|group relative policy optimization", 2024, "PPO"),
    _e("RAG", "retrieval-augmented generation|retrieval augmented generation|检索增强生成|检索增强", 2020, "Self-RAG"),
    _e("Self-RAG", "self-rag|self rag", 2023, "RAG"),
    _e("ReAct", "reason and act|reasoning and acting", 2022, "Chain-of-Thought|Reflexion", case="ReAct|REACT"),
    _e("Plan-and-Solve", "plan-and-solve|plan and solve|PS prompting", 2023, "Chain-of-Thought"),
    _e("Plan-and-Execute", "plan-and-execute|plan and execute", 2023, "Plan-and-Solve|ReWOO"),
    _e("ReWOO", "rewoo|reasoning without observation", 2023, "ReAct"),
    _e("Reflexion", "reflexion", 2023, "ReAct"),
    _e("Toolformer", "toolformer", 2023, "ReAct"),
    _e("Chain-of-Thought", "chain-of-thought|chain of thought|CoT|思维链", 2022, "Self-Consistency", case="CoT"),
    _e("Self-Consistency", "self-consistency|self consistency", 2022, "Chain-of-Thought"),
    _e("Tree of Thoughts", "tree of thoughts|tree-of-thoughts|ToT", 2023, "Chain-of-Thought", case="ToT"),
    _e("Transformer", "transformer|transformers|attention is all you need|self-attention", 2017, "BERT|GPT-3", kind="architecture"),
    _e("BERT", "bert", 2018, "Transformer", kind="model"),
    _e("GPT-3", "gpt-3|gpt3|language models are few-shot learners", 2020, "Transformer|InstructGPT", kind="model"),
    _e("GPT-4", "gpt-4|gpt4", 2023, "GPT-3", kind="model"),
    _e("LLaMA", "llama|llama 2|llama-2", 2023, "Transformer", kind="model"),
    _e("Adapters", "adapter layers|adapter tuning|houlsby adapters", 2019, "LoRA", case="Adapters"),
    _e("Prefix Tuning", "prefix tuning|prefix-tuning", 2021, "LoRA|Prompt Tuning"),
    _e("Prompt Tuning", "prompt tuning|prompt-tuning", 2021, "Prefix Tuning"),
    _e("Mixture of Experts", "mixture of experts|mixture-of-experts|MoE|混合专家", 2017, "Transformer", case="MoE"),
    _e("FlashAttention", "flashattention|flash attention|flash-attention", 2022, "Transformer"),
    _e("PEFT", "parameter-efficient fine-tuning|parameter efficient fine-tuning|peft|参数高效微调", 2021, "LoRA|Adapters", kind="concept"),
)

# Acronyms the CamelCase/acronym heuristic must not mistake for methods.
NOT_ENTITIES = frozenset(
    "GPU GPUS CPU TPU API APIS LLM LLMS NLP AI ML RL GB MB TB FP16 BF16 FP32 INT8 INT4 VRAM SOTA "
    "PDF URL HTTP MCP JSON TUI CLI OK USA FAQ QA".split()
)


@dataclass(frozen=True)
class Dimension:
    name: str
    cues: tuple[str, ...]  # phrases that signal the dimension in a question
    evidence: tuple[str, ...] = field(default=())  # extra stems that signal it in a context


DIMENSIONS: tuple[Dimension, ...] = (
    Dimension("memory", ("memory", "vram", "footprint", "gpu memory", "内存", "显存"),
              ("memory", "gb", "vram", "footprint", "quantiz", "4-bit", "gpu")),
    Dimension("accuracy", ("accuracy", "accurate", "performance", "quality", "benchmark", "score", "准确", "精度", "效果", "性能"),
              ("accuracy", "performance", "quality", "match", "benchmark", "score", "%", "degrad", "outperform", "comparabl", "on par")),
    Dimension("training time", ("training time", "faster to train", "train faster", "training speed", "time to train", "训练时间", "训练速度"),
              ("throughput", "hour", "faster", "slower", "speed", "speedup", "training step", "training time", "gpu-hour")),
    Dimension("speed", ("speed", "fast", "faster", "slow", "slower", "latency", "throughput", "inference", "速度", "延迟"),
              ("speed", "latency", "faster", "slower", "throughput", "inference", "overhead")),
    Dimension("cost", ("cost", "cheap", "cheaper", "expensive", "compute", "price", "budget", "成本", "算力"),
              ("cost", "cheap", "expensive", "compute", "gpu", "hardware")),
    Dimension("parameters", ("parameters", "trainable parameters", "params", "parameter count", "参数量", "参数"),
              ("parameter", "trainable", "rank", "weight", "10,000", "fewer")),
    Dimension("data", ("data", "dataset", "datasets", "labels", "annotation", "preference data", "数据"),
              ("data", "dataset", "preference", "label", "comparison", "human", "annot", "pair")),
    Dimension("stability", ("stability", "stable", "unstable", "robust", "稳定"),
              ("stable", "unstable", "stability", "instabil", "robust", "hyperparameter", "tuning")),
    Dimension("complexity", ("complexity", "simplicity", "simpler", "simple", "complex", "implementation", "复杂", "简单"),
              ("simple", "simpler", "complex", "pipeline", "stage", "implement", "reward model", "sampling")),
    Dimension("scalability", ("scalability", "scale", "scaling", "larger models", "扩展"),
              ("scale", "scaling", "larger", "65b", "billion", "size")),
)
DIMENSION_BY_NAME = {d.name: d for d in DIMENSIONS}


def _alias_pattern(alias: str) -> str:
    body = re.escape(alias).replace(r"\-", r"[\s\-]?").replace(r"\ ", r"[\s\-]+")
    if re.search(r"[\u4e00-\u9fff]", alias):
        return body
    return rf"(?<![A-Za-z0-9]){body}(?![A-Za-z0-9]|-[A-Za-z0-9]|\.\d)"


@lru_cache(maxsize=None)
def _entity_regexes() -> tuple[tuple[Entity, re.Pattern, re.Pattern | None], ...]:
    out = []
    for ent in ENTITIES:
        insensitive = [a for a in (ent.name, *ent.aliases) if a not in ent.case_sensitive]
        pat_i = re.compile("|".join(_alias_pattern(a) for a in insensitive), re.I)
        pat_c = re.compile("|".join(_alias_pattern(a) for a in ent.case_sensitive)) if ent.case_sensitive else None
        out.append((ent, pat_i, pat_c))
    return tuple(out)


def find_entities(text: str) -> list[tuple[int, str]]:
    """``(position, canonical name)`` for every built-in entity mentioned in ``text``."""
    return list(_find_entities(text))


@lru_cache(maxsize=4096)
def _find_entities(text: str) -> tuple[tuple[int, str], ...]:
    found: list[tuple[int, str]] = []
    for ent, pat_i, pat_c in _entity_regexes():
        positions = [m.start() for m in pat_i.finditer(text)]
        if pat_c is not None:
            positions += [m.start() for m in pat_c.finditer(text)]
        if positions:
            found.append((min(positions), ent.name))
    return tuple(sorted(found))


def entity(name: str) -> Entity | None:
    for ent in ENTITIES:
        if ent.name.lower() == name.lower():
            return ent
    return None


@lru_cache(maxsize=512)
def mention_pattern(name: str) -> re.Pattern:
    """A regex that finds ``name`` (a built-in entity with its aliases, or any literal name)."""
    ent = entity(name)
    if ent is None:
        # an acronym ("ALBERT", "YOLOS") is matched as written: "Albert Gu" is not ALBERT
        caps = sum(c.isupper() for c in name) >= 2 and not any(c.islower() for c in name)
        return re.compile(_alias_pattern(name), 0 if caps else re.I)
    parts = [_alias_pattern(a) for a in (ent.name, *ent.aliases) if a not in ent.case_sensitive]
    pat = "|".join(f"(?i:{p})" for p in parts)
    if ent.case_sensitive:
        pat += "|" + "|".join(_alias_pattern(a) for a in ent.case_sensitive)
    return re.compile(pat)


@lru_cache(maxsize=16384)
def mentions(text: str, name: str) -> bool:
    return bool(mention_pattern(name).search(text))


def find_dimensions(text: str) -> list[str]:
    """Normalized dimension names signalled in a question, in order of first mention."""
    low = text.lower()
    hits: list[tuple[int, str]] = []
    taken: list[tuple[int, int]] = []
    # longest cues first, so "faster to train" wins over "faster"
    cues = sorted(((c, d.name) for d in DIMENSIONS for c in d.cues), key=lambda x: -len(x[0]))
    for cue, name in cues:
        pat = re.escape(cue) if re.search(r"[\u4e00-\u9fff]", cue) else rf"\b{re.escape(cue)}\b"
        for m in re.finditer(pat, low):
            if any(s < m.end() and m.start() < e for s, e in taken):
                continue
            taken.append((m.start(), m.end()))
            hits.append((m.start(), name))
    ordered: list[str] = []
    for _, name in sorted(hits):
        if name not in ordered:
            ordered.append(name)
    return ordered


def dimension_terms(name: str) -> tuple[str, ...]:
    """Lower-case cue stems that signal a dimension inside evidence text."""
    dim = DIMENSION_BY_NAME.get(name)
    if dim is None:
        return (name.lower(),)
    return tuple(dict.fromkeys((*dim.evidence, *(c for c in dim.cues if c.isascii()))))


@lru_cache(maxsize=8192)
def dimension_hits(text: str, name: str) -> int:
    """How many of a dimension's evidence cues occur in ``text``."""
    low = text.lower()
    return sum(1 for t in dimension_terms(name) if t in low)


def signals_dimension(text: str, name: str) -> bool:
    low = text.lower()
    return any(t in low for t in dimension_terms(name))
