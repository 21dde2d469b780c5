"""``paperpilot research``: a deep-research review, headlessly (clarify → outline → search → review)."""

from __future__ import annotations

import argparse
import os

from paperpilot_tui.cli.common import (EXIT_BACKEND, EXIT_FAILED, EXIT_OK, EXIT_USAGE, LLM_CHOICES, fail,
                                       load_settings_or_exit, run_async)

HELP = "write a cited literature review of a topic from the knowledge hub"
DESCRIPTION = """\
Deep research: the agent asks clarifying questions (scope, focus, time range, depth), proposes an
outline of knowledge points, searches every point in parallel through the knowledge hub and writes
a cited review (one section per point, research gaps, conclusion). Progress goes to stderr.

  paperpilot research "TOPIC"                      print the questions and the session id, then stop
  paperpilot research --session ID --answers a.json   answer them ({"1": "...", "2": "..."}; {} skips)
  paperpilot research --no-clarify --out r.md "TOPIC"   straight to the review with the proposed outline
  paperpilot research --no-clarify --print-outline "TOPIC" > o.json   stop at the outline, as JSON
  paperpilot research --outline o.json "TOPIC"     search and review from an edited outline

A session resumes where it stopped (--session ID), also in a new process.
The topic and each answer have the question's size limit (limits.question_chars); an answers or
outline file must be UTF-8 JSON, at most limits.import_file_bytes, nested at most 32 levels.
exit codes: 0 ok (also when it stops for answers) · 1 the run failed · 2 usage error, an input over
its limit, or a malformed answers/outline file · 3 LLM endpoint or MCP server unreachable
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("research", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("topic", nargs="?", default=None, help="the research topic (quote it); optional with --session")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--answers", metavar="FILE", help='answers to the clarifying questions: JSON {"1": "...", ...}')
    how.add_argument("--no-clarify", action="store_true", help="skip the clarifying questions")
    p.add_argument("--outline", metavar="FILE", help="search and review from this (edited) outline JSON")
    p.add_argument("--print-outline", action="store_true", help="stop at the proposed outline and print it as JSON")
    p.add_argument("--out", metavar="FILE", help="write the review Markdown here instead of printing it")
    p.add_argument("--json", action="store_true", help="print one JSON object (the review, or what the run waits on)")
    p.add_argument("--collection", metavar="NAME", help="knowledge-hub collection (default from settings)")
    p.add_argument("--session", metavar="ID", help="resume (or start) this research session")
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    p.add_argument("--llm", choices=LLM_CHOICES, default=argparse.SUPPRESS,
                   help="which brain writes")
    p.set_defaults(run=run)


def _read_json(path: str, what: str, limits) -> object:
    """A user's JSON file, bounded like every input: its size (``limits.import_file_bytes``), its
    encoding (UTF-8) and its nesting (:data:`core.limits.MAX_JSON_DEPTH`), each a one-line ``ValueError``."""
    from core.limits import LimitExceeded, check_bytes, decode_utf8, parse_json

    where = f"{what} file {path}"
    limit = limits.import_file_bytes
    try:
        with open(path, "rb") as fh:
            check_bytes(os.fstat(fh.fileno()).st_size, limit, where, "import_file_bytes")
            data = fh.read(limit + 1)  # a file that grows (or a pipe) is cut here and refused below
        check_bytes(len(data), limit, where, "import_file_bytes")
    except OSError as exc:
        raise ValueError(f"{where}: {exc.strerror or exc}") from None
    except LimitExceeded as exc:
        raise ValueError(str(exc)) from None
    return parse_json(decode_utf8(data, where), where)


def read_answers(path: str, limits) -> dict[int, str]:
    """``{question number: answer}`` from ``path``; each answer at most ``limits.question_chars``."""
    from core.limits import LimitExceeded, check_chars

    data = _read_json(path, "answers", limits)
    if not isinstance(data, dict):
        raise ValueError(f'answers file {path}: expected a JSON object like {{"1": "..."}}')
    out: dict[int, str] = {}
    for key, value in data.items():
        if not str(key).strip().isdigit():
            raise ValueError(f"answers file {path}: key {key!r:.40} is not a question number")
        if not isinstance(value, str):
            raise ValueError(f"answers file {path}: answer {key} is not a string")
        try:
            check_chars(value, limits.question_chars, f"answers file {path}: answer {key}", "question_chars")
        except LimitExceeded as exc:
            raise ValueError(str(exc)) from None
        out[int(key)] = value
    return out


def read_outline(path: str, limits):
    from core.research.outline import OutlineError, load_outline

    try:
        return load_outline(_read_json(path, "outline", limits))
    except OutlineError as exc:
        raise ValueError(f"outline file {path}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit(args)
    if args.collection:
        settings.mcp.collection = args.collection
    if not (args.topic or "").strip() and not args.session:
        return fail("give a topic, or --session ID to resume a research session", EXIT_USAGE)
    if args.print_outline and args.outline:
        return fail("--print-outline and --outline cannot be used together", EXIT_USAGE)
    from core.limits import check_chars

    try:
        check_chars(args.topic or "", settings.limits.question_chars, "the topic", "question_chars")
        answers = read_answers(args.answers, settings.limits) if args.answers else None
        outline = read_outline(args.outline, settings.limits) if args.outline else None
    except ValueError as exc:  # LimitExceeded included
        return fail(str(exc), EXIT_USAGE)
    return run_async(_research(settings, args, answers, outline))


async def _research(settings, args: argparse.Namespace, answers, outline) -> int:
    from core.agent import open_agent
    from core.config import ConfigError
    from core.errors import BackendUnavailable
    from paperpilot_tui.cli.research_render import Printer

    printer = Printer(args)
    confirm = not args.print_outline
    try:
        async with open_agent(settings) as agent:
            async for event in agent.run_research(args.topic, args.session, clarify=not args.no_clarify,
                                                  answers=answers, outline=outline, confirm=confirm,
                                                  collection=args.collection):
                printer.update(event)
    except BackendUnavailable as exc:
        return fail(str(exc), EXIT_BACKEND)
    except ConfigError as exc:
        return fail(f"config error: {exc}", EXIT_USAGE)
    if printer.failed is not None:
        return fail(printer.failed.error, EXIT_BACKEND if printer.failed.category == "backend" else
                    EXIT_USAGE if printer.failed.category == "config" else EXIT_FAILED)
    try:
        printer.finish()
    except OSError as exc:
        return fail(f"cannot write {args.out}: {exc.strerror or exc}", EXIT_FAILED)
    return EXIT_OK if printer.ended else fail("the research run produced no result", EXIT_FAILED)

