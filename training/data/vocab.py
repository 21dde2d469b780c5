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


# ---------------------------------------------------------------------------------------------------
# Router-only vocabulary (``training.data.generate_router``). Broad and generic on purpose: model and
# paper names across NLP, vision, speech, RL and beyond, real and invented, so the router learns the
# form of a question, not the names in it. The lists above stay as they are (the critic and ReAct
# generators use them). Each pool has a training part and a held-out part that share no entry.
# ---------------------------------------------------------------------------------------------------

R_MODELS_TRAIN = [
    # language models and encoders
    "GPT-2", "GPT-J", "GPT-NeoX", "OPT-66B", "BLOOM", "Falcon-40B", "Pythia", "Qwen-7B", "Yi-34B", "Gemma",
    "XLNet", "ELECTRA", "ERNIE 3.0", "SpanBERT", "BART", "Pegasus", "UL2", "Flan-T5", "CodeGen", "StarCoder",
    "Codex", "Galactica", "Chinchilla", "Gopher", "PaLM", "Megatron-LM", "Switch Transformer", "GLaM",
    "Jurassic-1", "RWKV", "RetNet", "Hyena", "S4", "Linformer", "Performer", "BigBird", "Funnel Transformer",
    "CTRL", "XLM-R", "mBART", "ByT5", "CANINE", "SciBERT", "BioBERT", "ClinicalBERT", "LegalBERT",
    "TinyBERT", "MiniLM", "Sentence-BERT", "SimCSE", "E5", "Contriever", "ColBERTv2", "SPLADE", "ANCE",
    "REALM", "RETRO", "Atlas", "FiD", "WebGPT", "Toolformer", "ReAct", "Reflexion", "Self-Refine",
    "InstructGPT", "Alpaca", "Vicuna", "Orca", "Zephyr", "Tulu", "QLoRA", "LoRA", "AdaLoRA", "IA3",
    "Prefix-Tuning", "P-Tuning v2", "DPO", "RLHF", "PPO", "Constitutional AI", "FlashAttention",
    "Mixture of Experts", "GShard", "ZeRO", "Chain-of-Thought", "Self-Consistency", "Tree of Thoughts",
    # vision and multimodal
    "ResNet", "EfficientNet", "RegNet", "DenseNet", "MobileNetV3", "BEiT", "DINO", "DINOv2", "iBOT",
    "SimCLR", "MoCo v3", "BYOL", "CoAtNet", "PVT", "Twins", "SegFormer", "Mask2Former", "MaskFormer",
    "Mask R-CNN", "Faster R-CNN", "YOLOv7", "RT-DETR", "Deformable DETR", "DINO-DETR", "SAM", "OWL-ViT",
    "BLIP", "BLIP-2", "Flamingo", "LLaVA", "CoCa", "SigLIP", "FLAVA", "ViLT", "LXMERT", "VisualBERT",
    "Stable Diffusion", "DALL-E 2", "Imagen", "Parti", "StyleGAN2", "BigGAN", "VQ-VAE-2", "DiT", "ControlNet",
    "NeRF", "Instant-NGP", "DPT", "ZoeDepth", "UPerNet", "BiT", "ConvMixer", "MLP-Mixer", "gMLP",
    # speech and audio
    "HuBERT", "WavLM", "Whisper", "Conformer", "Jasper", "QuartzNet", "Tacotron 2", "FastSpeech 2",
    "VITS", "HiFi-GAN", "WaveNet", "AudioLM", "Jukebox", "SoundStream", "UniSpeech", "XLS-R", "MMS",
    "Bark", "Wav2Vec-U", "CLAP", "AST",
    # RL, science, graphs, tabular, time series
    "AlphaGo Zero", "AlphaZero", "MuZero", "AlphaFold 2", "AlphaStar", "DQN", "Rainbow", "SAC", "TD3",
    "Decision Transformer", "Dreamer V3", "IMPALA", "R2D2", "Gato", "CQL", "ESM-2", "RoseTTAFold",
    "GraphSAGE", "GAT", "GIN", "Graphormer", "TabNet", "TabPFN", "Informer", "Autoformer", "PatchTST",
    "TimesNet", "Chronos", "GNoME",
    # invented, plausible names
    "Quill-7B", "Sparrowhawk", "LumenLM", "Orbit-XL", "TesseraNet", "Kestrel-2", "Marlin", "Helio-13B",
    "PolyGlotter", "Canopy", "SableViT", "DriftNet", "Corvid", "Nimbus-3B", "Aster", "Lattice-LM",
    "PrismCLIP", "EchoSpeech", "Fathom", "Juniper-8B", "Cobalt", "Meridian", "Quasar-VL", "TundraNet",
    "Wren", "Halcyon", "Ostrich-RL", "Vireo", "Pangolin", "Mosaic-Det", "SonarFormer", "GlyphNet",
    "Tidal-TS", "ProtoFold", "Stratus-2", "KiteSeg", "Basilisk", "ArborGNN", "Ember-1B", "Larkspur",
]
R_MODELS_HELDOUT = [
    "Mistral 7B", "Mixtral", "Phi-3", "OLMo", "Jamba", "DeepSeek-V2", "Baichuan 2", "InternLM",
    "Electra-Large", "DeBERTaV3", "RoBERTa", "XLM", "Marian", "NLLB-200", "M2M-100", "LED",
    "ConvNeXt V2", "EVA-02", "InternImage", "Hiera", "EfficientViT", "RepViT", "DETA", "Grounding DINO",
    "OneFormer", "Segment Anything 2", "Kosmos-1", "IDEFICS", "PaLI", "Emu", "SDXL", "Muse",
    "Seamless M4T", "EnCodec-2", "Vall-E", "SpeechGPT", "Data2Vec 2.0", "MusicLM", "Voicebox",
    "AlphaDev", "Voyager", "RT-2", "Cicero", "GenCast", "GraphCast", "TimeGPT", "Lag-Llama",
    "Peregrine-9B", "Opaline", "Thistle-VL", "Crestwave", "Moraine", "Quokka-2", "Vellum", "Sirocco",
]

