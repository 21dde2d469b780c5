"""Chinese ML terms in English, so a Chinese question can be matched against English papers.

The offline brain matches words, and a researcher's papers are mostly English: "HERON 用什么技术
替代了点积注意力？" shares no word with "HERON replaces dot-product attention by a routed mixer". Slot filling appends the English terms of a Chinese question to its
query, which then serves retrieval and evidence matching alike. General ML vocabulary only; the
longest term wins ("自注意力" before "注意力").
"""

from __future__ import annotations

import re
from functools import lru_cache

GLOSSARY: dict[str, str] = {
    "点积注意力": "dot-product attention", "自注意力": "self-attention", "注意力": "attention",
    "数据集": "dataset", "训练数据": "training data", "数据": "data", "预训练": "pre-training", "微调": "fine-tuning",
    "准确率": "accuracy", "精度": "accuracy", "参数量": "parameters", "参数": "parameters", "语言模型": "language model",
    "训练": "training", "推理": "inference", "速度": "speed", "显存": "memory", "内存": "memory",
    "语音识别": "speech recognition", "语音": "speech", "音频": "audio", "音乐": "music", "图像": "image",
    "视频": "video", "文本": "text", "文档": "document", "检索": "retrieval", "生成": "generation",
    "编码器": "encoder", "解码器": "decoder", "自编码器": "autoencoder", "掩码": "masked", "遮蔽": "masked",
    "蒸馏": "distillation", "教师模型": "teacher model", "学生模型": "student model", "基准": "benchmark",
    "基线": "baseline", "分数": "score", "得分": "score", "长序列": "long sequences", "长输入": "long inputs",
    "复杂度": "complexity", "架构": "architecture", "卷积": "convolution", "目标检测": "object detection",
    "检测": "detection", "分割": "segmentation", "分类": "classification", "零样本": "zero-shot",
    "多语言": "multilingual", "翻译": "translation", "问答": "question answering", "摘要": "summarization",
    "对比学习": "contrastive learning", "损失": "loss", "技术": "technique", "替代": "replace", "取代": "replace",
    "机制": "mechanism", "压缩": "compress", "量化": "quantization", "知识": "knowledge", "效率": "efficiency",
    "高效": "efficient", "开源": "open-source", "代码": "code", "无标注": "unlabeled", "标注": "labeled",
    "自监督": "self-supervised", "多模态": "multimodal", "布局": "layout", "识别": "recognition",
    "分辨率": "resolution", "词错误率": "word error rate", "错误率": "error rate", "吞吐量": "throughput",
    "延迟": "latency", "层数": "layers", "模型": "model", "图像块": "patches", "比例": "ratio", "掩码率": "masking ratio",
    "提升": "improvement", "性能": "performance", "规模": "scale", "大小": "size", "词表": "vocabulary",
    "强化学习": "reinforcement learning", "奖励模型": "reward model", "偏好": "preference", "对齐": "alignment",
    "图文": "image-text", "字幕": "caption", "描述": "caption", "视觉": "vision", "语言": "language",
}
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")


@lru_cache(maxsize=1)
def _pattern() -> re.Pattern:
    return re.compile("|".join(re.escape(k) for k in sorted(GLOSSARY, key=len, reverse=True)))


def english_terms(text: str) -> list[str]:
    """The English renderings of the Chinese ML terms in ``text``, in order, unique."""
    found: dict[str, None] = {}
    for run in _CJK_RUN.findall(text):
        for m in _pattern().finditer(run):
            found.setdefault(GLOSSARY[m.group(0)], None)
    return list(found)


def in_english(text: str) -> str:
    """``text`` as English papers can match it: a Chinese text becomes its Latin-script words (names,
    numbers) followed by its Chinese terms in English; any other text is returned unchanged."""
    if not _CJK_RUN.search(text):
        return text
    return " ".join([_CJK_RUN.sub(" ", text), *english_terms(text)])


def with_english(query: str) -> str:
    """``query`` plus its Chinese terms in English, in brackets (unchanged when there are none)."""
    terms = english_terms(query)
    return f"{query} ({'; '.join(terms)})" if terms else query
