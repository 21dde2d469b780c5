"""SQLite and PostgreSQL hubs side by side (``python bench/hub.py --only backends --backend sqlite,postgres``).

The same synthetic collection is built in each backend: documents of 100 chunks, each chunk 60
words drawn from the bundled notes' vocabulary with the words' frequencies in those notes (common
words are common, as in real text), and a random unit vector per chunk (no embedding time). Then:

- build: SQLite inserts rows and FTS5 in one transaction, then the searcher loads the dense matrix
  and builds the BM25 index (what a hub does on its first query); PostgreSQL loads with COPY, then
  builds the GIN (full text) and HNSW (vectors, m=16, ef_construction=64) indexes.
- query p50/p95: hybrid search, top_k 5, query vectors precomputed (embedding costs the same on both);
  p95 of each leg alone beside it.
- ingest chunks/s: 10 more documents of 100 chunks with vectors written through the store API
  (``put_document``, what ``paperpilot ingest`` does after embedding), into the built collection.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
CHUNKS_PER_DOC = 100
WORDS_PER_CHUNK = 60


def word_frequencies() -> tuple[list[str], np.ndarray]:
    counts: Counter[str] = Counter()
    for f in (REPO / "core" / "hub" / "corpus").glob("*.md"):
        counts.update(re.findall(r"[a-z][a-z0-9-]{1,}", f.read_text(encoding="utf-8").lower()))
    words = sorted(counts)
    p = np.array([counts[w] for w in words], dtype=np.float64)
    return words, p / p.sum()


def synthetic_docs(n: int, seed: int = 0, prefix: str = "syn") -> Iterator[tuple[str, str, list[str], np.ndarray]]:
    """(doc_id, title, chunk texts, unit vectors) for n chunks, 100 a document."""
    words, p = word_frequencies()
    vocab = np.array(words, dtype=object)
    rng = np.random.default_rng(seed)
    for d, vecs in enumerate(synthetic_vectors(n, seed)):
        idx = rng.choice(len(words), size=(CHUNKS_PER_DOC, WORDS_PER_CHUNK), p=p)
        texts = [" ".join(vocab[row]) + "." for row in idx]
        yield f"{prefix}{d:06d}", f"Synthetic {d}", texts, vecs


def synthetic_vectors(n: int, seed: int = 0) -> Iterator[np.ndarray]:
    """The unit vectors of :func:`synthetic_docs`, a document's at a time (without making the texts)."""
    rng = np.random.default_rng(seed + 1)
    for _ in range(n // CHUNKS_PER_DOC):
        vecs = rng.standard_normal((CHUNKS_PER_DOC, 384)).astype(np.float32)
        yield vecs / np.linalg.norm(vecs, axis=1, keepdims=True)


def crumb(title: str, i: int) -> str:
    return f"{title} > S{i // 10}"


# -- building ------------------------------------------------------------------------------------

def build_sqlite(path: Path, n: int) -> dict[str, float]:
    from core.hub.store import EMBED_MODEL, HubStore

    t = time.perf_counter()
    store = HubStore(path)
    with store.write() as db:
        store.ensure_collection(db, "bench")
        for doc_id, title, texts, vecs in synthetic_docs(n):
            db.execute("INSERT INTO documents(doc_id, collection, path, doc_type, file_hash, version, title,"
                       " created_at, updated_at) VALUES(?, 'bench', ?, 'markdown', ?, 1, ?, 0, 0)",
                       (doc_id, f"/syn/{doc_id}.md", doc_id, title))
            for i, text in enumerate(texts):
                cur = db.execute("INSERT INTO chunks(chunk_id, doc_id, collection, position, section_path, breadcrumb,"
                                 " page, text) VALUES(?, ?, 'bench', ?, '[]', ?, NULL, ?)",
                                 (f"{doc_id}_{i:04d}", doc_id, i, crumb(title, i), text))
                db.execute("INSERT INTO chunks_fts(rowid, collection, title, breadcrumb, text) VALUES(?, 'bench', ?, ?, ?)",
                           (cur.lastrowid, title, crumb(title, i), text))
                db.execute("INSERT INTO embeddings(chunk_rowid, model, dim, vector) VALUES(?, ?, 384, ?)",
                           (cur.lastrowid, EMBED_MODEL, vecs[i].tobytes()))
        store.bump(db, "bench")
    store.close()
    return {"load": time.perf_counter() - t}


def build_postgres(dsn: str, n: int, workers: int = 1, work_mem: str = "3GB") -> dict[str, float]:
    """COPY the collection in with the full-text and vector indexes dropped, then build them."""
    from core.hub.pg.migrations import MIGRATIONS
    from core.hub.pg.store import PgStore, lexical_text
    from core.hub.store import EMBED_MODEL

    store = PgStore(dsn)
    db = store.conn()
    ddl = {name: sql for sql, name in re.findall(r"(CREATE INDEX (\w+) ON [^;]+);", MIGRATIONS[0][2])}
    t = time.perf_counter()
    db.execute("DROP INDEX IF EXISTS chunks_tsv")
    db.execute("DROP INDEX IF EXISTS embeddings_hnsw")
    db.execute("INSERT INTO collections(name, created_at) VALUES('bench', 0) ON CONFLICT DO NOTHING")
    db.execute("CREATE UNLOGGED TABLE stage(id BIGINT, chunk_id TEXT, doc_id TEXT, position INT, breadcrumb TEXT,"
               " text TEXT, lex TEXT)")
    rid, documents = 0, []
    with db.cursor() as cur, cur.copy("COPY stage FROM STDIN") as stage:
        for doc_id, title, texts, _ in synthetic_docs(n):
            path = f"/syn/{doc_id}.md"
            documents.append((doc_id, "bench", path, "markdown", doc_id, 1, title, 0, 0))
            for i, text in enumerate(texts):
                rid += 1
                stage.write_row((rid, f"{doc_id}_{i:04d}", doc_id, i, crumb(title, i), text,
                                 lexical_text(title, path, crumb(title, i), text)))
    with db.cursor() as cur, cur.copy("COPY documents(doc_id, collection, path, doc_type, file_hash, version, title,"
                                      " created_at, updated_at) FROM STDIN") as docs:
        for row in documents:
            docs.write_row(row)
    db.execute("INSERT INTO chunks(id, chunk_id, doc_id, collection, position, section_path, breadcrumb, page, text, tsv)"
               " SELECT id, chunk_id, doc_id, 'bench', position, '[]', breadcrumb, NULL, text,"
               " to_tsvector('english', lex) FROM stage")
    db.execute("DROP TABLE stage")
    db.execute("SELECT setval(pg_get_serial_sequence('chunks', 'id'), (SELECT max(id) FROM chunks))")
    rid = 0
    with db.cursor() as cur, cur.copy("COPY embeddings(chunk_rowid, collection, model, vector)"
                                      " FROM STDIN WITH (FORMAT BINARY)") as copy:
        copy.set_types(["int8", "text", "text", "vector"])
        for vecs in synthetic_vectors(n):
            for v in vecs:
                rid += 1
                copy.write_row((rid, "bench", EMBED_MODEL, v))
    out = {"load": time.perf_counter() - t}
    t = time.perf_counter()
    db.execute(ddl["chunks_tsv"])
    out["gin"] = time.perf_counter() - t
    t = time.perf_counter()
    db.execute(f"SET maintenance_work_mem = '{work_mem}'")
    db.execute(f"SET max_parallel_maintenance_workers = {workers}")
    db.execute(ddl["embeddings_hnsw"])
    out["hnsw"] = time.perf_counter() - t
    db.execute("UPDATE collections SET revision = revision + 1 WHERE name = 'bench'")
    db.execute("VACUUM ANALYZE chunks")
    db.execute("VACUUM ANALYZE embeddings")
    store.close()
    return out


# -- measuring -----------------------------------------------------------------------------------

def measure(searcher, queries: list[str], n_queries: int) -> dict[str, float]:
    total, lex, den = [], [], []
    for i in range(n_queries + 3):
        q = queries[i % len(queries)]
        t0 = time.perf_counter()
        searcher.search("bench", q, 5)
        t1 = time.perf_counter()
        searcher.lexical("bench", q)
        t2 = time.perf_counter()
        searcher.dense("bench", q)
        t3 = time.perf_counter()
        if i >= 3:  # warm-up
            total.append((t1 - t0) * 1e3)
            lex.append((t2 - t1) * 1e3)
            den.append((t3 - t2) * 1e3)
    pct = lambda xs, p: float(np.percentile(np.asarray(xs), p))  # noqa: E731
    return {"p50": pct(total, 50), "p95": pct(total, 95), "lex95": pct(lex, 95), "dense95": pct(den, 95)}


def ingest_rate(store, docs: int = 10) -> float:
    from core.hub.store import NewChunk

    batch = list(synthetic_docs(docs * CHUNKS_PER_DOC, seed=7, prefix="new"))
    t = time.perf_counter()
    for doc_id, title, texts, vecs in batch:
        store.put_document({"doc_id": doc_id, "collection": "bench", "path": f"/new/{doc_id}.md",
                            "doc_type": "markdown", "file_hash": doc_id, "title": title},
                           [NewChunk(section_path=[title, f"S{i // 10}"], text=t_, vector=v)
                            for i, (t_, v) in enumerate(zip(texts, vecs))])
    return docs * CHUNKS_PER_DOC / (time.perf_counter() - t)


def bench_backends(sizes: list[int], backends: list[str], queries: list[str], qvecs: dict, n_queries: int,
                   tmp: Path, dsn: str | None = None) -> None:
    from core.hub.search import Searcher
    from core.hub.store import HubStore

    print("\n## Backends side by side: hybrid query latency (top_k=5) and ingest, same synthetic collection")
    print("60 words a chunk drawn with the bundled notes' word frequencies; random unit vectors; query vectors"
          " precomputed")
    print(f"{'backend':>9} {'chunks':>8} {'load s':>7} {'index s':>14} {'p50 ms':>7} {'p95 ms':>7} {'p95 lex':>8}"
          f" {'p95 dense':>9} {'ingest ch/s':>11}")
    for n in sizes:
        for backend in backends:
            if backend == "sqlite":
                path = tmp / f"backends-{n}.sqlite3"
                build = build_sqlite(path, n)
                searcher = Searcher(HubStore(path), embed_query=lambda q: qvecs[q])
                t = time.perf_counter()
                searcher.matrix("bench")
                searcher.lexical_index("bench")
                index = f"{time.perf_counter() - t:.1f} (mem)"
            else:
                from core.hub.pg.search import PgSearcher
                from core.hub.pg.store import PgStore

                db_dsn = fresh_database(dsn, f"bench_{n}")
                build = build_postgres(db_dsn, n)
                searcher = PgSearcher(PgStore(db_dsn), embed_query=lambda q: qvecs[q])
                index = f"{build['gin']:.0f}+{build['hnsw']:.0f} gin+hnsw"
            m = measure(searcher, queries, n_queries)
            rate = ingest_rate(searcher.store)
            print(f"{backend:>9} {n:>8} {build['load']:>7.1f} {index:>14} {m['p50']:>7.1f} {m['p95']:>7.1f}"
                  f" {m['lex95']:>8.1f} {m['dense95']:>9.1f} {rate:>11.0f}", flush=True)
            if backend == "postgres":
                print(f"{'':>9} plan: {dense_plan_line(searcher, queries[0])}", flush=True)
            searcher.store.close()
            if backend == "sqlite":
                path.unlink(missing_ok=True)


def dense_plan_line(searcher, query: str) -> str:
    plan = searcher.dense_plan("bench", query)
    return "HNSW index scan" if "embeddings_hnsw" in plan else "exact scan: " + plan.splitlines()[0]


def fresh_database(dsn: str | None, name: str) -> str:
    """A new database on the server at ``dsn`` (default: the embedded one in a scratch dir); its DSN."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute(f"DROP DATABASE IF EXISTS {name}")
        db.execute(f"CREATE DATABASE {name}")
    info = psycopg.conninfo.conninfo_to_dict(dsn)
    info["dbname"] = name
    return psycopg.conninfo.make_conninfo(**info)
