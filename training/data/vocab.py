"""The AI/ML vocabulary the synthetic training data is built from.

Entities, related pairs, attributes, comparison dimensions and research topics, each split into
a training part and a held-out part so the held-out evaluation sees names the model never trained
on. Everything here is a fixed list: generation is reproducible from the seed alone.
"""

from __future__ import annotations

# Method / model / paper names. The last entries of each list are held out from training.
ENTITIES_TRAIN = [
    "LoRA", "QLoRA", "DPO", "RLHF", "InstructGPT", "RAG", "ReAct", "ReWOO", "Transformer",
    "Chain-of-Thought", "Plan-and-Solve", "GPT-3", "Llama 2", "Self-Consistency", "Tree of Thoughts",
    "FlashAttention", "Mixture of Experts", "Adapter tuning", "Prefix tuning", "Constitutional AI",
    "Sparse attention", "RoBERTa", "T5", "Chinchilla", "PaLM", "Vision Transformer", "CLIP",
    "Dense Passage Retrieval", "ColBERT", "HyDE", "Self-RAG", "Toolformer", "AdaLoRA",
]
ENTITIES_HELDOUT = [
    "Reflexion", "PPO", "BERT", "DoRA", "GPT-4", "KTO", "Mistral 7B", "LongLoRA", "ORPO",
    "Graph RAG", "Voyager", "Mamba",
]

# Pairs that are naturally compared or chained (A builds on / extends B).
PAIRS_TRAIN = [
    ("LoRA", "QLoRA"), ("DPO", "RLHF"), ("RAG", "Self-RAG"), ("ReAct", "ReWOO"),
    ("Chain-of-Thought", "Plan-and-Solve"), ("GPT-3", "InstructGPT"), ("Transformer", "Vision Transformer"),
    ("LoRA", "Adapter tuning"), ("Prefix tuning", "LoRA"), ("Chain-of-Thought", "Self-Consistency"),
    ("Chain-of-Thought", "Tree of Thoughts"), ("RoBERTa", "T5"), ("Chinchilla", "GPT-3"),
    ("Dense Passage Retrieval", "ColBERT"), ("RAG", "HyDE"), ("LoRA", "AdaLoRA"),
    ("Constitutional AI", "RLHF"), ("FlashAttention", "Sparse attention"), ("PaLM", "Chinchilla"),
    ("Llama 2", "GPT-3"), ("Toolformer", "ReAct"), ("CLIP", "Vision Transformer"),
]
PAIRS_HELDOUT = [
    ("Reflexion", "ReAct"), ("PPO", "DPO"), ("BERT", "GPT-4"), ("DoRA", "LoRA"), ("KTO", "DPO"),
    ("Mistral 7B", "Llama 2"), ("LongLoRA", "LoRA"), ("ORPO", "DPO"), ("Graph RAG", "RAG"),
    ("Voyager", "Reflexion"), ("Mamba", "Transformer"), ("BERT", "RoBERTa"),
]

# Single facts one source can answer ("What {attr} does X use?").
ATTRIBUTES_EN = [
    "rank", "learning rate", "batch size", "number of parameters", "context length", "loss function",
    "default hyperparameters", "training dataset", "evaluation benchmark", "optimizer",
    "dropout rate", "number of layers", "beta value", "quantization data type",
]
ATTRIBUTES_ZH = [
    "秩", "学习率", "批大小", "参数量", "上下文长度", "损失函数", "默认超参数", "训练数据集",
    "评测基准", "优化器", "dropout 比例", "层数", "beta 值", "量化数据类型",
]

# What a comparison is about.
DIMENSIONS_EN = [
    "memory use", "accuracy", "training cost", "inference speed", "stability", "data efficiency",
    "scalability", "implementation complexity", "GPU requirements", "robustness", "latency",
    "sample efficiency",
]
DIMENSIONS_ZH = [
    "显存占用", "准确率", "训练成本", "推理速度", "稳定性", "数据效率", "可扩展性", "实现复杂度",
    "GPU 需求", "鲁棒性", "延迟", "样本效率",
]