# Paper titles are built from parts: "<Name>: <Lead> <Core> for <Purpose>" and similar.
R_TITLE_LEADS_TRAIN = ["Scalable", "Efficient", "Simple", "Robust", "Unified", "Sparse", "Self-Supervised",
                       "Lightweight", "Universal", "Hierarchical", "Contrastive", "Multilingual", "Adaptive"]
R_TITLE_CORES_TRAIN = ["Transformers", "Encoders", "Representations", "Pre-training", "Autoencoders",
                       "Language Models", "Retrieval", "Diffusion Models", "Policies", "Tokenizers",
                       "Attention", "Graph Networks"]
R_TITLE_PURPOSES_TRAIN = ["Speech Recognition", "Long Documents", "Dense Prediction", "Code Generation",
                          "Open-Domain Question Answering", "Image Synthesis", "Offline Reinforcement Learning",
                          "Protein Structure", "Low-Resource Translation", "Mobile Devices", "Time Series Forecasting",
                          "Table Understanding", "Video Understanding"]
R_TITLE_LEADS_HELDOUT = ["Frugal", "Compositional", "Streaming", "Calibrated", "Modular", "Grounded"]
R_TITLE_CORES_HELDOUT = ["Decoders", "Mixers", "Memory Networks", "World Models", "Planners"]
R_TITLE_PURPOSES_HELDOUT = ["Music Generation", "Molecular Property Prediction", "Robot Manipulation",
                            "Satellite Imagery", "Sign Language"]
R_TITLE_SHAPES_TRAIN = ["{name}: {lead} {core} for {purpose}", "{lead} {core} for {purpose}",
                        "{name}: Towards {lead} {core}", "Rethinking {core} for {purpose}",
                        "{lead} {core} Are Strong Learners"]
R_TITLE_SHAPES_HELDOUT = ["{name}: On {lead} {core}", "Do {core} Need {purpose}?",
                          "{lead} {core} at Scale"]

