"""The ``paperpilot`` command: the app by default, subcommands for headless work.

Each subcommand lives in its own module exposing ``register(subparsers)`` and ``run(args) -> int``.
Modules are imported for ``--help``, so they must stay light: heavy imports go inside ``run``.
Exit codes: 0 ok, 1 a command failed, 2 usage or config error, 3 a backend is unreachable.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
import warnings

from paperpilot_tui.cli.common import LLM_CHOICES

# Subcommand modules under paperpilot_tui.cli, in --help order.
COMMANDS = ("ask", "research", "ingest", "export", "hub", "sessions", "memory", "traces", "replay", "serve", "train", "eval")

DESCRIPTION = """\
PaperPilot — ask questions about AI/ML papers and watch an agent answer them.

Run with no command to open the full-screen app. The agent routes each question by intent,
runs one of four strategies (simple, multi-hop plan-and-execute, comparative ReWOO,
exploratory ReAct) over a knowledge hub reached through MCP, critiques its own draft,
retries with feedback and remembers facts across sessions. Works offline by default;
set OPENAI_API_KEY / OPENAI_BASE_URL to let an LLM drive the same graph (--offline keeps it local).
"""

EPILOG = """\
examples:
  paperpilot                                 open the app
  paperpilot --session s1                    resume a session in the app
  paperpilot --continue                      reopen the last session you used (setting: tui.resume: last)
  paperpilot --collection mine               the app, answering from the collection "mine"
  paperpilot --llm openai                    the app with the LLM brain (OPENAI_BASE_URL, OPENAI_API_KEY)
  paperpilot --offline ingest papers/        no network at all, even with OPENAI_API_KEY set
  paperpilot ask "What rank does LoRA use by default?"
  paperpilot ask --json --session s1 "And how much memory does it save?"
  paperpilot research --no-clarify --out review.md "Parameter-efficient fine-tuning and alignment"
  paperpilot ingest paper.pdf notes/ --collection mine
  paperpilot ingest refs.bib                 a BibTeX library (zotero:~/Zotero/zotero.sqlite for Zotero)
  paperpilot export bib --out refs.bib       the collection's documents as BibTeX

data lives in $PAPERPILOT_HOME (default: your platform's data dir); settings in
~/.config/paperpilot/settings.yaml or --config FILE; only the keys you set change (every key and
default: config/settings.yaml in the source, or the models in core/config.py).

global options (--config, --offline, --llm, --json) may come before or after the command.
exit codes: 0 ok · 1 a command failed · 2 usage or config error · 3 a backend (LLM, hub) is unreachable
"""


def add_common(p: argparse.ArgumentParser) -> None:
    """Options every command accepts."""
    p.add_argument("--config", metavar="FILE", help="settings file (overrides the user settings file)")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="paperpilot", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_common(parser)
    parser.add_argument("--session", metavar="ID", help="open the app on this session")
    parser.add_argument("--continue", action="store_true", dest="resume_last",
                        help="open the app on the session you used last (tui.resume: last does it on every "
                             "launch); with none yet, a new session, and the chat says so")
    parser.add_argument("--collection", metavar="NAME", dest="app_collection",
                        help="open the app on this knowledge-hub collection (default: mcp.collection); "
                             "alt+c in the app lists the collections and switches")
    parser.add_argument("--llm", choices=LLM_CHOICES,
                        help="which brain answers, in the app and every command (default: llm.provider, "
                             "auto = openai only when an API key is set)")
    parser.add_argument("--offline", action="store_true",
                        help="keep everything local whatever --llm, the settings or OPENAI_API_KEY say: the "
                             "offline brain, offline document summaries, no model downloads (an MCP server "
                             "you configured at a remote URL is still asked)")
    parser.add_argument("--json", action="store_true",
                        help="print data as JSON (for commands that print data; also accepted after the command)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"paperpilot_tui.cli.{name}").register(sub)
    _spread_globals(parser)
    return parser


def _spread_globals(parser: argparse.ArgumentParser) -> None:
    """Let ``--config``, ``--offline`` and ``--llm`` come before or after the command, at any depth
    (``paperpilot sessions list --config F``), and ``--json`` after any command that prints data.

    Each subcommand parser gets the option unless it defines its own; the default is SUPPRESS, so a
    value given before the command is not reset by a subparser that did not see it.
    """
    specs = {
        "--config": dict(metavar="FILE", help="settings file (overrides the user settings file)"),
        "--offline": dict(action="store_true", help="keep everything local (see paperpilot --help)"),
        "--llm": dict(choices=LLM_CHOICES, help="which brain answers (see paperpilot --help)"),
    }
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for child in dict.fromkeys(action.choices.values()):  # aliases share one parser
            for flag, spec in specs.items():
                if flag not in child._option_string_actions:
                    child.add_argument(flag, default=argparse.SUPPRESS, **spec)
            for flag in (*specs, "--json"):  # a command's own option keeps a value given before it
                if flag in child._option_string_actions:
                    child._option_string_actions[flag].default = argparse.SUPPRESS
            _spread_globals(child)


def main(argv: list[str] | None = None) -> int:
    from core.text_safety import SafeLastResort

    logging.lastResort = SafeLastResort()  # a warning quoting stored text never drives the terminal
    if not os.environ.get("PAPERPILOT_DEBUG"):
        # Library deprecation chatter is not for users; PAPERPILOT_DEBUG=1 shows it.
        warnings.simplefilter("ignore")
    from core.errors import StoreUnreadable  # standard library only: light
    from core.onnx_runtime import disable_telemetry

    disable_telemetry()  # before anything imports onnxruntime; children (hub, daemon, app) inherit it

    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    for n, arg in enumerate(argv, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:  # undecodable bytes from the shell arrive as surrogates
            print(f"paperpilot: argument {n} is not valid UTF-8 text; check the terminal's encoding", file=sys.stderr)
            return 2
    args = parser.parse_args(argv)
    if args.offline:  # wins over --llm anywhere on the line, the settings and the environment
        args.llm = "offline"
        os.environ["HF_HUB_OFFLINE"] = os.environ["TRANSFORMERS_OFFLINE"] = "1"
    try:
        if args.command is None:
            from paperpilot_tui.cli import app_launcher

            return app_launcher.run(args)
        _warn_if_data_dir_open()  # before anything is handed to the warm server
        if args.command == "ask" and not os.environ.get("PAPERPILOT_WARM"):
            from core.paths import home
            from paperpilot_tui.cli.warm import run_warm

            code = run_warm(argv, home())  # in a child of the warm server when `hub start` left one up
            if code is not None:
                return code
        code = int(args.run(args) or 0)
        sys.stdout.flush()  # a pipe buffers: a reader that left shows up here, not at exit
        return code
    except StoreUnreadable as exc:  # a corrupt data file, a path not ours: its name and what to do, never a traceback
        print(f"paperpilot: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # e.g. `paperpilot sessions list | head`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _warn_if_data_dir_open() -> None:
    """One stderr line when the data directory can be read by other users (issue: secrets at rest)."""
    if os.environ.get("PAPERPILOT_WARM"):
        return  # a child of the warm server: the caller has said it
    from core.paths import too_open

    if warning := too_open():
        print(f"paperpilot: warning: {warning}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