# Goals for chained (multi-hop) questions.
GOALS_EN = [
    "fine-tune a 65B model on a single GPU", "reduce hallucination", "remove the reward model",
    "cut the number of trainable parameters", "answer questions that need several documents",
    "avoid repeated tool calls", "improve reasoning on math benchmarks", "speed up long-context inference",
    "align the model with human preferences", "save GPU memory during training",
]
GOALS_ZH = [
    "在单张 GPU 上微调 65B 模型", "减少幻觉", "去掉奖励模型", "减少可训练参数", "回答需要多篇文档的问题",
    "避免重复调用工具", "提升数学推理能力", "加速长上下文推理", "使模型对齐人类偏好", "训练时节省显存",
]

# Open research areas for exploratory questions; the last ones are held out.
TOPICS_EN_TRAIN = [
    "alignment methods", "parameter-efficient fine-tuning", "retrieval-augmented generation",
    "LLM agents", "prompting techniques", "model quantization", "efficient attention",
    "instruction tuning", "tool use by language models", "reasoning in language models",
    "scaling laws", "dense retrieval",
]
TOPICS_EN_HELDOUT = ["preference optimization", "state space models", "long-context modeling", "self-reflection for agents"]
TOPICS_ZH_TRAIN = [
    "对齐方法", "参数高效微调", "检索增强生成", "大模型智能体", "提示工程", "模型量化", "高效注意力",
    "指令微调", "工具调用", "大模型推理", "缩放定律", "稠密检索",
]
TOPICS_ZH_HELDOUT = ["偏好优化", "状态空间模型", "长上下文建模", "智能体自我反思"]

# Short answers used to build a previous turn for history.
ANSWER_SNIPPETS_EN = [
    "{e} uses a rank of 8 by default and trains only the low-rank matrices [1].",
    "{e} was introduced in 2023 and reports strong results on several benchmarks [1][2].",
    "According to the paper, {e} reduces memory use substantially while keeping accuracy [1].",
    "{e} replaces the reward model with a simple classification loss over preference pairs [2].",
    "The authors evaluate {e} on question answering and reasoning tasks [1].",
]
ANSWER_SNIPPETS_ZH = [
    "{e} 默认使用秩 8，只训练低秩矩阵 [1]。",
    "{e} 于 2023 年提出，在多个基准上表现很好 [1][2]。",
    "根据论文，{e} 在保持准确率的同时大幅降低了显存占用 [1]。",
    "{e} 的作者在问答和推理任务上做了评测 [1]。",
]

# (topic EN, topic ZH, earlier method, later method) for "how did X evolve from A to B" questions,
# so evolution questions name a real lineage; the last ones are held out.
LINEAGES_TRAIN = [
    ("alignment methods", "对齐方法", "RLHF", "DPO"),
    ("alignment methods", "对齐方法", "InstructGPT", "Constitutional AI"),
    ("parameter-efficient fine-tuning", "参数高效微调", "Adapter tuning", "LoRA"),
    ("parameter-efficient fine-tuning", "参数高效微调", "LoRA", "QLoRA"),
    ("parameter-efficient fine-tuning", "参数高效微调", "Prefix tuning", "AdaLoRA"),
    ("prompting techniques", "提示工程", "Chain-of-Thought", "Tree of Thoughts"),
    ("reasoning in language models", "大模型推理", "Chain-of-Thought", "Self-Consistency"),
    ("LLM agents", "大模型智能体", "ReAct", "ReWOO"),
    ("tool use by language models", "工具调用", "ReAct", "Toolformer"),
    ("retrieval-augmented generation", "检索增强生成", "RAG", "Self-RAG"),
    ("dense retrieval", "稠密检索", "Dense Passage Retrieval", "ColBERT"),
    ("efficient attention", "高效注意力", "Sparse attention", "FlashAttention"),
    ("scaling laws", "缩放定律", "GPT-3", "Chinchilla"),
    ("instruction tuning", "指令微调", "GPT-3", "InstructGPT"),
]
LINEAGES_HELDOUT = [
    ("preference optimization", "偏好优化", "DPO", "KTO"),
    ("preference optimization", "偏好优化", "PPO", "ORPO"),
    ("state space models", "状态空间模型", "Transformer", "Mamba"),
    ("long-context modeling", "长上下文建模", "LoRA", "LongLoRA"),
    ("self-reflection for agents", "智能体自我反思", "ReAct", "Reflexion"),
]