R_SURNAMES_TRAIN = ["Okafor", "Lindqvist", "Zhou", "Haddad", "Moreau", "Kowalski", "Tanaka", "Iyer",
                    "Fernandes", "Novak", "Abebe", "Schmidt", "Kim", "Rossi", "Nakamura", "Petrov", "Osei",
                    "Larsen", "Chen", "Gupta", "Alvarez", "Dubois", "Yamamoto", "Brennan"]
R_SURNAMES_HELDOUT = ["Achterberg", "Mwangi", "Quintero", "Varga", "Sørensen", "Takahashi", "Bello"]
R_ORGS_TRAIN = ["Google Research", "Meta AI", "DeepMind", "Microsoft Research", "OpenAI", "FAIR",
                "Stanford", "Tsinghua", "the Allen Institute", "Hugging Face", "Salesforce Research", "Baidu"]
R_ORGS_HELDOUT = ["NVIDIA Research", "ETH Zurich", "Alibaba DAMO", "Mila"]

R_DATASETS_TRAIN = ["ImageNet", "ImageNet-21k", "CIFAR-100", "COCO", "ADE20K", "Cityscapes", "Kinetics-400",
                    "SQuAD 2.0", "GLUE", "SuperGLUE", "MNLI", "Natural Questions", "TriviaQA", "HotpotQA",
                    "MS MARCO", "BEIR", "WMT14 En-De", "CNN/DailyMail", "XSum", "WikiText-103", "enwik8",
                    "The Pile", "C4", "LAION-400M", "LibriSpeech test-clean", "Common Voice", "VoxCeleb",
                    "AudioSet", "MMLU", "GSM8K", "HumanEval", "MBPP", "BIG-Bench", "HellaSwag", "ARC",
                    "Atari 100k", "MuJoCo", "D4RL", "ProcGen", "CASP14", "OGB", "ETTh1", "nuScenes", "KITTI",
                    "DocVQA", "FUNSD", "VQAv2", "Flickr30k", "NoCaps", "PubMedQA", "BioASQ"]
R_DATASETS_HELDOUT = ["Places365", "LVIS", "Something-Something v2", "RACE", "DROP", "TyDi QA",
                      "FLEURS", "TIMIT", "MATH", "APPS", "Meta-World", "QM9", "ScanNet", "ChartQA"]
R_METRICS = ["top-1 accuracy", "F1", "exact match", "BLEU", "ROUGE-L", "word error rate", "perplexity", "mIoU",
             "box AP", "FID", "pass@1", "CIDEr", "accuracy", "recall@20", "nDCG@10", "mean reward",
             "bits per character", "MAE", "AUC", "success rate", "GDT score", "MOS"]
R_PROPS_TRAIN = ["learning rate", "batch size", "number of parameters", "context length", "vocabulary size",
                 "patch size", "hidden size", "number of attention heads", "number of layers", "optimizer",
                 "pre-training corpus", "tokenizer", "loss function", "warm-up schedule", "dropout rate",
                 "training time", "number of GPUs", "sampling rate", "image resolution", "temperature",
                 "discount factor", "replay buffer size", "masking ratio", "embedding dimension", "beam size",
                 "weight decay", "number of experts", "codebook size", "frame rate", "compression ratio",
                 "training objective", "teacher model", "backbone", "position encoding", "activation function"]
R_PROPS_HELDOUT = ["label smoothing value", "gradient clipping norm", "number of denoising steps",
                   "kernel size", "window size", "retrieval chunk size", "KL coefficient", "mixing ratio"]
R_COMPONENTS_TRAIN = ["a gated MLP", "relative position bias", "locality-sensitive hashing", "a memory bank",
                      "knowledge distillation", "a contrastive loss", "rotary embeddings", "a sparse router",
                      "a quantized codebook", "a learned tokenizer", "cross-attention to retrieved passages",
                      "shifted windows", "a momentum encoder", "a value head", "a denoising objective",
                      "a depthwise convolution", "a recurrence over segments", "grouped-query attention",
                      "a diffusion prior", "a reward model", "a bottleneck adapter", "a pointer network",
                      "sliding-window attention", "a mixture of experts layer", "a latent array"]
