"""Bare ``paperpilot`` (and ``paperpilot --session ID``, ``--continue``, ``--collection NAME``): open the Textual app."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from paperpilot_tui.app import main as app_main

    return app_main(config=args.config, session=args.session, llm=getattr(args, "llm", None),
                    offline=getattr(args, "offline", False), collection=getattr(args, "app_collection", None),
                    resume_last=getattr(args, "resume_last", False))
