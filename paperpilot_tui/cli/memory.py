"""``paperpilot memory``: see, search, fix and delete what the agent remembers across sessions."""

from __future__ import annotations

import argparse
import json
import sys
import time

from paperpilot_tui.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load_settings_or_exit, run_async, say

HELP = "list, search, add, edit, pin, delete or audit long-term facts"
DESCRIPTION = """\
Long-term facts the agent learnt from answers that passed its critic. They are recalled into later
answers as "prior knowledge" (never as citations). Pinned facts are never evicted by the cap.
Each learnt fact records its source (document, chunk) and session; instruction-like text is never
learnt, nor a fact from a document holding instruction-like text or one another source contradicts;
`audit` ranks facts by risk (instructions, a tainted document, disagreeing sources, one source).

  paperpilot memory list [--json]           paperpilot memory edit ID TEXT
  paperpilot memory show ID [--json]        paperpilot memory rm ID
  paperpilot memory search QUERY [--json]   paperpilot memory pin ID / unpin ID
  paperpilot memory add TEXT [--pin]        paperpilot memory audit [--json]
  paperpilot memory export FILE             paperpilot memory import FILE   (JSON lines)
"""
EMPTY = "No facts yet — ask a few questions (facts are kept from answers that pass the critic) or add one: paperpilot memory add \"...\""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("memory", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = acts.add_parser("list", help="all facts, pinned first")
    a.add_argument("--json", action="store_true", help="print a JSON array")
    a.add_argument("--limit", type=int, metavar="N", help="at most N facts")
    a = acts.add_parser("search", help="facts relevant to a query (lexical + semantic)")
    a.add_argument("query")
    a.add_argument("-k", "--top-k", type=int, default=10, metavar="N", help="how many (default 10)")
    a.add_argument("--json", action="store_true", help="print a JSON array")
    a = acts.add_parser("show", help="one fact with its provenance (document, chunk, session)")
    a.add_argument("id", type=int)
    a.add_argument("--json", action="store_true", help="print a JSON object")
    a = acts.add_parser("audit", help="facts ranked by risk, with the reasons (riskiest first)")
    a.add_argument("--json", action="store_true", help="print a JSON object")
    a = acts.add_parser("add", help="add a fact")
    a.add_argument("text")
    a.add_argument("--pin", action="store_true", help="pin it (never evicted)")
    a = acts.add_parser("edit", help="replace a fact's text")
    a.add_argument("id", type=int)
    a.add_argument("text")
    for name, text in (("rm", "delete a fact"), ("pin", "never evict this fact"), ("unpin", "allow eviction again")):
        acts.add_parser(name, help=text).add_argument("id", type=int)
    acts.add_parser("export", help="write all facts as JSON lines").add_argument("file")
    acts.add_parser("import", help="add facts from JSON lines (duplicates skipped)").add_argument("file")
    p.set_defaults(run=run)


def _store(args: argparse.Namespace):
    settings = load_settings_or_exit(args)
    from core.stores import open_stores

    return settings, open_stores(settings).facts


class HubEvidence:
    """What the hub's own store says about facts' documents (:class:`core.memory.audit.Evidence`).

    Read from the store directly (no hub process): every document's current chunks once. A data dir
    without a hub database has no evidence; the hub is never created here."""

    def __init__(self, hub) -> None:
        self._rows: dict[str, tuple[str, list]] = {}  # doc_id → (title, its current chunk rows)
        self._items: list[tuple[str, str, str]] = []
        for doc in hub.documents():
            rows = hub.doc_chunks(doc["doc_id"])
            title = doc["title"] or doc["doc_id"]
            self._rows[doc["doc_id"]] = (title, rows)
            self._items += [(doc["doc_id"], title, c.text) for c in rows]
        self._contexts: dict[str, list] = {}  # built for the documents facts cite, when first asked

    def instructions(self, doc_id: str) -> list[str]:
        from core.memory.claims import instruction_sentences

        return instruction_sentences([c.text for c in self._rows.get(doc_id, ("", []))[1]])

    def chunks(self) -> list[tuple[str, str, str]]:
        return self._items

    def says(self, doc_id: str, text: str) -> bool | None:
        """Whether a chunk of the document's current version supports ``text`` (as a citation's
        chunk must support its claim, :func:`core.citations.supports`); None for a document the hub
        does not hold (removed, or never indexed here)."""
        from core.citations import supports
        from core.types import RetrievedContext

        if doc_id not in self._rows:
            return None
        if doc_id not in self._contexts:
            title, rows = self._rows[doc_id]
            self._contexts[doc_id] = [RetrievedContext(content=c.text, title=title, breadcrumb=c.breadcrumb,
                                                       doc_id=doc_id, chunk_id=c.chunk_id) for c in rows]
        return any(supports(text, c) for c in self._contexts[doc_id])


def _evidence(settings) -> tuple[HubEvidence | None, str]:
    """The hub's evidence, or None and why it is missing (a note for the audit's last line)."""
    if settings is None:
        return None, ""
    from core.hub.pg import open_store, resolve_dsn

    if resolve_dsn(settings) is None and not settings.paths.resolve(settings.paths.hub_db).is_file():
        return None, "no knowledge hub yet: documents not checked"
    try:
        hub = open_store(settings)
    except Exception as exc:  # noqa: BLE001 - the audit still ranks on what the fact store knows
        return None, f"knowledge hub not read ({str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__})"
    try:
        return HubEvidence(hub), ""
    except Exception as exc:  # noqa: BLE001 - a corrupt or unreachable hub: the same
        return None, f"knowledge hub not read ({str(exc).splitlines()[0][:120] if str(exc) else type(exc).__name__})"
    finally:
        hub.close()


def _fact_json(f) -> dict:
    from core.memory.audit import provenance

    return {**f.model_dump(mode="json"), "provenance": provenance(f)}


def _line(f) -> str:
    when = time.strftime("%Y-%m-%d", time.localtime(f.updated))
    pin = "📌" if f.pinned else "  "
    return f"{f.id:>5} {pin} {when}  recalled {f.recall_count:>3}×  {f.content}"


def run(args: argparse.Namespace) -> int:
    from core.memory.facts import FactNotFound

    settings, store = _store(args)
    try:
        return _dispatch(store, args, settings)
    except FactNotFound as exc:
        return fail(str(exc), EXIT_FAILED)
    except (ValueError, OSError) as exc:
        return fail(str(exc) if not isinstance(exc, OSError) else f"{exc.filename}: {exc.strerror}", EXIT_FAILED)
    finally:
        store.close()


def _dispatch(store, args: argparse.Namespace, settings=None) -> int:
    act = args.action
    if act == "list":
        facts = store.list(limit=args.limit)
        if args.json:
            say(json.dumps([_fact_json(f) for f in facts], ensure_ascii=False, indent=2))
        elif not facts:
            say(EMPTY)
        else:
            say("\n".join(_line(f) for f in facts))
        return EXIT_OK
    if act == "show":
        f = store.get(args.id)
        if f is None:
            return fail(f"no fact with id {args.id}", EXIT_FAILED)
        say(json.dumps(_fact_json(f), ensure_ascii=False, indent=2) if args.json else _detail(f))
        return EXIT_OK
    if act == "audit":
        return _audit(store, args.json, settings)
    if act == "search":
        if not args.query.strip():
            return fail("the query is empty", EXIT_USAGE)
        hits = run_async(_search(store, args.query, args.top_k, args.json))
        return hits
    if act == "add":
        f = store.add(args.text, pinned=args.pin)
        say(f"fact {f.id}: {f.content}")
        return EXIT_OK
    if act == "edit":
        f = store.edit(args.id, args.text)
        say(f"fact {f.id}: {f.content}")
        return EXIT_OK
    if act == "rm":
        if not store.delete(args.id):
            return fail(f"no fact with id {args.id}", EXIT_FAILED)
        say(f"deleted fact {args.id}")
        return EXIT_OK
    if act in ("pin", "unpin"):
        f = store.pin(args.id) if act == "pin" else store.unpin(args.id)
        say(f"fact {f.id} {'pinned' if f.pinned else 'unpinned'}")
        return EXIT_OK
    if act == "export":
        n = store.export(args.file)
        say(f"exported {n} fact(s) to {args.file}")
        return EXIT_OK
    if act == "import":
        n = store.import_(args.file)
        say(f"imported {n} new fact(s) from {args.file}")
        return EXIT_OK
    return fail(f"unknown action {act}", EXIT_USAGE)  # argparse prevents this


def _detail(f) -> str:
    from core.memory.audit import provenance

    day = "%Y-%m-%d %H:%M"
    lines = [f"fact {f.id}{' · pinned' if f.pinned else ''}", f.content, provenance(f)]
    if f.session_id:
        lines.append(f"session {f.session_id}" + (f" · asked: {f.source_question}" if f.source_question else ""))
    lines.append(f"created {time.strftime(day, time.localtime(f.created))} · updated "
                 f"{time.strftime(day, time.localtime(f.updated))} · recalled {f.recall_count}×")
    return "\n".join(lines)


def _audit(store, as_json: bool, settings=None) -> int:
    from core.memory.audit import audit

    evidence, note = _evidence(settings)
    report = audit(store.list(), evidence)
    if as_json:
        say(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=2))
        return EXIT_OK
    if not report.total:
        say(EMPTY)
        return EXIT_OK
    for f in report.findings:
        say(f"{f.id:>5}  risk {f.score:>4.1f}  {'; '.join(f.reasons)}  — {f.content}")
    unknown = len(report.provenance_unknown)
    if unknown:
        say(f"{unknown} fact(s) learnt before sources were recorded: provenance unknown (not flagged)")
    if note:
        say(note)
    say(f"{len(report.findings)} of {report.total} fact(s) flagged, riskiest first"
        + (" · delete one with: paperpilot memory rm ID" if report.findings else ""))
    return EXIT_OK


async def _search(store, query: str, top_k: int, as_json: bool) -> int:
    hits = await store.search(query, top_k)
    if as_json:
        say(json.dumps([h.model_dump(mode="json") for h in hits], ensure_ascii=False, indent=2))
    elif not hits:
        say("No facts match." if store.count() else EMPTY)
    else:
        for h in hits:
            say(f"{h.id:>5} {'📌' if h.pinned else '  '} {h.score:.2f}  {h.content}")
    sys.stdout.flush()
    return EXIT_OK
