"""Markdown section trees and breadcrumbs, sentence-respecting chunks, offline summaries."""

from __future__ import annotations

from core.hub.chunking import block_sentences, chunk_blocks, offline_summary
from core.hub.readers import Block, parse_markdown

NOTE = """---
title: "QLoRA: Efficient Finetuning of Quantized LLMs"
authors: "Tim Dettmers, Artidoro Pagnoni"
year: 2023
---

# QLoRA: Efficient Finetuning of Quantized LLMs

## Summary
QLoRA fine-tunes a 65B model on one 48 GB GPU. It trains LoRA adapters through a frozen 4-bit model.

## Method
Intro to the method.

### 4-bit NormalFloat
NF4 suits normally distributed weights, e.g. pretrained ones.

```python
# not a heading
x = 1
```

### Double Quantization
It quantizes the quantization constants.

## Limitations
Evaluation relies partly on GPT-4 judgements.
"""


def test_markdown_section_tree_gives_breadcrumbs():
    doc = parse_markdown(NOTE, "fallback")
    assert doc.title == "QLoRA: Efficient Finetuning of Quantized LLMs"
    assert doc.authors == ["Tim Dettmers", "Artidoro Pagnoni"] and doc.year == 2023
    paths = [" > ".join(b.path) for b in doc.blocks]
    assert paths == ["QLoRA > Summary", "QLoRA > Method", "QLoRA > Method > 4-bit NormalFloat",
                     "QLoRA > Method > Double Quantization", "QLoRA > Limitations"]
    nf4 = doc.blocks[2].text
    assert "# not a heading" in nf4  # fenced code stays content, not a section


def test_markdown_without_h1_nests_under_fallback_title():
    doc = parse_markdown("intro line.\n\n## A\ntext a.\n### B\ntext b.\n## C\ntext c.", "my notes")
    assert doc.title == "my notes"
    assert [b.path for b in doc.blocks] == [["my notes"], ["my notes", "A"], ["my notes", "A", "B"],
                                            ["my notes", "C"]]


def test_chunks_respect_sentences_and_sections():
    text = " ".join(f"Sentence number {i} talks about low-rank adapters, e.g. LoRA, in detail." for i in range(40))
    blocks = [Block(["Doc", "Long"], text, 3), Block(["Doc", "Short"], "One short section.", 4)]
    chunks = chunk_blocks(blocks)
    assert len(chunks) > 2
    for ch in chunks[:-1]:
        assert ch.text.endswith("detail."), ch.text[-40:]  # never cut mid-sentence
        assert ch.page == 3 and ch.breadcrumb == "Doc > Long"
    assert chunks[-1].breadcrumb == "Doc > Short" and chunks[-1].page == 4
    assert sum(ch.text.count("Sentence number") for ch in chunks[:-1]) == 40


def test_sentence_split_keeps_abbreviations():
    assert block_sentences("We use e.g. NF4 here. Then et al. report more. Done!") == [
        "We use e.g. NF4 here.", "Then et al. report more.", "Done!"]


def test_offline_summary_prefers_summary_section():
    doc = parse_markdown(NOTE, "x")
    assert offline_summary(doc.blocks).startswith("QLoRA fine-tunes a 65B model")
