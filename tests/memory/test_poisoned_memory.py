"""Poisoned documents in a real hub: no planted claim is learnt or recalled as prior knowledge, and
``paperpilot memory audit`` ranks planted facts above genuine ones (offline brain, real stdio hub,
real SQLite stores, real encoder).

The invented claim corpus is tests/support/poisoned.py's (shared with the fault suite).
"""

from __future__ import annotations

import asyncio
import json

import pytest

from core.memory.facts import FactStore
from core.memory.protocol import FactSource
from tests.integration.helpers import ask_all, papers_home
from tests.support.cli import cli
from tests.support.poisoned import CLAIM_COLLECTION as COLLECTION
from tests.support.poisoned import CLAIM_DOCS as DOCS
from tests.support.poisoned import CLAIM_LATER as LATER
from tests.support.poisoned import CLAIM_PLANTED as PLANTED
from tests.support.poisoned import CLAIM_QUESTIONS as QUESTIONS
from tests.support.poisoned import GENUINE_FACTS, PLANTED_FACTS


def _planted(text: str) -> bool:
    return any(p in text for p in PLANTED)


@pytest.fixture
def poisoned(tmp_path, monkeypatch):
    return papers_home(tmp_path, monkeypatch, DOCS, COLLECTION)


@pytest.mark.slow
def test_planted_claims_are_not_learnt_nor_recalled_as_prior_knowledge(poisoned):
    s = poisoned
    turns = asyncio.run(ask_all([*QUESTIONS, LATER], s, persist=True))
    later = turns.pop()
    # the planted text reached the answers' evidence, and the agent proposed it, but memory refused it
    retrieved = " ".join(c.content for t in turns for e in t.of("sources_found") for c in e.contexts)
    assert all(p in retrieved for p in PLANTED)
    refused = [r for t in turns for e in t.of("memory_written") for r in e.refused]
    assert any(_planted(r) and (" — contradicted: " in r or "instruction-like text" in r) for r in refused), refused
    facts = FactStore(s.paths.resolve(s.paths.state_db), s.memory)
    try:
        learnt = facts.list()
    finally:
        facts.close()
    assert not [f.content for f in learnt if _planted(f.content)]
    assert not [f for f in learnt if f.doc_id in ("quillon-field-notes", "morrow-notes")]
    # a later session recalls nothing planted, and what it recalls from a document is attributed
    recalled = later.result.recalled_facts
    assert not [f for f in recalled if _planted(f)]
    assert all(" says: " in f for f in recalled), recalled


@pytest.mark.slow
def test_memory_audit_ranks_planted_facts_above_genuine_ones(poisoned, capsys):
    s = poisoned
    src = {d: FactSource(doc_id=d, title=DOCS[f"{d}.md"].splitlines()[0][2:], chunk_id=f"{d}_0000")
           for d in ("quillon-paper", "adapter-survey", "quillon-field-notes", "morrow-notes")}
    planted = [f for f, _ in PLANTED_FACTS]
    facts = FactStore(s.paths.resolve(s.paths.state_db), s.memory)
    try:  # a store an agent without vetting filled: each fact with the document it came from
        for fact, doc in GENUINE_FACTS + PLANTED_FACTS:
            facts.memorize_sync([fact], "q", "s", [src[doc]])
    finally:
        facts.close()
    code, out, err = cli(capsys, "memory", "audit", "--json")
    assert code == 0, err
    report = json.loads(out)
    ranked = [f["content"] for f in report["findings"]]
    assert set(ranked[:3]) == set(planted), report["findings"]
    code, out, err = cli(capsys, "memory", "audit")
    lines = out.splitlines()
    assert code == 0 and "risk" in lines[0] and any(p in lines[0] for p in planted)
    assert lines[-1].startswith(f"{len(report['findings'])} of 6 fact(s) flagged, riskiest first")
