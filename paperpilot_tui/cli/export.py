"""``paperpilot export bib [--collection NAME] [--out FILE]``: a collection's documents as BibTeX."""

from __future__ import annotations

import argparse
from pathlib import Path

from paperpilot_tui.cli.common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, fail, load_settings_or_exit, say

HELP = "write a collection's documents as BibTeX (export bib)"
DESCRIPTION = """\
Write every document of a knowledge-hub collection as a BibTeX entry: title, authors, year, venue,
DOI, arXiv id (eprint), URL, tags (keywords) and, for a PDF, its file. A document imported from a
.bib file or Zotero keeps its citation key (so `ingest refs.bib` then `export bib` gives the same
keys, titles and DOIs); any other gets authorYEARword (vaswani2017attention), unique in the file.
Without --out the BibTeX is printed; a file written is readable by you alone (0600).

exit codes: 0 written · 1 the hub could not be read or the file not written · 2 usage error
"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help=HELP, description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("format", choices=["bib"], help="what to write (bib: BibTeX)")
    p.add_argument("--collection", default="default", metavar="NAME", help="collection (default: default)")
    p.add_argument("--out", metavar="FILE", help="write here instead of printing")
    p.add_argument("--config", metavar="FILE", default=argparse.SUPPRESS, help="settings file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    settings = load_settings_or_exit(args)
    from core.errors import StoreUnreadable
    from core.hub.library.bibtex import write_bib
    from core.hub.pg import BackendError, open_store

    try:
        store = open_store(settings)
        if not store.has_collection(args.collection):
            known = ", ".join(store.collections()) or "none yet"
            return fail(f"no collection {args.collection!r} (collections: {known})", EXIT_USAGE)
        docs = store.documents(args.collection)
    except (BackendError, StoreUnreadable) as exc:
        return fail(str(exc), EXIT_FAILED)
    text = write_bib(docs)
    if not args.out:
        say(text, end="")
        return EXIT_OK
    from paperpilot_tui.transcript import write_export

    try:
        path = write_export(Path(args.out), text)
    except OSError as exc:
        return fail(f"cannot write {args.out}: {exc.strerror or exc}", EXIT_FAILED)
    say(f"wrote {path} ({len(docs)} entries from collection {args.collection!r})")
    return EXIT_OK
