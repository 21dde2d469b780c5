"""Bare ``paperpilot``: open the Textual app."""

from __future__ import annotations

import argparse
import sys


def run(args: argparse.Namespace) -> int:
    try:
        from paperpilot_tui.app import main as app_main
    except ModuleNotFoundError:
        print("The PaperPilot app is not built yet; try `paperpilot ask \"What is LoRA?\"`.", file=sys.stderr)
        return 1
    return app_main(config=args.config, session=args.session)
