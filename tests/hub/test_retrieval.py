"""Retrieval quality on the labelled queries: hybrid recall@5 is at least each leg's alone."""

from __future__ import annotations

from tests.hub.retrieval_eval import load_labels, recall_at_k


def test_hybrid_recall_at_5_beats_each_leg(hub):
    labels = load_labels()
    assert len(labels) >= 10
    lexical = recall_at_k(hub.searcher, labels, "lexical")
    dense = recall_at_k(hub.searcher, labels, "dense")
    hybrid = recall_at_k(hub.searcher, labels, "hybrid")
    print(f"recall@5 lexical={lexical:.3f} dense={dense:.3f} hybrid={hybrid:.3f}")
    assert hybrid >= lexical and hybrid >= dense
    assert hybrid >= 0.8


def test_hits_carry_breadcrumb_and_full_text(hub):
    hits = hub.query("What does double quantization quantize in QLoRA?", 3)
    top = hits[0].chunk
    assert top.doc_id == "qlora" and top.breadcrumb.startswith("QLoRA")
    assert "quantization constants" in top.text.lower()
    assert hits[0].lexical_rank is not None and hits[0].dense_rank is not None


def test_keyword_search_exact_and_fuzzy(hub):
    exact = hub.keyword(["NF4"], "exact")
    assert exact and all("nf4" in h.chunk.text.lower() or "nf4" in h.chunk.breadcrumb.lower() for h in exact)
    fuzzy = hub.keyword(["Reflxion"], "fuzzy", top_k=3)  # typo
    assert fuzzy and fuzzy[0].chunk.doc_id == "reflexion"
    assert hub.keyword(["zzqx-not-a-term"], "exact") == []


def test_index_change_refreshes_dense_matrix(hub, tmp_path):
    note = tmp_path / "ornithopter.md"
    note.write_text("# Ornithopter Notes\n\n## Flight\nOrnithopters fly by flapping wings like birds.\n")
    from core.hub.ingest import Ingestor

    before = hub.store.revision("default")
    Ingestor(hub.store).ingest([note], "default")
    try:
        assert hub.store.revision("default") > before
        hits = hub.searcher.search("default", "machines that flap their wings", 3, legs="dense")
        assert hits[0].chunk.doc_id == "ornithopter"
    finally:
        assert hub.store.delete_document("ornithopter")
    hits = hub.searcher.search("default", "machines that flap their wings", 3, legs="dense")
    assert all(h.chunk.doc_id != "ornithopter" for h in hits)


def test_vocabulary_follows_the_collection_revision(hub, tmp_path):
    from core.hub.ingest import Ingestor

    v = hub.vocabulary("default")
    assert {"LoRA", "QLoRA", "ReAct"} <= {t.name for t in v.terms} and v.revision == hub.store.revision("default")
    assert hub.vocabulary("default", since_revision=v.revision).unchanged
    note = tmp_path / "quillnet.md"
    note.write_text("# QuillNet: Feathered Graph Kernels\n\n## Method\n"
                    "QuillNet stacks feathered graph kernels (FGK) over molecules. FGK layers are cheap.\n")
    Ingestor(hub.store, embed=False).ingest([note], "default")
    try:
        fresh = hub.vocabulary("default", since_revision=v.revision)
        assert not fresh.unchanged and fresh.revision > v.revision
        terms = {t.name: t for t in fresh.terms}
        assert terms["QuillNet"].kind == "paper" and terms["FGK"].aliases == ["feathered graph kernels"]
    finally:
        assert hub.store.delete_document("quillnet")
    assert "QuillNet" not in {t.name for t in hub.vocabulary("default").terms}


def test_a_chunks_neighbours_before_and_after_come_nearest_first_on_either_backend(hub):
    """``store.preceding`` (nearest first) and ``store.following`` (in order) read a document's chunks around
    one position: the served text's sentence starts and ends come from them (``Hub._whole``)."""
    doc = hub.store.documents("default")[0]["doc_id"]
    chunks = hub.store.doc_chunks(doc)
    assert len(chunks) >= 4
    mid = chunks[2].position
    assert [c.position for c in hub.store.preceding(doc, mid, n=2)] == [mid - 1, mid - 2]
    assert [c.position for c in hub.store.following(doc, mid, n=1)] == [mid + 1]
    assert hub.store.preceding(doc, chunks[0].position) == []
