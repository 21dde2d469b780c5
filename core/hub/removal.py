"""Removing one document from a collection: its record, every version's chunks, their vectors and
their full-text (BM25) rows go in one transaction, and the collection's revision moves, so the
searcher's indexes, the vocabulary and the topics are rebuilt on their next use.

A removed bundled note stays removed (the start-up sync remembers the notes it indexed, not the
documents present). Asked through the hub's ``remove_document`` tool, so the app removes a document
the same way from a stdio hub, a daemon or PostgreSQL.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class RemovedDocument(BaseModel):
    doc_id: str
    collection: str
    title: str
    chunk_count: int  # the current version's chunks that left search
    document_count: int  # documents left in the collection


def remove(store: Any, doc: dict) -> RemovedDocument:
    """Delete ``doc`` (a live row of ``store``, already checked to be in its collection)."""
    chunks = store.stats(doc["collection"])["chunk_count"]
    store.delete_document(doc["doc_id"])
    after = store.stats(doc["collection"])
    return RemovedDocument(doc_id=doc["doc_id"], collection=doc["collection"], title=doc.get("title") or doc["doc_id"],
                           chunk_count=chunks - after["chunk_count"], document_count=after["document_count"])
