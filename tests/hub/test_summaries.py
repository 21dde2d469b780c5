"""Document summaries: offline leading sentences, or the LLM's when configured (scripted model)."""

from __future__ import annotations

from core.hub.ingest import Ingestor
from core.hub.store import HubStore
from core.prompts.summary import summary_messages
from tests.support.scripted_model import ScriptedChatModel

NOTE = "# SMA: Sparse Mixture Adapters\n\n## Summary\n\nSMA routes tokens to two of sixteen adapters. It saves 40% of trainable parameters.\n\n## Method\n\nA router picks experts.\n"


def ingest(tmp_path, summarize):
    (tmp_path / "sma.md").write_text(NOTE)
    store = HubStore(tmp_path / "hub.sqlite3")
    ing = Ingestor(store, embed=False, summarize=summarize)
    ing.ingest([tmp_path / "sma.md"], "c")
    (doc,) = store.documents("c")
    return ing, store.document(doc["doc_id"])["summary"]


def test_offline_summary_is_the_leading_sentences(tmp_path):
    _, summary = ingest(tmp_path, None)
    assert summary.startswith("SMA routes tokens to two of sixteen adapters.")


def test_llm_summary_replaces_it_when_configured(tmp_path):
    model = ScriptedChatModel(script=["SMA is a sparse adapter method that saves 40% of parameters."])
    _, summary = ingest(tmp_path, lambda title, text: model.invoke(summary_messages(title, text)).content)
    assert summary == "SMA is a sparse adapter method that saves 40% of parameters."
    assert "Title: SMA: Sparse Mixture Adapters" in model.calls[0].text and "router picks experts" in model.calls[0].text


def test_failing_llm_keeps_the_offline_summary(tmp_path):
    def broken(title, text):
        raise ConnectionError("endpoint down")

    ing, summary = ingest(tmp_path, broken)
    assert summary.startswith("SMA routes tokens") and "endpoint down" in ing.summary_errors[0]