R_COMPONENTS_HELDOUT = ["a state-space layer", "a Fourier mixing block", "a deformable attention module",
                        "a slot attention module", "a retrieval cache", "an entropy bottleneck"]
R_TASKS_TRAIN = ["object detection", "speech recognition", "machine translation", "summarization",
                 "document understanding", "code generation", "image classification", "semantic segmentation",
                 "text-to-image generation", "question answering", "protein structure prediction",
                 "offline reinforcement learning", "speaker verification", "depth estimation",
                 "time series forecasting", "image captioning", "dense retrieval", "text-to-speech",
                 "video classification", "node classification", "mathematical reasoning", "music generation"]
R_TASKS_HELDOUT = ["optical flow", "pose estimation", "named entity recognition", "molecule generation",
                   "robotic grasping", "audio captioning"]
R_DIMS_TRAIN = ["pre-training data", "parameter count", "inference speed", "architecture", "training objective",
                "tokenization", "memory use", "how they handle long inputs", "how many labels they require",
                "training cost", "accuracy on the same benchmark", "their attention mechanism", "scalability",
                "latency on phones", "robustness to noise", "how they use retrieval", "their positional encoding",
                "the size of their vocabularies", "sample efficiency", "reliance on OCR"]
R_DIMS_HELDOUT = ["their decoding strategy", "energy consumption", "how they are evaluated",
                  "their licensing", "their choice of teacher"]
R_GOALS_TRAIN = ["cut the cost of attention over long sequences", "reduce the need for labeled data",
                 "shrink models enough to run on phones", "ground generation in retrieved documents",
                 "learn from unlabeled audio", "scale to billions of parameters", "speed up inference",
                 "transfer to new languages", "handle high-resolution images", "stabilize training",
                 "avoid hand-designed components", "compress representations", "improve sample efficiency",
                 "align models with human preferences", "generate longer outputs", "reuse pretrained checkpoints"]
R_GOALS_HELDOUT = ["cope with distribution shift", "run without a GPU", "plan over long horizons",
                   "cut carbon emissions of training"]
R_AREAS_TRAIN = ["speech", "vision-language", "document-understanding", "retrieval", "language-model",
                 "vision backbone", "efficient-attention", "reinforcement-learning", "generative image",
                 "self-supervised", "multilingual", "code", "graph", "time-series", "audio"]
R_AREAS_HELDOUT = ["robotics", "biology", "recommendation", "3D vision"]
R_ASPECTS_TRAIN = ["training data", "model size", "labeled data", "tokenization", "evaluation",
                   "positional information", "long inputs", "pre-training objectives", "efficiency",
                   "multilinguality", "the use of convolutions", "distillation", "data augmentation"]
R_ASPECTS_HELDOUT = ["calibration", "licensing and openness", "failure cases", "hardware assumptions"]
R_IDEAS_TRAIN = ["masked prediction", "contrastive learning", "knowledge distillation", "mixture of experts",
                 "retrieval augmentation", "instruction tuning", "sparse attention", "quantization",
                 "self-training with pseudo-labels", "denoising diffusion", "next-token prediction"]
R_IDEAS_HELDOUT = ["curriculum learning", "weight sharing", "test-time adaptation"]
R_TOPICS_TRAIN = ["parameter-efficient fine-tuning", "retrieval-augmented generation", "self-supervised speech",
                  "vision transformers", "efficient attention", "model compression", "instruction tuning",
                  "alignment methods", "LLM agents", "scaling laws", "object detection with transformers",
                  "multimodal pre-training", "diffusion models", "offline reinforcement learning",
                  "prompting techniques", "dense retrieval", "model quantization", "code language models"]
R_TOPICS_HELDOUT = ["state space models", "long-context modeling", "preference optimization",
                    "neural audio codecs", "world models"]
