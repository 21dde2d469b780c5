"""``paperpilot traces``: what the agent did on each turn — list, show, export (JSONL), replay."""

from __future__ import annotations

import argparse
import json
import sys

from paperpilot_tui.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load_settings_or_exit, run_async, say

HELP = "list, show, export or replay what the agent did on a turn"
DESCRIPTION = """\
Every turn is traced: intent, strategy, each step with its duration, queries and chunk ids,
sufficiency judgements, critic verdicts, retries, LLM calls and tokens, the answer or the error.
Secrets (API keys, auth headers, tracing.redact) are scrubbed before anything is stored.
An ID may be shortened to any unique prefix.

  paperpilot traces list [--session ID] [--json]   paperpilot traces export ID [FILE]
  paperpilot traces show ID [--json]               paperpilot traces replay ID [--speed X]
"""
EMPTY = 'No traces yet — every question you ask is traced, e.g. paperpilot ask "What is LoRA?"'


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("traces", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    acts = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    a = acts.add_parser("list", help="recent traces, newest first")
    a.add_argument("--session", metavar="ID", help="only this session's")
    a.add_argument("--limit", type=int, default=50, metavar="N", help="at most N (default 50)")
    a.add_argument("--json", action="store_true", help="print a JSON array")
    a = acts.add_parser("show", help="the steps of one turn")
    a.add_argument("id")
    a.add_argument("--json", action="store_true", help="print the full trace as one JSON object")
    a = acts.add_parser("export", help="the recorded events as JSON lines (stdout without FILE)")
    a.add_argument("id")
    a.add_argument("file", nargs="?")
    a = acts.add_parser("replay", help="re-emit the recorded events with their original timing")
    a.add_argument("id")
    a.add_argument("--speed", type=float, default=1.0, metavar="X", help="2 = twice as fast, 0 = instant")
    a.add_argument("--max-gap", type=float, default=2.0, metavar="S",
                   help="longest pause between two events, in seconds (default 2; the TUI uses the same cap)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit(args)
    from core.stores import open_stores

    store = open_stores(settings).traces
    try:
        if args.action == "list":
            return _list(store, args)
        trace_id = store.resolve(args.id)
        if trace_id is None:
            return fail(f"no trace with id {args.id}", EXIT_FAILED)
        if args.action == "show":
            return _show(store, trace_id, args.json)
        if args.action == "export":
            lines = store.export_lines(trace_id)
            if args.file:
                store.export(trace_id, args.file)
                say(f"exported {len(lines)} event(s) to {args.file}")
            else:
                sys.stdout.write("".join(line + "\n" for line in lines))
            return EXIT_OK
        if args.action == "replay":
            if args.speed < 0:
                return fail("--speed must be 0 (instant) or more", EXIT_USAGE)
            return run_async(_replay(store, trace_id, args.speed, args.max_gap))
        return fail(f"unknown action {args.action}", EXIT_USAGE)
    except BrokenPipeError:
        raise  # the reader stopped early (`| head`): main() ends quietly
    except OSError as exc:
        return fail(f"{exc.filename}: {exc.strerror}", EXIT_FAILED)
    finally:
        store.close()


def _list(store, args: argparse.Namespace) -> int:
    rows = store.list(session_id=args.session, limit=args.limit)
    if args.json:
        say(json.dumps([r.model_dump(mode="json") for r in rows], ensure_ascii=False, indent=2))
        return EXIT_OK
    if not rows:
        say(EMPTY)
        return EXIT_OK
    import time

    from core.memory.text import shorten

    for r in rows:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.started))
        status = "ok " if r.error is None else "ERR"
        say(f"{r.trace_id}  {when}  {status}  {r.session_id or '-':<12} {r.intent or '-':<11} "
              f"{r.duration_ms / 1000:6.2f}s  {shorten(r.question, 60)}")
    return EXIT_OK


def _show(store, trace_id: str, as_json: bool) -> int:
    from core.tracing.render import render_event, render_header

    detail = store.get(trace_id)
    if as_json:
        say(detail.model_dump_json(indent=2))
        return EXIT_OK
    for line in render_header(detail):
        say(line)
    for event in detail.events:
        for line in render_event(event):
            say(line)
    return EXIT_OK


async def _replay(store, trace_id: str, speed: float, max_gap: float | None) -> int:
    from core.tracing.render import render_event, render_header

    for line in render_header(store.get(trace_id)):
        say(line)
    async for event in store.replay(trace_id, speed=speed, max_gap=max_gap):
        for line in render_event(event):
            say(line, flush=True)
    return EXIT_OK
