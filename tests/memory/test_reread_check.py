"""The reread check's bookkeeping, against a stand-in hub that answers as the bundled one does
(``get_document_summary``'s versions, a doc-scoped search): a fact is checked against a version once,
the version's time (the hub's clock) is what is kept, and a newer version is checked again."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from core.memory.audit import audit
from core.memory.facts import Fact
from core.memory.protocol import RecalledFact
from core.nodes.load_memory import reread_check
from core.types import RetrievedContext

FACT = "Wrenfield kept 43 of the 63 river gauges within tolerance."


class Hub:
    def __init__(self, created: float, text: str):
        self.created, self.text, self.searches = created, text, 0

    async def get_document_summary(self, doc_id, collection):
        return SimpleNamespace(structured={"versions": [{"version": 2, "current": True, "created": self.created,
                                                         "created_at": "2026-11-30T10:00:00"}]})

    async def search(self, query, top_k, collection, doc_id=None):
        self.searches += 1
        return [RetrievedContext(content=self.text, doc_id=doc_id, chunk_id=f"{doc_id}_0001", title="Wrenfield")]


def _ctx(hub: Hub) -> SimpleNamespace:
    return SimpleNamespace(hub=hub, collection="c")


def _fact(**kw) -> RecalledFact:
    return RecalledFact(**{"id": 1, "content": FACT, "doc_id": "wrenfield", "updated": 1000.0, **kw})


def test_a_fact_learnt_before_the_current_version_is_checked_against_it_and_its_version_kept():
    hub = Hub(created=2000.0, text="Wrenfield kept 51 of the 70 lake gauges within tolerance.")
    out = asyncio.run(reread_check(_ctx(hub), [_fact()]))
    assert out.unsaid == {1} and out.versions == {1: 2000.0} and hub.searches == 1


def test_a_verdict_for_the_current_version_is_kept_without_a_search():
    """A hub whose clock runs ahead of the app's: the kept time is the version's, so the next turn sees
    the check as one of this version and does not search (and report) again."""
    hub = Hub(created=2000.0, text="unrelated")
    out = asyncio.run(reread_check(_ctx(hub), [_fact(checked=2000.0, said=False)]))
    assert out.known_unsaid == {1} and not out.unsaid and hub.searches == 0


def test_a_version_newer_than_the_one_checked_is_checked_again():
    """A re-ingest during or after a check: the kept version's time is older than the current one."""
    hub = Hub(created=3000.0, text=FACT)
    out = asyncio.run(reread_check(_ctx(hub), [_fact(checked=2000.0, said=False)]))
    assert out.said == {1} and out.versions == {1: 3000.0} and hub.searches == 1


def test_a_fact_learnt_from_the_current_version_and_a_pinned_one_are_not_checked():
    hub = Hub(created=500.0, text="unrelated")
    out = asyncio.run(reread_check(_ctx(hub), [_fact(), _fact(id=2, pinned=True, updated=100.0)]))
    assert not (out.said or out.unsaid or out.known_unsaid) and hub.searches == 0


def test_the_audit_lists_a_fact_answers_leave_out_without_reading_the_hub():
    """Answers leave out a fact whose check found it unsaid; the audit lists it even where its own read
    of the documents is missing (no hub here) or finds the support in a chunk the check did not rank."""
    f = Fact(id=1, content=FACT, created=1.0, updated=1.0, doc_id="wrenfield", source_docs=["wrenfield"], said=False)
    reasons = audit([f]).findings[0].reasons
    assert any("did not support it when last checked" in r for r in reasons), reasons
