"""An answer's sources as BibTeX and its ``[n]`` markers as pandoc citations (issue 29, item 4)."""

from __future__ import annotations

from core.hub.library.bibtex import read_bib
from core.hub.library.cite import pandoc_citations, session_citations, sources_bib
from core.types import DocMeta, Source


def _src(index: int, doc_id: str, title: str, meta: DocMeta | None = None) -> Source:
    return Source(index=index, chunk_id=f"{doc_id}_000{index}", doc_id=doc_id, title=title, source=f"/p/{doc_id}.pdf",
                  meta=meta)


ATTN = DocMeta(authors=["Ashish Vaswani"], year=2017, venue="NeurIPS", doi="10.5555/3295222", citation_key="vaswani17")
SOURCES = [_src(1, "attn", "Attention Is All You Need", ATTN), _src(2, "attn", "Attention Is All You Need", ATTN),
           _src(3, "lora", "LoRA: Low-Rank Adaptation", DocMeta(authors=["Edward J. Hu"], year=2021,
                                                                  arxiv_id="2106.09685"))]


def test_markers_become_pandoc_citations_one_key_per_paper():
    _, keys = sources_bib(SOURCES)
    assert keys == {1: "vaswani17", 2: "vaswani17", 3: "hu2021lora"}
    text = "Attention replaces recurrence [1][2], and LoRA freezes weights [3]. See [1, 3]. Unknown [9]."
    assert pandoc_citations(text, keys) == ("Attention replaces recurrence [@vaswani17], and LoRA freezes weights "
                                            "[@hu2021lora]. See [@vaswani17; @hu2021lora]. Unknown [9].")
    assert pandoc_citations("`x[1]` and\n```\na[1]\n```\n[1]", keys) == "`x[1]` and\n```\na[1]\n```\n[@vaswani17]"


def test_the_bib_of_a_session_has_each_cited_paper_once_and_reads_back(tmp_path):
    bib, per_turn = session_citations([SOURCES, [_src(1, "lora", "LoRA: Low-Rank Adaptation")]])
    assert per_turn == [{1: "vaswani17", 2: "vaswani17", 3: "hu2021lora"}, {1: "hu2021lora"}]
    path = tmp_path / "s.bib"
    path.write_text(bib)
    entries, _ = read_bib(path)
    assert [(e.key, e.title, e.doi, e.arxiv_id, e.year) for e in entries] == [
        ("vaswani17", "Attention Is All You Need", "10.5555/3295222", None, 2017),
        ("hu2021lora", "LoRA: Low-Rank Adaptation", None, "2106.09685", 2021)]
