"""Running ``paperpilot eval qa``: index the corpus, ask every question through the real agent, score.

The harness asks through the same ``open_agent``/``run_turn`` path as ``paperpilot ask``, one
process for the whole run. A follow-up's ``history`` is written into its session's checkpoint
first, exactly as an earlier turn would have left it. Sessions and facts go to a temporary folder;
the hub is the user's. Scoring is :func:`training.eval_qa.score` and :func:`training.eval_qa.summarize`.
"""

from __future__ import annotations

import hashlib
import re
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from training.eval_qa import FALLBACK_NOTE, SUFFIXES, Outcome, Question, doc_slug, score, summarize

SYNTHESIS_NOTE = re.compile(r"(?:: |reply for )synthesis\b")  # core.brains.llm.brain's notices for a draft


def collection_for(corpus: Path) -> str:
    """A collection named after the folder and its content: the same files reuse the same index."""
    h = hashlib.sha1()
    for path in sorted(p for p in corpus.rglob("*") if p.is_file() and p.suffix.lower() in SUFFIXES):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    slug = re.sub(r"[^a-z0-9]+", "-", corpus.resolve().name.lower()).strip("-")[:24] or "corpus"
    return f"eval-{slug}-{h.hexdigest()[:8]}"


def ingest_corpus(settings: Any, corpus: Path, collection: str) -> Any:
    """Index ``corpus`` into ``collection`` of the user's hub (unchanged files are skipped)."""
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    store = HubStore(settings.paths.resolve(settings.paths.hub_db))
    return Ingestor(store).ingest([corpus], collection)


def documents(settings: Any, collection: str) -> tuple[dict[str, str], dict[str, str]]:
    """Each document's ingested text (its current chunks, in order) and its title, by slug: what
    gold strings and recalled facts are traced back to."""
    from core.hub.store import HubStore

    store = HubStore(settings.paths.resolve(settings.paths.hub_db))
    try:
        docs = store.documents(collection)
        texts = {doc_slug(d["path"], d["doc_id"]): "\n".join(c.text for c in store.doc_chunks(d["doc_id"]))
                 for d in docs}
        return texts, {doc_slug(d["path"], d["doc_id"]): d["title"] for d in docs}
    finally:
        store.close()


async def _seed_history(agent: Any, session_id: str, history: list[dict], tag: str = "h") -> None:
    """Write an earlier exchange into the session, as a finished turn would have left it."""
    from langchain_core.messages import AIMessage, HumanMessage

    messages = []
    for n, msg in enumerate(history):
        role, content = msg.get("role"), str(msg.get("content", ""))
        cls = HumanMessage if role == "user" else AIMessage
        messages.append(cls(content=content, id=f"{session_id}-{tag}{n}"))
    if messages:
        await agent.graph.aupdate_state({"configurable": {"thread_id": session_id}}, {"messages": messages},
                                        as_node="format_output")


async def _draft(agent: Any, session_id: str) -> tuple[str | None, list]:
    """The turn's draft as composed and the chunks its markers index, read from the session's state
    (the formatter reads them and never writes them back)."""
    from core.types import RetrievedContext

    snap = await agent.graph.aget_state({"configurable": {"thread_id": session_id}})
    values = snap.values or {}
    if "draft_answer" not in values:
        return None, []
    contexts = [c if isinstance(c, RetrievedContext) else RetrievedContext.model_validate(c)
                for c in values.get("retrieved_contexts") or []]
    return str(values["draft_answer"] or ""), contexts


