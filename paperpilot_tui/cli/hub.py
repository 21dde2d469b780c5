"""``paperpilot hub serve|start|stop|status|topics|token|rm``: run and manage the bundled knowledge hub."""

from __future__ import annotations

import argparse
import json
import sys

from paperpilot_tui.cli.common import (
    LLM_CHOICES,
    EXIT_BACKEND, EXIT_FAILED, EXIT_OK, EXIT_USAGE, clean, fail, load_settings_or_exit, run_async, say,
)

HELP = "run or manage the bundled knowledge hub (MCP server)"
DESCRIPTION = """\
The knowledge hub is PaperPilot's MCP retrieval server. The agent starts it by itself over stdio;
run it yourself to serve other MCP clients (--transport http), to inspect it, or to remove documents.

`hub start` keeps a warm hub running in the background (loopback HTTP, token in hub-daemon.json,
mode 0600); ask, eval and the app then use it instead of starting their own, and fall back to the
stdio hub when it is not running. `hub stop` stops it; `hub status` says whether it runs.

`hub serve --transport http` serves other MCP clients: every request needs the bearer token that
`hub token` prints (hub-token in the data dir, mode 0600), on loopback too, since every local user
can reach 127.0.0.1. PaperPilot's own clients find it themselves for a hub this user runs here on
the same data dir; others set it as mcp.token or PAPERPILOT_HUB_TOKEN.
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hub", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    hub = p.add_subparsers(dest="hub_command", metavar="ACTION", required=True)
    s = hub.add_parser("serve", help="run the MCP server (stdio by default)")
    from core.hub.__main__ import add_serve_args  # light: argparse only

    add_serve_args(s)
    s.set_defaults(run=_serve)
    start = hub.add_parser("start", help="run the hub as a background daemon (a warm hub between commands)")
    start.add_argument("--timeout", type=float, default=120.0, metavar="S",
                       help="seconds to wait for the daemon to answer (default 120)")
    start.set_defaults(run=_start)
    stop = hub.add_parser("stop", help="stop the background hub daemon")
    stop.set_defaults(run=_stop)
    st = hub.add_parser("status", help="the daemon (running or not), collections, document and chunk counts")
    st.add_argument("--collection", metavar="NAME", help="also list this collection's documents")
    st.add_argument("--json", action="store_true", help="print one JSON object")
    st.set_defaults(run=_status)
    tp = hub.add_parser("topics", help="a collection's topics; with --name the LLM names them and the hub keeps the names")
    tp.add_argument("--collection", metavar="NAME", help="knowledge-hub collection (default from settings)")
    tp.add_argument("--name", action="store_true", help="name the topics with the LLM brain (one call)")
    tp.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    tp.add_argument("--llm", choices=LLM_CHOICES, default=argparse.SUPPRESS,
                    help="which brain names them")
    tp.set_defaults(run=_topics)
    tok = hub.add_parser("token", help="print the bearer token the HTTP hub requires")
    tok.add_argument("--rotate", action="store_true", help="replace it with a new one (running hubs switch at once)")
    tok.set_defaults(run=_token)
    w = hub.add_parser("watch", help="watch folders and index their files as they change (until Ctrl-C)")
    w.add_argument("dirs", nargs="+", metavar="DIR")
    w.add_argument("--collection", metavar="NAME", default="default", help="collection to index into (default: default)")
    w.add_argument("--no-scan", action="store_true", help="do not catch up on the folders first")
    w.set_defaults(run=_watch)
    rm = hub.add_parser("rm", help="remove a document (and its chunks) by doc_id")
    rm.add_argument("doc_id", metavar="DOC_ID")
    rm.set_defaults(run=_rm)
    _register_postgres(hub)


def _serve(args: argparse.Namespace) -> int:
    from core.hub.__main__ import run_serve

    return run_serve(args)


def _store(args: argparse.Namespace):
    settings = load_settings_or_exit(args)
    from core.hub.pg import BackendError, open_store

    try:
        return open_store(settings)  # hub.backend: the SQLite file or PostgreSQL
    except BackendError as exc:
        raise SystemExit(fail(str(exc), EXIT_FAILED)) from None


def _home(args: argparse.Namespace):
    load_settings_or_exit(args)  # a broken config fails here, as for every command
    from core import paths

    return paths.home()


def _start(args: argparse.Namespace) -> int:
    from core.hub import daemon

    home = _home(args)
    try:
        with daemon.start_lock(home, args.timeout + 60):  # several `hub start` at once start one daemon
            running, _ = daemon.read_state(daemon.state_path(home))
            if running is not None:
                print(f"hub daemon already running: pid {running.pid}, {running.url}")
            else:
                state = daemon.start(home, getattr(args, "config", None), timeout=args.timeout)
                print(f"hub daemon started: pid {state.pid}, {state.url} (token in {daemon.state_path(home)}, "
                      f"log {daemon.log_path(home)})")
            _start_warm(home)
    except RuntimeError as exc:
        return fail(str(exc), EXIT_FAILED)
    return EXIT_OK


def _start_warm(home) -> None:
    """The warm ask server (:mod:`paperpilot_tui.cli.warm`) beside the hub; ask works without it."""
    from paperpilot_tui.cli import warm

    try:
        pid = warm.start(home)
    except RuntimeError as exc:
        print(f"paperpilot: warning: no warm ask ({exc}); ask imports everything itself", file=sys.stderr)
        return
    print(f"warm ask ready: pid {pid}, {warm.socket_path(home)}")


def _stop(args: argparse.Namespace) -> int:
    from core.hub import daemon

    home = _home(args)
    _, why = daemon.read_state(daemon.state_path(home))
    if why:
        print(f"removed a stale daemon file: {why}")
    state = daemon.stop(home)
    print(f"hub daemon stopped (pid {state.pid})" if state else "hub daemon not running")
    from paperpilot_tui.cli import warm

    if (pid := warm.stop(home)) is not None:
        print(f"warm ask stopped (pid {pid})")
    return EXIT_OK


def daemon_line(home) -> str:
    """One line on the background daemon: pid, port and uptime, or that it is not running."""
    from core.hub import daemon

    state, why = daemon.read_state(daemon.state_path(home))
    if state is None:
        return "daemon: not running" + (f" (removed a stale file: {why})" if why else "") + \
            " · start it with: paperpilot hub start"
    import time

    from paperpilot_tui.cli import warm

    answers = "answering" if daemon.ping(state) not in (None, 401) else "NOT answering"
    warm_pid = warm.read_pid(home)
    return (f"daemon: running, pid {state.pid}, 127.0.0.1:{state.port}, up {_uptime(time.time() - state.started)}"
            f", {answers}; warm ask: " + (f"pid {warm_pid}" if warm_pid else "not running"))


def _uptime(seconds: float) -> str:
    m, s = divmod(int(max(seconds, 0)), 60)
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m" if h else f"{m}m{s:02d}s" if m else f"{s}s"


def _status(args: argparse.Namespace) -> int:
    store = _store(args)
    from core import paths

    names = store.collections()
    if args.collection and args.collection not in names:
        return fail(f"unknown collection {args.collection!r}", EXIT_FAILED)
    stats = {name: store.stats(name) for name in names}
    if args.json:
        say(json.dumps({
            "daemon": daemon_line(paths.home()), "database": str(store.path),
            "collections": [{"name": n, **{k: st[k] for k in ("document_count", "chunk_count", "embedded_chunks")},
                             **({"documents": [{k: d[k] for k in ("doc_id", "version", "title", "path")}
                                               for d in store.documents(n)]} if args.collection == n else {})}
                            for n, st in stats.items()]}, ensure_ascii=False, indent=2, default=str))
        return EXIT_OK
    say(daemon_line(paths.home()))
    say(f"database: {store.path}")
    if not names:
        say("no collections yet (the bundled notes are indexed when the hub first starts)")
    for name, st in stats.items():  # stored names, titles and paths: said through the terminal sanitizer
        say(f"{name}: {st['document_count']} documents, {st['chunk_count']} chunks, "
            f"{st['embedded_chunks']} embedded")
        if args.collection == name:
            for d in store.documents(name):
                say(f"  {d['doc_id']}  v{d['version']}  {clean(d['title'], multiline=False)}  "
                    f"({clean(str(d['path']), multiline=False)})")
    return EXIT_OK


def _topics(args: argparse.Namespace) -> int:
    """List the topics through the hub's tools; with --name, name them with the LLM brain first."""
    settings = load_settings_or_exit(args)
    if args.name and settings.llm.resolved_provider() == "offline":
        return fail("--name needs the LLM brain (--llm openai, or llm.provider in the settings); "
                    "with the offline brain the topics keep their keyphrase labels", EXIT_USAGE)
    return run_async(_name_and_list(settings, args.collection or settings.mcp.collection, args.name))


