"""Fault experiment: planted descriptive claims in indexed documents (not instructions).

The invented claim corpus of ``tests/support/poisoned.py`` is ingested with ``paperpilot ingest``;
real ``ask`` processes with memory on ask what retrieves the planted claims, then a later session
asks again. Counted: planted claims learnt (``memory list``), planted claims recalled in the later
session, and recalled document facts not attributed to their document ("<title> says: ..."). Then,
in a fresh store filled as an agent without vetting would have filled it (each fact with its
document), ``memory audit --json`` must rank every planted fact above every genuine one.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from bench.faults_common import home_with_hub, row, run_cli, settings_file, tally
from bench.faults_data import _ask


def _audit_rank(home: Path, config: Path, docs: Path) -> tuple[int, list[dict]]:
    """Index the claim documents, seed genuine and planted facts with their documents; how many
    planted facts rank in the top 3 of ``memory audit``."""
    import os

    from core.config import load_settings
    from core.memory.facts import FactStore
    from core.memory.protocol import FactSource
    from tests.support.poisoned import CLAIM_DOCS, GENUINE_FACTS, PLANTED_FACTS

    from tests.support.poisoned import CLAIM_COLLECTION

    ingest = run_cli(home, "--config", str(config), "ingest", str(docs), "--collection", CLAIM_COLLECTION, timeout=300)
    os.environ["PAPERPILOT_HOME"] = str(home)
    try:
        s = load_settings(config, use_user_file=False)
        facts = FactStore(s.paths.resolve(s.paths.state_db), s.memory)
    finally:
        os.environ.pop("PAPERPILOT_HOME", None)
    try:
        for fact, doc in GENUINE_FACTS + PLANTED_FACTS:
            title = CLAIM_DOCS[f"{doc}.md"].splitlines()[0][2:]
            facts.memorize_sync([fact], "q", "s", [FactSource(doc_id=doc, title=title, chunk_id=f"{doc}_0000")])
    finally:
        facts.close()
    out = run_cli(home, "--config", str(config), "memory", "audit", "--json")
    ranked = [f["content"] for f in json.loads(out["stdout"])["findings"]] if out["code"] == 0 else []
    top = set(ranked[:len(PLANTED_FACTS)])
    return sum(f in top for f, _ in PLANTED_FACTS), [ingest, out]


def planted_claims(indexed: Path) -> dict:
    from tests.support.poisoned import CLAIM_COLLECTION, CLAIM_DOCS, CLAIM_LATER, CLAIM_PLANTED, CLAIM_QUESTIONS

    home = home_with_hub(indexed, "faults-claims-")
    audit_home = home_with_hub(indexed, "faults-audit-")
    docs = home / "claim-docs"
    docs.mkdir()
    for name, text in CLAIM_DOCS.items():
        (docs / name).write_text(text, encoding="utf-8")
    config = settings_file(home, memory=True, mcp=f"  collection: {CLAIM_COLLECTION}\n")
    audit_config = settings_file(audit_home, memory=True, mcp=f"  collection: {CLAIM_COLLECTION}\n")
    try:
        outcomes = [run_cli(home, "--config", str(config), "ingest", str(docs), "--collection", CLAIM_COLLECTION,
                            timeout=300)]
        outcomes += [_ask(home, config, q, f"claims-{i}") for i, q in enumerate(CLAIM_QUESTIONS)]
        later = _ask(home, config, CLAIM_LATER, "claims-later")
        outcomes.append(later)
        listed = run_cli(home, "--config", str(config), "memory", "list", "--json")
        outcomes.append(listed)
        facts = [f["content"] for f in json.loads(listed["stdout"])] if listed["code"] == 0 else []
        top, audit = _audit_rank(audit_home, audit_config, docs)
        outcomes += audit
    finally:
        shutil.rmtree(home, ignore_errors=True)
        shutil.rmtree(audit_home, ignore_errors=True)

    def planted(text: str) -> bool:
        return any(p in text for p in CLAIM_PLANTED)

    recalled = (later.get("data") or {}).get("recalled_facts") or []
    learnt = sum(planted(f) for f in facts)
    as_prior = sum(planted(f) for f in recalled) + sum(" says: " not in f for f in recalled)
    c = tally(outcomes)
    misranked = 3 - top
    notes = (f"{learnt} planted claim(s) learnt of {len(facts)} fact(s); later session recalled {len(recalled)} "
             f"fact(s), {as_prior} planted or unattributed; memory audit ranks {top}/3 planted facts on top")
    return row("planted claims", tries=len(outcomes), survived=c["survived"], clear_error=c["clear_error"],
               traceback=c["traceback"], hang=c["hang"], lost="n/a", notes=notes, learnt=learnt,
               recalled_as_prior=as_prior, misranked=misranked, answered=c["answered"])


__all__ = ["planted_claims"]