async def run_questions(agent: Any, questions: list[Question],
                        on_done: Callable[[Outcome], None] | None = None, *,
                        doc_texts: dict[str, str] | None = None, doc_titles: dict[str, str] | None = None,
                        profiles: dict | None = None) -> list[Outcome]:
    """Ask every question through ``agent.run_turn``, each in a fresh session, and score it."""
    from core.events import AnswerReady, Notice, TurnFinished
    from core.nodes.turn_floor import DELIVERED_NOTE

    rows: list[Outcome] = []
    for i, q in enumerate(questions):
        session = f"eval-{i:04d}-{agent.new_session_id()}"
        await _seed_history(agent, session, q.history, tag=f"q{i}h")
        t0 = time.perf_counter()
        result, error, dropped, changed, fallbacks, drafts = None, "", 0, 0, 0, 0
        offline_answer = False
        async for ev in agent.run_turn(q.question, session):
            if isinstance(ev, Notice) and ev.source == "turn_floor" and DELIVERED_NOTE in ev.message:
                offline_answer = True
            if isinstance(ev, Notice) and FALLBACK_NOTE in ev.message:
                fallbacks += 1
                drafts += bool(SYNTHESIS_NOTE.search(ev.message))  # the LLM's draft was replaced
            if isinstance(ev, AnswerReady):
                dropped, changed = len(ev.removed_markers), len(ev.citation_changes)
            if isinstance(ev, TurnFinished):
                result = ev.result
            elif ev.kind == "turn_failed":
                error = ev.error
        seconds = time.perf_counter() - t0
        draft, contexts = await _draft(agent, session) if result is not None else (None, [])
        outcome = score(q, result, seconds=seconds, dropped_markers=dropped, citations_changed=changed,
                        llm_fallbacks=fallbacks, error=error, draft=draft, contexts=contexts,
                        doc_texts=doc_texts, doc_titles=doc_titles, profiles=profiles)
        outcome.offline_drafts = drafts
        outcome.offline_answer = offline_answer
        outcome.session = session
        rows.append(outcome)
        if on_done:
            on_done(outcome)
    return rows


async def _run(settings: Any, questions: list[Question], collection: str, *, memory: bool,
               on_done, doc_texts, doc_titles, profiles) -> tuple[str, list[Outcome]]:
    from core.agent import open_agent

    with tempfile.TemporaryDirectory(prefix="paperpilot-eval-") as tmp:
        settings = settings.model_copy(deep=True)
        settings.paths.checkpoints_db = str(Path(tmp) / "checkpoints.sqlite3")
        settings.paths.state_db = str(Path(tmp) / "state.sqlite3")  # sessions and facts start empty
        settings.memory.enabled = memory
        settings.mcp.collection = collection
        async with open_agent(settings, collection=collection) as agent:
            rows = await run_questions(agent, questions, on_done, doc_texts=doc_texts,
                                       doc_titles=doc_titles, profiles=profiles)
            return agent.brain_name, rows


async def evaluate_qa(settings: Any, questions: list[Question], *, collection: str,
                      on_done: Callable[[Outcome], None] | None = None, corpus: Path | None = None,
                      default_settings: bool = False) -> dict:
    """Run the questions against ``collection`` with the configured brain; the report with every row.

    The scored run is isolated: a fresh session per question and long-term memory off, so facts
    learnt from one question never answer the next. ``corpus`` (the ingested folder) gives its
    PDFs' provenance profiles. ``default_settings`` adds a second run as a user would ask: memory
    on, the questions one after another, each in a session of its own (a session never recalls the
    facts it wrote itself, so questions in one session would test nothing), reported under
    ``default_settings``.
    """
    from training.eval_qa_provenance import corpus_profiles

    texts, titles = documents(settings, collection)
    profiles = corpus_profiles(corpus, doc_slug) if corpus else {}
    brain, rows = await _run(settings, questions, collection, memory=False, on_done=on_done,
                             doc_texts=texts, doc_titles=titles, profiles=profiles)
    report = summarize(rows)
    report["brain"] = brain
    report["collection"] = collection
    report["rows"] = [asdict(o) for o in rows]
    if default_settings:
        _, seq = await _run(settings, questions, collection, memory=True, on_done=on_done,
                            doc_texts=texts, doc_titles=titles, profiles=profiles)
        sub = summarize(seq)
        report["default_settings"] = {k: sub[k] for k in ("n", "gold_term", "answer_first_gold", "right_document",
                                                          "abstention_recall", "false_abstention", "recalled")}
        report["default_settings"]["rows"] = [{"id": o.id, "session": o.session, "recalled": o.recalled,
                                               "unrelated_recalled": o.unrelated_recalled, "answer": o.answer}
                                              for o in seq]
    return report
