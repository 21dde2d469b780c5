"""Document summary prompt (ingestion, when an LLM is configured)."""

from __future__ import annotations

from langchain_core.messages import BaseMessage

from core.prompts.common import chat

SYSTEM = """You summarize AI/ML papers and notes for a research knowledge base. Write 2-4 plain
sentences: the problem, the method, and the key result with its numbers. Use only the text given;
no preamble, no Markdown."""


def summary_messages(title: str, text: str) -> list[BaseMessage]:
    return chat(SYSTEM, f"Title: {title}\n\nText (opening sections):\n{text}")