async def _name_and_list(settings, collection: str, name: bool) -> int:
    from core.errors import BackendUnavailable
    from core.events import Notice
    from core.scope import parse_topics
    from core.telemetry import capture
    from core.tools.hub_client import HubClient, ToolError

    notices: list = []
    try:
        brain = None
        if name:
            from core.agent import check_llm_endpoint
            from core.brains.factory import build_brain

            await check_llm_endpoint(settings)
            brain = build_brain(settings)
        async with HubClient(settings.mcp) as hub:
            res = await hub.list_topics(collection)
            found = parse_topics(res.structured)
            if brain is not None and found:
                with capture(notices.append):
                    names = await brain.name_topics(found)
                if names:
                    res = await hub.name_topics(names, collection)
    except BackendUnavailable as exc:
        return fail(str(exc), EXIT_BACKEND)
    except ToolError as exc:
        return fail(str(exc), EXIT_FAILED)
    for n in notices:
        if isinstance(n, Notice):
            say(f"paperpilot: {n.level}: {n.message}", file=sys.stderr)
    data = res.structured or {}
    listed = data.get("topics") or []
    say(f"topics of {collection} (revision {data.get('revision')}): {len(listed)}")
    for t in listed:
        shown = f"{t['name']}  [{t['label']}]" if t.get("name") else t["label"]
        say(f"  {t['topic_id']}  {shown} — {t['document_count']} document(s): {', '.join(t['keyphrases'][:5])}")
    if brain is not None:
        namer = brain.brain_for("name_topics") if hasattr(brain, "brain_for") else brain  # not the whole mix
        say(f"{sum(1 for t in listed if t.get('name'))} of {len(listed)} topic(s) named by {namer.name}")
    return EXIT_OK