# "A <relation> B" for questions that chain through a related model (multi_hop bridges).
R_RELATIONS_TRAIN = ["builds on", "says it builds on", "was inspired by", "credits its core idea to",
                     "is distilled from", "extends", "extends to many languages the design of", "is a smaller version of",
                     "succeeds", "borrows the training procedure of", "is initialized from", "adopts the architecture of",
                     "borrows its tokenizer from", "is fine-tuned from", "improves on", "follows the design of",
                     "starts from the checkpoints of", "was trained to imitate", "is a successor to",
                     "is a compressed version of", "reimplements", "is a follow-up to", "generalizes",
                     "is pre-trained like", "shares its encoder with", "was motivated by", "is a domain-specific version of",
                     "replaces the attention of", "is benchmarked against", "distills knowledge from", "borrows ideas from"]
R_RELATIONS_HELDOUT = ["is derived from", "takes its encoder from", "is modeled after", "scales up",
                       "keeps the backbone of"]
R_BRIDGES_TRAIN = ["that earlier model", "the teacher model", "its predecessor", "the original method",
                   "the base model", "that prior work", "the parent model", "the earlier paper",
                   "the model it started from", "that baseline", "the backbone model", "the reference model",
                   "its parent", "the underlying model", "that foundation model", "the distilled-from model",
                   "the compared model", "that first version"]
R_BRIDGES_HELDOUT = ["the upstream model", "the source model", "that ancestor"]

# Chinese fillers (names stay in Latin script, as researchers write them).
R_PROPS_ZH_TRAIN = ["学习率", "批大小", "参数量", "上下文长度", "词表大小", "图像块大小", "隐藏层维度", "注意力头数",
                    "层数", "优化器", "预训练语料", "分词器", "损失函数", "预热策略", "训练时长", "GPU 数量", "采样率",
                    "输入分辨率", "折扣因子", "掩码比例", "嵌入维度", "专家数量", "码本大小", "压缩率", "训练目标",
                    "教师模型", "骨干网络", "位置编码", "激活函数", "训练步数", "数据规模", "权重衰减", "束搜索宽度",
                    "最大序列长度", "隐变量维度", "微调轮数", "检索文档数", "量化位宽", "温度系数", "显存峰值", "推理延迟"]
R_PROPS_ZH_HELDOUT = ["标签平滑系数", "梯度裁剪阈值", "去噪步数", "卷积核大小", "窗口大小", "检索块长度"]
R_COMPONENTS_ZH_TRAIN = ["门控前馈层", "相对位置偏置", "局部敏感哈希", "记忆库", "知识蒸馏", "对比损失", "旋转位置编码",
                         "稀疏路由", "量化码本", "检索段落的交叉注意力", "移位窗口", "动量编码器", "去噪目标", "深度可分离卷积",
                         "分段循环机制", "分组查询注意力", "奖励模型", "适配器模块", "滑动窗口注意力", "混合专家层"]
R_COMPONENTS_ZH_HELDOUT = ["状态空间层", "傅里叶混合模块", "可变形注意力", "槽注意力", "熵瓶颈"]
R_TASKS_ZH_TRAIN = ["目标检测", "语音识别", "机器翻译", "文本摘要", "文档理解", "代码生成", "图像分类", "语义分割",
                    "文生图", "问答", "蛋白质结构预测", "离线强化学习", "说话人验证", "深度估计", "时间序列预测",
                    "图像描述", "稠密检索", "语音合成", "视频分类", "节点分类", "数学推理", "音乐生成", "情感分析",
                    "阅读理解", "关系抽取", "图像检索", "表格理解", "视觉问答", "实例分割", "异常检测", "推荐排序",
                    "手写识别", "多轮对话", "药物发现", "天气预报", "自动驾驶感知"]
R_TASKS_ZH_HELDOUT = ["光流估计", "姿态估计", "命名实体识别", "分子生成", "机器人抓取"]
R_DIMS_ZH_TRAIN = ["预训练数据", "参数规模", "推理速度", "模型结构", "训练目标", "分词方式", "显存占用", "长输入处理方式",
                   "所需标注数据量", "训练成本", "同一基准上的准确率", "注意力机制", "可扩展性", "手机端延迟", "抗噪能力",
                   "检索的用法", "位置编码", "OCR 依赖程度", "样本效率", "收敛速度", "泛化能力", "可解释性",
                   "部署难度", "对长文本的支持", "零样本表现"]
