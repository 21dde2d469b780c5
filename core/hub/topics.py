"""Topics of a collection: clusters of its documents, labelled by class-based TF-IDF (c-TF-IDF).

Computed from what is indexed, never from a fixed list:

1. Each document is the mean of its chunk embeddings (MiniLM, unit length). Chunks themselves are
   not clustered: their vectors carry their paper's breadcrumb, so chunk clusters are one paper
   each (and one cluster of "Authors: … Source: …" lines), not topics.
2. Documents are clustered by seeded spherical k-means, k chosen by silhouette
   (:mod:`core.hub.clustering`): the same collection always gives the same topics.
3. Each cluster is labelled as BERTopic does: its documents' words form one class, and a term
   scores ``tf(t, c) · log(1 + A / f(t))`` (A: mean words per class, f: the term's frequency over
   all classes), times the share of the cluster's documents that use it. Heading phrases
   ("Low-rank update of a frozen weight") are keyphrase candidates next to the words and
   two-word phrases of the text. The label is the best two keyphrases.
4. A document belongs to its own cluster (score: cosine of its vector to the centroid) and to any
   other topic whose centroid is nearly as close (within SECONDARY_MARGIN): a document may have
   several topics (CLIP: vision and language).

Topics are stored with the collection's revision (:data:`SCHEMA`, created in an existing
hub.sqlite3 by :class:`core.hub.store.HubStore`) and recomputed when it moves: after ``ingest`` and,
lazily, on the first ``list_topics`` after any other change. The hub has no LLM, so labels are
keyphrases; a client with an LLM may give topics human names (``name_topics``, :func:`set_names`).
A name is kept with its topic's member documents: a recompute that clusters the same documents
again keeps it (under the topic's new id, if that moved), one that changes the members drops it.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from core.hub import index_files
from core.hub.clustering import cluster, normalize
from core.hub.store import HubStore
from core.text import GENERIC_HEADINGS, TOPIC_STOPWORDS, TOPIC_WORD, singular

SCHEMA = """
CREATE TABLE IF NOT EXISTS topic_sets(
  collection TEXT PRIMARY KEY, revision INTEGER NOT NULL, silhouette REAL, computed_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS topics(
  collection TEXT NOT NULL, topic_id TEXT NOT NULL, position INTEGER NOT NULL, label TEXT NOT NULL,
  keyphrases TEXT NOT NULL, PRIMARY KEY(collection, topic_id));
CREATE TABLE IF NOT EXISTS document_topics(
  collection TEXT NOT NULL, topic_id TEXT NOT NULL, doc_id TEXT NOT NULL, score REAL NOT NULL,
  PRIMARY KEY(collection, topic_id, doc_id));
CREATE INDEX IF NOT EXISTS document_topics_doc ON document_topics(doc_id);
CREATE TABLE IF NOT EXISTS topic_names(
  collection TEXT NOT NULL, topic_id TEXT NOT NULL, name TEXT NOT NULL, members TEXT NOT NULL,
  named_at REAL NOT NULL, PRIMARY KEY(collection, topic_id));
"""
NAME_CHARS = 80

KEYPHRASES = 8
SECONDARY_MARGIN = 0.1  # a document is in another topic too when that centroid is this close to its own
MAX_DF = 0.6  # a word in more of the collection's documents than this says nothing about a topic
_URL = re.compile(r"\S+://\S+|\S+@\S+")
_SPLIT = re.compile(r"[;:!?()\[\]{}\n,]|\.(?=\s|$)")
_META_LINE = re.compile(r"^\W*(?:authors?|by|source|venue|url|doi|arxiv|tags|keywords|year|license)\W*:.*$", re.I | re.M)
# "Conclusions" and a reader's "Preamble" section are generic here too.
_GENERIC_HEADINGS = GENERIC_HEADINGS | {"conclusions", "preamble"}
_lock = threading.Lock()


@dataclass
class Topic:
    topic_id: str
    label: str
    keyphrases: list[str]
    documents: list[tuple[str, float]] = field(default_factory=list)  # (doc_id, score), best first
    name: str = ""  # a human name given through name_topics; empty: the label is its name

    @property
    def members(self) -> str:
        """Its documents as a canonical key (sorted ids): what a stored name is bound to."""
        return json.dumps(sorted(d for d, _ in self.documents))


@dataclass
class TopicSet:
    collection: str
    revision: int | None
    topics: list[Topic]
    silhouette: float | None = None


# -- computing -------------------------------------------------------------------------------------
def compute(store: HubStore, collection: str) -> TopicSet:
    """The topics of ``collection`` as it is now (embedded documents only)."""
    revision = store.revision(collection)
    rowids, mat = index_files.dense(store, collection)
    if not len(rowids):
        return TopicSet(collection, revision, [])
    doc_of = store.chunk_doc_ids(collection)
    chunk_docs = [doc_of[int(r)] for r in rowids]
    doc_ids = sorted(set(chunk_docs))
    index = {d: i for i, d in enumerate(doc_ids)}
    rows = np.array([index[d] for d in chunk_docs])
    docs = normalize(_doc_means(mat, rows, len(doc_ids)))
    labels, centres, score = cluster(docs)
    words = {d: _document_terms(store, d) for d in doc_ids}
    phrases = label_clusters([[words[d] for d, lab in zip(doc_ids, labels) if lab == j] for j in range(len(centres))])
    sims = docs @ centres.T
    own = sims[np.arange(len(doc_ids)), labels]
    topics = []
    heads = _heads(phrases)
    for j, head in enumerate(heads):
        members = {d: round(float(sims[i, j]), 4) for i, d in enumerate(doc_ids)
                   if labels[i] == j or sims[i, j] >= own[i] - SECONDARY_MARGIN}
        kp = phrases[j] or [doc_ids[i] for i in np.flatnonzero(labels == j)]
        second = next((p for p in kp if p not in heads and not set(p.split()) & set(head.split())), "")
        label = f"{head} / {second}" if head and second else head or kp[0]
        topics.append(Topic("", label, kp, sorted(members.items(), key=lambda m: (-m[1], m[0]))))
    topics.sort(key=lambda t: (-len(t.documents), t.label))
    taken: set[str] = set()
    for t in topics:
        t.topic_id = _unique(_slug(t.label.split(" / ")[0]), taken)
    return TopicSet(collection, revision, topics, round(score, 4))


def _doc_means(mat: np.ndarray, rows: np.ndarray, n_docs: int, block: int = 8192) -> np.ndarray:
    """Each document's mean of its normalized chunk vectors, read a block of chunks at a time (one pass,
    float64 for the block only: a 100k-chunk collection is never copied whole)."""
    sums = np.zeros((n_docs, mat.shape[1]))
    for s in range(0, len(rows), block):
        np.add.at(sums, rows[s:s + block], normalize(np.asarray(mat[s:s + block], dtype=np.float64)))
    return sums / np.bincount(rows, minlength=n_docs)[:, None]


def _heads(phrases: list[list[str]]) -> list[str]:
    """Each cluster's leading keyphrase, never the same one twice: a phrase that tops two clusters
    goes to the one that ranks it higher, and the other takes its next."""
    heads = [""] * len(phrases)
    used: set[str] = set()
    for depth in range(KEYPHRASES):
        for j, kp in enumerate(phrases):
            if not heads[j] and depth < len(kp) and kp[depth] not in used:
                rival = [i for i, other in enumerate(phrases) if i != j and not heads[i]
                         and kp[depth] in other[:depth + 1] and other.index(kp[depth]) < depth]
                if not rival:
                    heads[j] = kp[depth]
                    used.add(kp[depth])
    return heads


def _document_terms(store: HubStore, doc_id: str) -> tuple[Counter, list[str]]:
    """(term counts, heading phrases) of one document: words and two-word phrases of its title and
    text, and its specific headings (not "Method", not the title)."""
    chunks = store.doc_chunks(doc_id)
    title = chunks[0].title if chunks else ""
    headings = list(dict.fromkeys(h.strip() for c in chunks for h in c.section_path[1:]))
    headings = [h for h in headings if h.lower() not in _GENERIC_HEADINGS and 1 <= len(h.split()) <= 6]
    names = {w for a in (store.document(doc_id) or {}).get("authors") or [] for w in TOPIC_WORD.findall(a.lower())}
    counts: Counter = Counter()
    for text in [title, *headings, *(c.text for c in chunks)]:
        for part in _SPLIT.split(_URL.sub(" ", _META_LINE.sub(" ", text)).lower()):
            toks = [w if w not in names else "" for w in TOPIC_WORD.findall(part)]
            for a, b in zip([None, *toks], toks):
                if _content(b):
                    counts[b] += 1
                    if a is not None and _content(a):
                        counts[f"{a} {b}"] += 1
    return counts, headings


def _content(word: str) -> bool:
    return len(word) > 2 and word not in TOPIC_STOPWORDS and not word[0].isdigit()


def label_clusters(clusters: list[list[tuple[Counter, list[str]]]]) -> list[list[str]]:
    """Keyphrases of each cluster, best first, by c-TF-IDF (see the module docstring)."""
    n_docs = sum(len(c) for c in clusters)
    df: Counter = Counter(t for c in clusters for counts, _ in c for t in counts)
    limit = MAX_DF * n_docs if n_docs >= 5 else n_docs
    raw = [sum((counts for counts, _ in c), Counter()) for c in clusters]
    # a class whose every word is too common (near-identical documents) keeps its own words
    classes = [Counter({t: v for t, v in cl.items() if df[t] <= limit}) or cl for cl in raw]
    freq: Counter = sum(classes, Counter())
    mean_words = sum(freq.values()) / max(1, len(classes))
    out = []
    for members, cl in zip(clusters, classes):
        total = sum(cl.values()) or 1
        shared = Counter(t for counts, _ in members for t in counts)
        score = {t: v / total * math.log(1 + mean_words / freq[t]) * shared[t] / len(members) for t, v in cl.items()}
        for _, heads in members:  # a heading phrase scores as the mean of its words
            for h in heads:
                toks = [w for w in TOPIC_WORD.findall(h.lower()) if _content(w)]
                if 1 < len(toks) <= 4 and all(w in score for w in toks):
                    score.setdefault(h.lower(), sum(score[w] for w in toks) / len(toks) * 1.2)
        out.append(_distinct(sorted(score, key=lambda t: (-score[t], t))))
    return out


def _distinct(ranked: list[str]) -> list[str]:
    """The top KEYPHRASES terms, skipping one whose words an earlier one already has."""
    kept: list[str] = []
    for term in ranked:
        words = {singular(w) for w in term.split()}
        if any(words <= (k := {singular(w) for w in other.split()}) or k <= words for other in kept):
            continue
        kept.append(term)
        if len(kept) == KEYPHRASES:
            break
    return kept


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "topic"


def _unique(slug: str, taken: set[str]) -> str:
    out, n = slug, 2
    while out in taken:
        out, n = f"{slug}-{n}", n + 1
    taken.add(out)
    return out


# -- storing ---------------------------------------------------------------------------------------
def save(store: HubStore, ts: TopicSet) -> None:
    """Store ``ts`` in place of the collection's topics. A stored name follows the topic with the
    same member documents (its id may have changed); a name whose documents no longer cluster
    together is dropped (:meth:`HubStore.save_topics`, or the PostgreSQL store's)."""
    store.save_topics(ts)


def load(store: HubStore, collection: str) -> TopicSet | None:
    """The stored topics of ``collection``, or None when none are stored."""
    stored = store.load_topics(collection)
    if stored is None:
        return None
    (revision, silhouette), rows, doc_rows = stored
    topics = [Topic(tid, label, json.loads(kp)) for tid, label, kp, _, _ in rows]
    by_id = {t.topic_id: t for t in topics}
    for tid, doc, score in doc_rows:
        if tid in by_id:
            by_id[tid].documents.append((doc, score))
    for t, (_, _, _, name, members) in zip(topics, rows):
        t.name = name if name and members == t.members else ""  # a name is bound to its documents
    return TopicSet(collection, revision, topics, silhouette)


def current(store: HubStore, collection: str) -> TopicSet:
    """The collection's topics at its current revision: stored ones, or computed and stored now."""
    with _lock:
        stored = load(store, collection)
        if stored is not None and stored.revision == store.revision(collection):
            return stored
        fresh = compute(store, collection)
        save(store, fresh)
        return fresh


def set_names(store: HubStore, ts: TopicSet, names: dict[str, str]) -> TopicSet:
    """Store ``names`` (topic id -> name; an empty name clears one) for the topics of ``ts``, bound
    to each topic's member documents, and return the topics with their names."""
    by_id = {t.topic_id: t for t in ts.topics}
    store.set_topic_names(ts.collection, [(tid, name, by_id[tid].members) for tid, name in names.items()])
    for tid, name in names.items():
        by_id[tid].name = name
    return ts


def topic_doc_ids(ts: TopicSet, topic: str) -> tuple[Topic, list[str]] | None:
    """The topic named by ``topic`` (its id, its label or its given name, case-insensitive) and its
    document ids."""
    key = topic.strip().lower()
    for t in ts.topics:
        if key in (t.topic_id, t.label.lower(), t.name.lower()) and key:
            return t, [d for d, _ in t.documents]
    return None