def _token(args: argparse.Namespace) -> int:
    from core.hub import auth

    home = _home(args)
    try:
        token = auth.rotate_token(home) if args.rotate else auth.ensure_token(home)
    except (OSError, auth.TokenFileError) as exc:
        return fail(str(exc), EXIT_FAILED)
    print(token)
    print(f"(in {auth.token_path(home)}; clients set mcp.token or PAPERPILOT_HUB_TOKEN)", file=sys.stderr)
    return EXIT_OK


def _watch(args: argparse.Namespace) -> int:
    """Index the folders' files as they are created, changed, moved or deleted, until interrupted."""
    from pathlib import Path

    from core.hub.ingest import valid_collection

    if not valid_collection(args.collection):
        return fail(f"invalid collection name {args.collection!r}", EXIT_FAILED)
    missing = [d for d in args.dirs if not Path(d).is_dir()]
    if missing:
        return fail(f"not a folder: {', '.join(missing)}", EXIT_FAILED)
    settings = load_settings_or_exit(args)
    store = _store(args)
    import time

    from core.hub.watch import Watcher

    def report(path: Path, status: str) -> None:
        say(f"{time.strftime('%H:%M:%S')} {status} {clean(str(path), multiline=False)}", flush=True)

    watcher = Watcher(store, [(d, args.collection) for d in args.dirs], debounce=settings.hub.debounce,
                      keep_versions=settings.hub.keep_versions, report=report).start(scan=not args.no_scan)
    say(f"watching {', '.join(str(d) for d, _ in watcher.dirs)} → collection {args.collection!r} "
        "(Ctrl-C to stop)", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop()
    return EXIT_OK


def _rm(args: argparse.Namespace) -> int:
    store = _store(args)
    if not store.delete_document(args.doc_id):
        return fail(f"no document with doc_id {args.doc_id!r} (see: paperpilot hub status --collection NAME)",
                    EXIT_FAILED)
    print(f"removed {args.doc_id}")
    return EXIT_OK


# -- PostgreSQL: `hub migrate --to postgres`, `hub pg start|stop|status` ------------------------------

def _register_postgres(hub: argparse._SubParsersAction) -> None:
    mig = hub.add_parser("migrate", help="copy this hub's SQLite index into PostgreSQL (re-runnable)",
                         description="Copy every collection, document, chunk, vector and meta key of the SQLite hub "
                                     "(paths.hub_db) into PostgreSQL. Documents already copied unchanged are skipped, "
                                     "so an interrupted copy can be run again. Then set hub.backend: postgres.")
    mig.add_argument("--to", choices=["postgres"], required=True, help="the target backend")
    mig.add_argument("--dsn", metavar="DSN", help="target database (default: hub.dsn, else the embedded server)")
    mig.add_argument("--from", dest="source", metavar="FILE", help="SQLite hub file (default: paths.hub_db)")
    mig.set_defaults(run=_migrate)
    pg = hub.add_parser("pg", help="the embedded PostgreSQL server (hub.backend: postgres with no hub.dsn)")
    pg.add_argument("pg_command", choices=["start", "stop", "status"], metavar="start|stop|status")
    pg.set_defaults(run=_pg)


def _migrate(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit(args)
    from pathlib import Path

    from core.hub.pg import BackendError, open_store

    source = Path(args.source).expanduser() if args.source else settings.paths.resolve(settings.paths.hub_db)
    if not source.is_file():
        return fail(f"no SQLite hub at {source} (nothing to migrate)", EXIT_FAILED)
    settings.hub.backend = "postgres"
    if args.dsn:
        settings.hub.dsn = args.dsn
    try:
        dst = open_store(settings)
    except BackendError as exc:
        return fail(str(exc), EXIT_FAILED)
    from core.hub.pg.transfer import copy_hub
    from core.hub.store import HubStore

    src = HubStore(source)
    print(f"migrating {source} -> {dst.path}")
    report = copy_hub(src, dst, progress=_progress_printer())
    print(f"done in {report.seconds:.1f} s: {len(report.copied)} documents copied ({report.chunks} chunks, "
          f"{report.vectors} vectors), {len(report.skipped)} already there, {report.meta} meta keys"
          + (f"; {len(report.only_in_target)} documents only in postgres left as they are" if report.only_in_target
             else ""))
    for name in dst.collections():
        st = dst.stats(name)
        print(f"  {name}: {st['document_count']} documents, {st['chunk_count']} chunks, {st['embedded_chunks']} embedded")
    dsn_hint = f"  dsn: {dst.path}\n" if args.dsn or settings.hub.dsn else ""
    print("use it: in settings.yaml\n  hub:\n    backend: postgres\n" + dsn_hint
          + "(or PAPERPILOT_HUB_BACKEND=postgres); `paperpilot hub stop` first if a hub daemon runs")
    return EXIT_OK


def _progress_printer():
    import time

    tty = sys.stdout.isatty()
    last = [0.0]

    def show(done: int, total: int, report) -> None:
        now = time.monotonic()
        if done != total and now - last[0] < (0.2 if tty else 2.0):
            return
        last[0] = now
        line = (f"  {done}/{total} documents, {report.chunks} chunks copied, {len(report.skipped)} unchanged")
        print(("\r" + line) if tty else line, end="" if tty and done != total else "\n", flush=True)

    return show


def _pg(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit(args)
    from core.hub.pg.embedded import Cluster, EmbeddedError

    cluster = Cluster.for_home(settings.paths.home_dir())
    try:
        if args.pg_command == "start":
            running = cluster.running_pid()
            dsn = cluster.ensure_running()
            pid = cluster.running_pid()
            print(f"embedded postgres {'already running' if running else 'started'}: pid {pid}, data {cluster.pgdata}")
            print(f"dsn: {dsn}")
            if settings.hub.backend != "postgres":
                print("the hub uses it once hub.backend is postgres (settings.yaml, or PAPERPILOT_HUB_BACKEND=postgres)")
        elif args.pg_command == "stop":
            print("embedded postgres stopped" if cluster.stop() else "embedded postgres not running")
        else:
            pid = cluster.running_pid()
            print(f"embedded postgres: {'running, pid ' + str(pid) if pid else 'not running'}, data {cluster.pgdata}"
                  + (f"\ndsn: {cluster.dsn()}" if pid else ""))
            from core.hub.pg.store import redact

            print(f"hub.backend: {settings.hub.backend}"
                  + (f", hub.dsn: {redact(settings.hub.dsn)}" if settings.hub.dsn else ""))
    except EmbeddedError as exc:
        return fail(str(exc), EXIT_FAILED)
    return EXIT_OK
