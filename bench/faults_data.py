"""Fault experiments on what ends up stored: a poisoned corpus, and a key typed into questions.

* ``poisoned corpus``: tests/data/poisoned_notes.md (ordinary notes mixed with prompt injections and
  a planted verdict) is ingested with ``paperpilot ingest``; real ``ask`` processes with memory on
  ask the questions that retrieve the poisoned chunks (the ones tests/integration/test_memory_hygiene.py
  uses), then ``memory list --json`` is read back and every fact is run through the hygiene detector
  and the plain planted phrases. ``memorized_instructions`` must be 0.
* ``secrets grep``: a made-up key (fresh each run) is ``OPENAI_API_KEY`` for every command, the
  provider offline. Questions carry it (and a key-shaped string configured nowhere); then sessions
  list/show, a rename, traces list/show/export, memory add/list/export/audit run, and a document is
  ingested with the LLM writing its summary (a local stand-in whose summary repeats the key). Every file under
  ``$PAPERPILOT_HOME`` (WAL and SHM files included) is read as bytes and the copies counted.
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
from pathlib import Path

from bench.faults_common import env_for, home_with_hub, row, run_cli, settings_file, tally
from tests.support.ask_proc import Ask

ASK_BOUND_S = 300


def _ask(home: Path, config: Path, question: str, session: str, env: dict | None = None) -> dict:
    ask = Ask(home, config, question, session=session, env=env)
    try:
        code, data, err = ask.finish(timeout=ASK_BOUND_S)
        return {"code": code, "data": data, "stderr": err, "stdout": json.dumps(data or {}), "hang": False}
    except subprocess.TimeoutExpired:
        return {"code": None, "data": None, "stderr": "\n".join(ask.err_lines), "stdout": "", "hang": True}
    finally:
        ask.kill()  # the group: a stdio hub left behind


def poisoned_corpus(indexed: Path, attacks: int | None = None) -> dict:
    """Ingest the poisoned notes, ask what hits them (the first ``attacks`` attack questions; all by
    default) and an ordinary question with memory on; count instruction-like facts kept."""
    from core.memory.hygiene import is_instruction_like
    from tests.support.poisoned import ATTACKS, COLLECTION, ORDINARY, PLANTED, POISONED

    asked = ATTACKS[:attacks]

    home = home_with_hub(indexed, "faults-poison-")
    config = settings_file(home, memory=True, mcp=f"  collection: {COLLECTION}\n")
    try:
        outcomes = [run_cli(home, "--config", str(config), "ingest", str(POISONED), "--collection", COLLECTION,
                            timeout=300)]
        outcomes += [_ask(home, config, q, f"poison-{i}") for i, q in enumerate([*asked, ORDINARY])]
        listed = run_cli(home, "--config", str(config), "memory", "list", "--json")
        outcomes.append(listed)
        facts = [f["content"] for f in json.loads(listed["stdout"])] if listed["code"] == 0 else []
    finally:
        shutil.rmtree(home, ignore_errors=True)

    def planted(text: str) -> bool:
        return any(p in text.lower() for p in PLANTED)

    kept = [f for f in facts if is_instruction_like(f) or planted(f)]
    answers = [o["data"] for o in outcomes[1:1 + len(asked)] if o.get("data")]
    reached = sum(any(str(s.get("source", "")).endswith(POISONED.name) for s in a["sources"]) for a in answers)
    quoted = sum(planted(a["final_answer"]) for a in answers)
    c = tally(outcomes)
    notes = (f"memorized_instructions={len(kept)}; {len(facts)} fact(s) learnt; {reached}/{len(asked)} attack "
             f"answers cite the poisoned notes, {quoted} quote the planted text")
    if kept:
        notes += "; kept e.g. " + repr(kept[0][:120])
    if listed["code"] != 0:
        notes += f"; memory list failed (exit {listed['code']})"
    return row("poisoned corpus", tries=len(outcomes), survived=c["survived"], clear_error=c["clear_error"],
               traceback=c["traceback"], hang=c["hang"], lost="n/a", notes=notes, memorized_instructions=len(kept),
               facts=len(facts), quoted=quoted, reached=reached, answered=c["answered"])


def _copies(home: Path, needles: list[bytes]) -> dict[str, int]:
    """Occurrences of any needle in each file under ``home`` (bytes, so binary SQLite pages count)."""
    found = {}
    for path in home.rglob("*"):
        if path.is_file() and not path.is_symlink():
            data = path.read_bytes()
            n = sum(data.count(x) for x in needles)
            if n:
                found[str(path.relative_to(home))] = n
    return found


def _llm_summary_ingest(home: Path, key: str, env: dict[str, str]) -> dict:
    """``ingest`` with the LLM writing the document summary, the summary repeating the configured key
    (a local OpenAI-compatible stand-in: the cloud cannot run here)."""
    from tests.support.fake_openai import FakeServer

    doc = home / "summary-doc" / "adapters.md"
    doc.parent.mkdir()
    doc.write_text("# Quillon Adapters\n\nQuillon adapters are low-rank adapters in every attention block.\n")
    config = settings_file(home / "summary-doc", other="")
    with FakeServer() as server:
        server.text = f"Quillon adapters are low-rank adapters; the deployment used key {key}."
        config.write_text(config.read_text() + f"llm:\n  provider: openai\n  base_url: {server.url}\n"
                          "  retries: 0\n  timeout: 20\n")
        out = run_cli(home, "--config", str(config), "ingest", str(doc), "--no-embed", env=env_for(home, **env))
        out["summarized"] = len(server.requests)
    return out


def secrets_grep(indexed: Path, quick: bool = False) -> dict:
    """Questions, a fact and a title carry a configured key; then count its copies under the home.
    ``quick`` (the test suite): two asks and one command of each kind instead of three and all forms."""
    key = f"pp-fault-{secrets.token_hex(10)}"  # configured (OPENAI_API_KEY), not key-shaped
    shaped = f"sk-proj-{secrets.token_urlsafe(18).replace('-', 'x').replace('_', 'y')}"  # caught by shape
    env = {"OPENAI_API_KEY": key}
    home = home_with_hub(indexed, "faults-secrets-")
    config = settings_file(home, memory=True)
    base = ["--llm", "offline", "--config", str(config)]
    try:
        questions = [(f"my key is {key}; what rank does LoRA use by default?", "S"),
                     (f"and with {key} and {shaped} set, how much memory does it save?", "S"),
                     (f"{shaped} / {key}: what is QLoRA?", "T")]
        outcomes = [_ask(home, config, q, s, env) for q, s in questions[1 if quick else 0:]]
        traces = [o["data"]["trace_id"] for o in outcomes if o.get("data")]
        cmds = [["sessions", "list"], ["sessions", "show", "S", "--json"],
                ["sessions", "rename", "T", f"title with {key}"], ["traces", "list"],
                ["memory", "add", f"the deployment key {key} is not a finding"], ["memory", "list", "--json"],
                ["memory", "export", str(home / "facts-export.jsonl")]]
        if not quick:
            cmds += [["sessions", "list", "--json"], ["sessions", "show", "S"], ["sessions", "show", "T", "--json"],
                     ["traces", "list", "--json"], ["memory", "audit"]]
        for tid in traces[:1 if quick else 2]:
            cmds += [["traces", "show", tid, "--json"], ["traces", "export", tid, str(home / f"trace-{tid[:8]}.jsonl")]]
            cmds += [] if quick else [["traces", "show", tid]]
        outcomes += [run_cli(home, *base, *cmd, env=env_for(home, **env)) for cmd in cmds]
        outcomes.append(_llm_summary_ingest(home, key, env))
        found = _copies(home, [key.encode(), shaped.encode()])
    finally:
        shutil.rmtree(home, ignore_errors=True)
    printed = sum(key in (o.get("stdout") or "") or shaped in (o.get("stdout") or "") for o in outcomes)
    c = tally(outcomes)
    copies = sum(found.values())
    notes = (f"copies={copies} in {len(found)} file(s){' ' + ', '.join(sorted(found)) if found else ''}; "
             f"{len(outcomes)} commands ({len(traces)} asks answered; an LLM summary asked "
             f"{outcomes[-1].get('summarized', 0)} time(s)), {printed} printed the key")
    return row("secrets grep", tries=len(outcomes), survived=c["survived"], clear_error=c["clear_error"],
               traceback=c["traceback"], hang=c["hang"], lost="n/a", notes=notes, copies=copies, files=found,
               printed=printed, answered=c["answered"])

