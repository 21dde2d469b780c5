"""``paperpilot serve``: the app in a web browser, through textual-serve.

Every browser tab gets its own app process, started with this command's global flags (``--config``,
``--llm``/``--offline``, ``--session``). Loopback only by default, and every request needs a token,
loopback included: other local users can connect to 127.0.0.1 too. A fresh random one is made per
run unless ``--token`` is given, and the URL that carries it is printed. The web part
(aiohttp, textual-serve) is imported inside ``run`` so ``--help`` stays light.
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import shlex
import sys

HELP = "open the app in a web browser (textual-serve); every request needs the token in the printed URL"
DESCRIPTION = """\
Serve the full-screen app over HTTP so a web browser can run it: each tab starts its own app,
with the same flags as `paperpilot` (put --config, --llm, --offline and --session before `serve`).
Listens on 127.0.0.1 by default. Every request must carry a token, on loopback too (other users
of this machine can reach 127.0.0.1): give one with --token or let serve make a fresh one; it
prints the URL to open (?token=...), and the browser keeps it in a cookie for the rest of the visit.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    p.add_argument("--token", metavar="TOKEN",
                   help="require this token (default: a fresh random one each run)")
    p.add_argument("--public-url", metavar="URL",
                   help="the address browsers use, behind a proxy (default: the one each request came to)")
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    p.set_defaults(run=run)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1): nobody else can connect."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:  # a host name: it may resolve to anything
        return False


def app_command(args: argparse.Namespace) -> str:
    """The shell command textual-serve starts per browser tab: this interpreter running the app
    with the user's global flags (a relative --config is made absolute)."""
    argv = [sys.executable, "-m", "paperpilot_tui.cli.main"]
    if getattr(args, "config", None):
        argv += ["--config", os.path.abspath(args.config)]
    if getattr(args, "offline", False):
        argv.append("--offline")
    elif getattr(args, "llm", None):
        argv += ["--llm", args.llm]
    if getattr(args, "session", None):
        argv += ["--session", args.session]
    return shlex.join(argv)


def choose_token(given: str | None) -> str:
    """The token requests must carry: the one given, else a fresh random one (~190 bits)."""
    import secrets

    return secrets.token_urlsafe(24) if given is None else given


def run(args: argparse.Namespace) -> int:
    from paperpilot_tui.cli.common import EXIT_USAGE, fail

    if not 0 < args.port < 65536:
        return fail(f"--port {args.port} is not a port number (1-65535)", EXIT_USAGE)
    if args.token is not None and not args.token.strip():
        return fail("--token is empty; give a non-empty token or leave --token out", EXIT_USAGE)
    token = choose_token(args.token)
    from paperpilot_tui.web import serve_app  # aiohttp and textual-serve: only now

    return serve_app(app_command(args), args.host, args.port, token=token, public_url=args.public_url)
