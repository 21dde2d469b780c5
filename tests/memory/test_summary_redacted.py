"""A document summary written by the LLM never stores the configured key in the hub database.

The LLM is the one part replaced (it cannot run here): its summary repeats the key it was shown.
Everything else is real: ``paperpilot ingest`` in-process with ``OPENAI_API_KEY`` set, the real
SQLite hub store, and every byte under the data dir (WAL included) searched for the key.
"""

from __future__ import annotations

import secrets

from core.hub.ingest import Ingestor
from core.hub.store import HubStore
from tests.support.cli import cli

DOC = "# Quillon Adapters\n\nQuillon adapters are low-rank adapters inserted into every attention block.\n"


def _copies(root, key: str) -> dict[str, int]:
    return {str(p): n for p in root.rglob("*") if p.is_file() and (n := p.read_bytes().count(key.encode()))}


def test_ingest_scrubs_the_configured_key_from_an_llm_summary(home, tmp_path, capsys, monkeypatch):
    key = f"pp-test-{secrets.token_hex(12)}"  # not key-shaped: only the configured secret catches it
    monkeypatch.setenv("OPENAI_API_KEY", key)
    seen = []

    def summarizer(settings):
        def summarize(title: str, text: str) -> str:
            seen.append(title)
            return f"{title}: adapters for attention blocks; the deployment used key {key}."
        return summarize

    monkeypatch.setattr("paperpilot_tui.cli.ingest.llm_summarizer", summarizer)
    doc = tmp_path / "docs" / "quillon.md"
    doc.parent.mkdir()
    doc.write_text(DOC)
    code, out, err = cli(capsys, "ingest", str(doc), "--no-embed")
    assert code == 0, err
    assert seen == ["Quillon Adapters"]  # the summary really came from the (stand-in) LLM
    store = HubStore(home / "hub.sqlite3")
    try:
        (d,) = store.documents()
        assert d["summary"].startswith("Quillon Adapters: adapters for attention blocks") and "[REDACTED]" in d["summary"]
    finally:
        store.close()
    assert _copies(home, key) == {}


def test_the_ingestor_scrubs_summaries_and_summary_errors(tmp_path):
    key = f"pp-test-{secrets.token_hex(12)}"
    doc = tmp_path / "quillon.md"
    doc.write_text(DOC)
    store = HubStore(tmp_path / "hub.sqlite3")
    try:
        ing = Ingestor(store, embed=False, secrets=[key], summarize=lambda title, text: f"{title} uses {key}")
        ing.ingest([doc], "default")
        (d,) = store.documents()
        assert key not in d["summary"] and d["summary"].endswith("[REDACTED]")

        def failing(title, text):
            raise RuntimeError(f"HTTP 401 for key {key}")

        ing = Ingestor(store, embed=False, secrets=[key], summarize=failing)
        ing.ingest([doc], "default", force=True)
        assert ing.summary_errors and all(key not in e for e in ing.summary_errors)
    finally:
        store.close()
    assert _copies(tmp_path, key) == {}
