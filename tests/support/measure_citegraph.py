"""Measure the citation graph on a folder of papers: how many reference entries were parsed, how
many in-library edges were found, and each edge (for a hand check).

    python -m tests.support.measure_citegraph [--dsn DSN] DOCS [MORE_DOCS ...]

Ingests the files into a fresh hub (lexical only: the graph needs no vectors) in one collection
(a temporary SQLite file, or with ``--dsn`` an empty PostgreSQL database) and prints the counts, then one edge a line: confidence, what the match rests on, citing → cited, the
reference entry and the citing sentence.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from core.hub import citegraph
    from core.hub.ingest import Ingestor
    from core.hub.store import HubStore

    parser = argparse.ArgumentParser(prog="python -m tests.support.measure_citegraph")
    parser.add_argument("--dsn", help="an empty PostgreSQL database to build the hub in (default: SQLite)")
    parser.add_argument("paths", nargs="+", metavar="DOCS")
    args = parser.parse_args(argv)
    paths = args.paths
    if args.dsn:
        from core.hub.pg.store import PgStore

        store = PgStore(args.dsn)
    else:
        store = HubStore(Path(tempfile.mkdtemp(prefix="citegraph-")) / "hub.sqlite3")
    report = Ingestor(store, embed=False).ingest(paths, "library")
    t0 = time.perf_counter()
    store.conn().execute("DELETE FROM citation_sets")  # time a build from scratch (autocommit on PostgreSQL)
    parsed = citegraph.current(store, "library")
    took = time.perf_counter() - t0
    docs = {d["doc_id"]: d for d in store.documents("library")}
    edges = citegraph.edges_of(store, "library")
    print(f"{len(docs)} documents ({len(report.failed)} failed), {parsed} reference entries parsed, "
          f"{len(edges)} in-library edge(s), graph built in {took:.2f} s")
    for e in edges:
        a, b = docs[e.citing], docs[e.cited]
        print(f"- {e.confidence:.2f} {e.how}: {a['title']} ({a.get('year') or '?'}) → {b['title']} "
              f"({b.get('year') or '?'})\n    reference: {e.reference}\n    sentence: {e.sentence or '(none found)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
