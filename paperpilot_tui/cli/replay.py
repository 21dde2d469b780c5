"""``paperpilot replay TRACE_ID``: open the app straight into the replay of a recorded turn."""

from __future__ import annotations

import argparse

HELP = "replay a recorded turn in the app (the panes animate as recorded)"
DESCRIPTION = """\
Open the full-screen app and play back a recorded turn: the graph, trace, chat and memory panes
animate with the original timing. space pauses, + / - change speed, esc stops.
TRACE_ID may be a unique prefix; `paperpilot traces` lists them (or press F4 in the app).
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace_id", metavar="TRACE_ID", help="the trace to play (id or unique prefix)")
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """An id that names no trace is one line and exit 1, before the screen opens."""
    from paperpilot_tui.cli.common import EXIT_FAILED, fail, load_settings_or_exit

    settings = load_settings_or_exit(args)
    from core.stores import open_stores

    trace_id = open_stores(settings).traces.resolve(args.trace_id)
    if trace_id is None:
        return fail(f"no trace with id {args.trace_id} (paperpilot traces list shows them)", EXIT_FAILED)
    from paperpilot_tui.app import main as app_main

    return app_main(config=getattr(args, "config", None), replay=trace_id)
