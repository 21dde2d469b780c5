"""``paperpilot hub serve|status|rm``: run and manage the bundled knowledge hub."""

from __future__ import annotations

import argparse

from paperpilot_tui.cli.common import EXIT_FAILED, EXIT_OK, fail, load_settings_or_exit

HELP = "run or manage the bundled knowledge hub (MCP server)"
DESCRIPTION = """\
The knowledge hub is PaperPilot's MCP retrieval server. The agent starts it by itself over stdio;
run it yourself to serve other MCP clients (--transport http), to inspect it, or to remove documents.
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
    st = hub.add_parser("status", help="collections, document and chunk counts, database path")
    st.add_argument("--collection", metavar="NAME", help="also list this collection's documents")
    st.set_defaults(run=_status)
    rm = hub.add_parser("rm", help="remove a document (and its chunks) by doc_id")
    rm.add_argument("doc_id", metavar="DOC_ID")
    rm.set_defaults(run=_rm)


def _serve(args: argparse.Namespace) -> int:
    from core.hub.__main__ import run_serve

    return run_serve(args)


def _store(args: argparse.Namespace):
    settings = load_settings_or_exit(args)
    from core.hub.store import HubStore

    return HubStore(settings.paths.resolve(settings.paths.hub_db))


def _status(args: argparse.Namespace) -> int:
    store = _store(args)
    print(f"database: {store.path}")
    names = store.collections()
    if not names:
        print("no collections yet (the bundled notes are indexed when the hub first starts)")
    for name in names:
        st = store.stats(name)
        print(f"{name}: {st['document_count']} documents, {st['chunk_count']} chunks, "
              f"{st['embedded_chunks']} embedded")
        if args.collection == name:
            for d in store.documents(name):
                print(f"  {d['doc_id']}  v{d['version']}  {d['title']}  ({d['path']})")
    if args.collection and args.collection not in names:
        return fail(f"unknown collection {args.collection!r}", EXIT_FAILED)
    return EXIT_OK


def _rm(args: argparse.Namespace) -> int:
    store = _store(args)
    if not store.delete_document(args.doc_id):
        return fail(f"no document with doc_id {args.doc_id!r} (see: paperpilot hub status --collection NAME)",
                    EXIT_FAILED)
    print(f"removed {args.doc_id}")
    return EXIT_OK
