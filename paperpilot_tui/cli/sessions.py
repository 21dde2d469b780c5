"""``paperpilot sessions``: list, show, rename and delete conversations (resumable with --session)."""

from __future__ import annotations

import argparse
import json
import time

from paperpilot_tui.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load_settings_or_exit, run_async, say

HELP = "list, show, rename or delete conversations"
DESCRIPTION = """\
Sessions are conversations: every turn is checkpointed, so `paperpilot ask --session ID "..."`
(or `paperpilot --session ID`) continues one after a restart and follow-ups resolve against it.
Deep-research sessions are listed too, marked "research:"; `show` prints their review.

  paperpilot sessions list [--json]          paperpilot sessions rename ID TITLE
  paperpilot sessions show ID [--json]       paperpilot sessions rm ID
"""
EMPTY = 'No sessions yet — start one with: paperpilot ask --session NAME "your question"'


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sessions", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    acts.add_parser("list", help="all sessions, most recent first").add_argument(
        "--json", action="store_true", help="print a JSON array")
    a = acts.add_parser("show", help="print a session's conversation")
    a.add_argument("id")
    a.add_argument("--json", action="store_true", help="print one JSON object")
    a = acts.add_parser("rename", help="give a session a title")
    a.add_argument("id")
    a.add_argument("title")
    acts.add_parser("rm", help="delete a session, its checkpoints and its traces").add_argument("id")
    p.set_defaults(run=run)


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))


def run(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit(args)
    from core.memory.sessions import SessionNotFound
    from core.stores import open_stores

    stores = open_stores(settings)
    store, ckpt = stores.sessions, stores.checkpoints
    try:
        if args.action == "list":
            return _list(store, stores.traces, args.json)
        if args.action == "show":
            return run_async(_show(store, ckpt, stores.traces, args.id, args.json))
        if args.action == "rename":
            s = store.rename(args.id, args.title)
            say(f"session {s.id}: {s.title}")
            return EXIT_OK
        if args.action == "rm":
            if store.get(args.id) is None:
                return fail(f"no session with id {args.id}", EXIT_FAILED)
            store.delete(args.id, ckpt)
            say(f"deleted session {args.id}")
            return EXIT_OK
        return fail(f"unknown action {args.action}", EXIT_USAGE)
    except SessionNotFound as exc:
        return fail(str(exc), EXIT_FAILED)
    except ValueError as exc:
        return fail(str(exc), EXIT_FAILED)
    finally:
        store.close()


def _list(store, traces, as_json: bool) -> int:
    """Chat sessions and deep-research sessions (marked), most recent first."""
    from paperpilot_tui.conversations import conversations

    sessions = store.list()
    rows = conversations(sessions, traces.list(None, None))
    if as_json:
        by_id = {s.id: s.model_dump(mode="json") for s in sessions}
        say(json.dumps([{**by_id.get(r.id, {"id": r.id, "title": r.title, "created": r.created,
                                            "updated": r.updated, "turn_count": r.turn_count}),
                         "research": r.research} for r in rows], ensure_ascii=False, indent=2))
    elif not rows:
        say(EMPTY)
    else:
        width = max(len(r.id) for r in rows)
        for r in rows:
            count = f"{r.turn_count:>3} run(s) " if r.research else f"{r.turn_count:>3} turn(s)"
            say(f"{r.id:<{width}}  {_when(r.updated)}  {count}  {'research: ' if r.research else ''}{r.title}")
    return EXIT_OK


def _show_research(traces, session_id: str, as_json: bool) -> int | None:
    """Print a deep-research session (its topic and review); None when ``session_id`` is not one."""
    from paperpilot_tui.conversations import research_review

    found = research_review(traces, session_id)
    if found is None:
        return None
    topic, review = found
    if as_json:
        say(json.dumps({"id": session_id, "research": True, "topic": topic, "review": review},
                       ensure_ascii=False, indent=2))
        return EXIT_OK
    say(f"{session_id} — research: {topic}")
    say(review if review is not None else
        f"No review yet: the run waits for you. Continue it with: paperpilot research --session {session_id}")
    return EXIT_OK


async def _show(store, ckpt, traces, session_id: str, as_json: bool) -> int:
    from core.memory.checkpoints import read_messages
    from core.memory.history import FAILED_MARK, conversation, turns_from_messages

    session = store.get(session_id)
    messages = await read_messages(ckpt, session_id)
    if session is None and not messages:
        shown = _show_research(traces, session_id, as_json)
        return fail(f"no session with id {session_id}", EXIT_FAILED) if shown is None else shown
    if session is not None and messages:  # the count of the turns shown, failed ones included (a row
        session.turn_count = len(turns_from_messages(messages, len(messages), failed=True))  # may be stale)
    turns = conversation(messages)
    if as_json:
        data = session.model_dump(mode="json") if session else {"id": session_id}
        say(json.dumps({**data, "messages": turns}, ensure_ascii=False, indent=2))
        return EXIT_OK
    if session is not None:
        say(f"{session.id} — {session.title}  ({session.turn_count} turn(s), last {_when(session.updated)})")
    if not turns:
        say("No messages in this session yet.")
    for t in turns:
        who = "You" if t["role"] == "user" else "PaperPilot"
        text = f"{FAILED_MARK}: {t['error']}" if t.get("failed") else t["content"]
        say(f"\n{who}:\n  " + text.replace("\n", "\n  "))
    return EXIT_OK
