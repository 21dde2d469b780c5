"""A fact learnt from a paper that has been read again since is checked against the paper as it now
reads: one it no longer says is left out of answers (with a notice the turn it is found) and listed by
``memory audit``, and stays in memory; one it still says is recalled as before. The verdict is kept, so
a later turn neither searches the paper for the fact again nor repeats the notice.

Real bundled hub as a stdio server, real SQLite stores and encoder, memory on (the default), invented
papers re-ingested with the real ingestor. The fact used to be recalled as "<paper> says: …" after the
paper's new version said something else (a fact learnt from the text an older reader gave).
"""

from __future__ import annotations

import asyncio
import time

import pytest

from tests.integration.helpers import ask_all, papers_home

COLLECTION = "reread"
OLD = "In the field trial, Wrenfield kept 43 of the 63 river gauges within tolerance after calibration."
NEW = "In the field trial, Wrenfield kept 51 of the 70 lake gauges within tolerance after recalibration."
KEPT = "Tessel stores the road maps of Portugal in 18 megabytes by sharing junction geometry."
PAPERS = {
    "wrenfield.md": f"---\ntitle: 'Wrenfield: Calibrating Sensor Networks'\nyear: 2019\n---\n\n# Wrenfield\n\n"
                    f"## Abstract\n\nWrenfield calibrates sensor networks from a few trusted gauges.\n\n## Results\n\n{OLD}\n",
    "tessel.md": f"---\ntitle: 'Tessel: Compressing Road Maps'\nyear: 2020\n---\n\n# Tessel\n\n## Abstract\n\n"
                 f"Tessel compresses road maps for phones.\n\n## Results\n\n{KEPT}\n",
}
ASK_OLD = "How many river gauges did Wrenfield keep within tolerance in the field trial?"
ASK_KEPT = "How many megabytes does Tessel need for the road maps of Portugal?"


def _reingest(s, tmp_path, name: str, text: str) -> None:
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    (tmp_path / "docs" / name).write_text(text, encoding="utf-8")
    store = HubStore(s.paths.resolve(s.paths.hub_db))
    try:
        assert Ingestor(store, embed=False).ingest([tmp_path / "docs" / name], COLLECTION).updated
    finally:
        store.close()


@pytest.mark.slow
def test_a_fact_its_reread_paper_no_longer_says_is_left_out_and_audited(tmp_path, monkeypatch):
    from core.memory.audit import audit
    from core.stores import open_stores
    from paperpilot_tui.cli.memory import HubEvidence

    s = papers_home(tmp_path, monkeypatch, PAPERS, COLLECTION)
    first = asyncio.run(ask_all([ASK_OLD, ASK_KEPT], s, session="learn", persist=True))
    taught = [f for t in first for e in t.of("memory_written") for f in e.facts]
    assert any("43 of the 63" in f for f in taught) and any("18 megabytes" in f for f in taught), taught

    store = open_stores(s).facts
    try:
        written = {f.content: f.updated for f in store.list()}
    finally:
        store.close()
    time.sleep(1.1)  # a version's time is kept to the second
    _reingest(s, tmp_path, "wrenfield.md", PAPERS["wrenfield.md"].replace(OLD, NEW))
    _reingest(s, tmp_path, "tessel.md", PAPERS["tessel.md"] + "\n## Notes\n\nTessel runs on phones.\n")  # same claim

    old, kept = asyncio.run(ask_all([ASK_OLD, ASK_KEPT], s, session="later", persist=True))
    assert not any("43 of the 63" in f for f in old.result.recalled_facts), old.result.recalled_facts
    assert "43 of the 63" not in old.result.final_answer, old.result.final_answer
    notices = [e.message for e in old.of("notice") if e.source == "memory"]
    assert any("no longer says" in m for m in notices), notices
    # a paper read again that still says the fact: recalled as before
    assert any("18 megabytes" in f for f in kept.result.recalled_facts), kept.result.recalled_facts
    # the verdicts are kept: a later session leaves the fact out again without a search of the paper
    # for it, and says so no more (the audit lists it)
    (again,) = asyncio.run(ask_all([ASK_OLD], s, session="later-still", persist=True))
    assert not any("43 of the 63" in f for f in again.result.recalled_facts), again.result.recalled_facts
    assert not [e for e in again.of("notice") if e.source == "memory"], again.of("notice")
    assert not [e for e in again.of("retrieval_started") if e.query.startswith("In the field trial")]
    facts = open_stores(s).facts
    try:
        by_text = {f.content: f for f in facts.list()}
        stale = next(f for c, f in by_text.items() if "43 of the 63" in c)  # kept in memory: nothing lost
        still = next(f for c, f in by_text.items() if "18 megabytes" in c)
        # the verdict is kept (the still-said fact was learnt again by its answer, which clears its check)
        assert stale.said is False and still.said is not False, (stale, still)
        assert stale.updated == written[stale.content]  # the check leaves its text and times as they were
        from core.hub.store import HubStore

        hub = HubStore(s.paths.resolve(s.paths.hub_db))
        try:
            report = audit(facts.list(), HubEvidence(hub))
        finally:
            hub.close()
    finally:
        facts.close()
    reasons = {f.id: f.reasons for f in report.findings}
    assert any("does not support it" in r for r in reasons.get(stale.id, [])), reasons.get(stale.id)
    assert not any("does not support it" in r for r in reasons.get(still.id, [])), reasons.get(still.id)