R_DIMS_ZH_HELDOUT = ["解码策略", "能耗", "评测方式", "开源协议"]
R_GOALS_ZH_TRAIN = ["降低长输入上的注意力开销", "减少对标注数据的依赖", "把模型压缩到能在手机上运行", "用检索到的文档支撑生成",
                    "从无标注音频中学习", "扩展到数十亿参数", "加快推理", "迁移到新语言", "处理高分辨率图像", "稳定训练",
                    "去掉手工设计的组件", "压缩表示", "提高样本效率", "让模型对齐人类偏好", "复用预训练权重"]
R_GOALS_ZH_HELDOUT = ["应对分布偏移", "在没有 GPU 的情况下运行", "做长程规划"]
R_AREAS_ZH_TRAIN = ["语音", "视觉-语言", "文档理解", "检索", "语言模型", "视觉骨干", "高效注意力", "强化学习",
                    "图像生成", "自监督", "多语言", "代码", "图神经网络", "时间序列", "音频"]
R_AREAS_ZH_HELDOUT = ["机器人", "生物", "推荐系统", "三维视觉"]
R_ASPECTS_ZH_TRAIN = ["训练数据", "模型规模", "标注数据", "分词", "评测", "位置信息", "长输入", "预训练目标", "效率",
                      "多语言能力", "卷积的使用", "蒸馏", "数据增强", "计算开销", "噪声标签", "推理成本", "安全性",
                      "偏见", "可复现性"]
R_ASPECTS_ZH_HELDOUT = ["校准", "开放程度", "失败案例"]
R_IDEAS_ZH_TRAIN = ["掩码预测", "对比学习", "知识蒸馏", "混合专家", "检索增强", "指令微调", "稀疏注意力", "量化",
                    "伪标签自训练", "去噪扩散", "下一个词预测"]
R_IDEAS_ZH_HELDOUT = ["课程学习", "权重共享", "测试时自适应"]
R_TOPICS_ZH_TRAIN = ["参数高效微调", "检索增强生成", "自监督语音", "视觉 Transformer", "高效注意力", "模型压缩", "指令微调",
                     "对齐方法", "大模型智能体", "缩放定律", "基于 Transformer 的目标检测", "多模态预训练", "扩散模型",
                     "离线强化学习", "提示工程", "稠密检索", "模型量化", "代码大模型"]
R_TOPICS_ZH_HELDOUT = ["状态空间模型", "长上下文建模", "偏好优化", "神经音频编解码", "世界模型"]
R_RELATIONS_ZH_TRAIN = ["基于", "受到了…的启发", "是从…蒸馏而来的", "扩展了", "是…的多语言版本", "是…的精简版", "继承了",
                        "沿用了…的训练配方", "以…的权重初始化", "采用了…的架构", "改进了", "借鉴了", "脱胎于",
                        "复用了…的解码器", "是…的后续工作", "是…的压缩版本", "参考了", "建立在…之上", "模仿了",
                        "是在…基础上开发的", "和…共享编码器", "以…为老师", "是对…的推广", "延续了…的设计"]
R_RELATIONS_ZH_HELDOUT = ["源自", "取用了…的编码器", "仿照了"]
R_BRIDGES_ZH_TRAIN = ["那个早期模型", "该教师模型", "它的前身", "原始方法", "基础模型", "那项先前工作", "原论文", "那个基线",
                      "前代模型", "母模型", "底座模型", "老师模型", "参照模型", "骨干模型", "对比基线", "被蒸馏的模型",
                      "所继承的模型", "原型模型"]
R_BRIDGES_ZH_HELDOUT = ["上游模型", "源模型"]
R_UNITS_ZH = ["个", "亿", "万", "小时", "天"]
