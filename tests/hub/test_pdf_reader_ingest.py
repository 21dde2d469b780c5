"""The PDF reader inside ingestion and search: a reference list is never evidence, a document read
by an older reader is read again, and on the full-text dev set every paper's title is its own."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.hub.ingest import Ingestor
from core.hub.pdf import READER_VERSION
from core.hub.readers import read_document
from core.hub.search import Searcher
from core.hub.store import HubStore
from tests.hub.pdfgen import LEFT, Paper, filler_lines

FULLPAPERS = Path(__file__).resolve().parents[3] / "shared" / "eval" / "fullpapers" / "dev"
if not FULLPAPERS.is_dir():
    FULLPAPERS = Path("/work/shared/eval/fullpapers/dev")


def paper_with_references(path: Path) -> Path:
    paper = Paper().page()
    paper.line("Reading Papers With Care", 150, 80, 16, bold=True)
    paper.line("1 Introduction", LEFT, 130, 12, bold=True)
    paper.lines(["Parsers that read papers well are rare [1].", *filler_lines(4)], LEFT, 150)
    paper.line("References", LEFT, 230, 12, bold=True)
    paper.lines(["[1] Ada Lovelace. 2019. Zanzibar parsing with quokkas. In Proceedings of",
                 "the Quokka Workshop, pages 1-9."], LEFT, 250)
    return paper.save(path)


def test_reference_entries_are_never_search_hits(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    rep = Ingestor(store, embed=False).ingest([paper_with_references(tmp_path / "care.pdf")], "papers")
    assert rep.ok and rep.added == ["care"]
    chunks = store.doc_chunks("care")
    assert chunks and not any("quokka" in c.text.lower() for c in chunks)
    assert Searcher(store).search("papers", "Zanzibar parsing with quokkas", legs="lexical") == []
    assert [h.chunk.chunk_id for h in Searcher(store).search("papers", "parsers read papers", legs="lexical")]


def test_a_pdf_indexed_by_an_older_reader_is_read_again(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite3")
    pdf = paper_with_references(tmp_path / "care.pdf")
    ing = Ingestor(store, embed=False)
    ing.ingest([pdf], "papers")
    assert store.get_meta("reader:care") == READER_VERSION
    assert Ingestor(store, embed=False).ingest([pdf], "papers").skipped == ["care"]
    store.set_meta("reader:care", "pdf-1")  # as an older release left it
    seen: list[str] = []
    rep = Ingestor(store, embed=False).ingest([pdf], "papers", progress=lambda p, status, n: seen.append(status))
    assert rep.updated == ["care"] and seen == [f"updated: re-read by {READER_VERSION}"]
    assert store.document("care")["version"] == 2
    assert Ingestor(store, embed=False).ingest([pdf], "papers").skipped == ["care"]


@pytest.mark.skipif(not FULLPAPERS.is_dir(), reason="the full-text dev set (shared/eval/fullpapers/dev) is absent")
def test_every_dev_paper_gets_its_own_title_and_section_names():
    manifest = json.loads((FULLPAPERS / "manifest.json").read_text())
    wrong = []
    for entry in manifest["documents"]:
        doc = read_document(FULLPAPERS / entry["file"])
        if doc.title != entry["title"]:
            wrong.append((entry["slug"], doc.title))
        crumbs = {b.path[1] for b in doc.blocks if b.kind == "body" and len(b.path) > 1}
        assert len(crumbs) >= 3, (entry["slug"], crumbs)  # the paper's own sections, not one lump
        assert doc.references, entry["slug"]
    assert wrong == []


def test_a_papers_reference_list_comes_back_in_its_summary_and_its_markers_name_the_work(tmp_path):
    from core.hub.service import Hub

    store = HubStore(tmp_path / "hub.sqlite3")
    Ingestor(store, embed=False).ingest([paper_with_references(tmp_path / "care.pdf")], "papers")
    assert any("rare [ref 1: Lovelace, 2019]." in c.text for c in store.doc_chunks("care"))
    hub = Hub(tmp_path / "hub.sqlite3", sync=False)
    hub.start(background=False)
    (entry,) = hub.summary("care", "papers").references
    assert entry == {"label": "1", "authors": "Ada Lovelace", "title": "Zanzibar parsing with quokkas",
                     "year": 2019, "venue": "In Proceedings of the Quokka Workshop, pages 1-9"}


def _venue_paper(path: Path, footer: list[str], subject: str | None = None, header: str | None = None,
                 body: str | None = None) -> Path:
    paper = Paper()
    if subject:
        paper.pdf.set_subject(subject)
    for n in range(2):  # two pages, so a header printed on both is a running header
        paper.page()
        if header:
            paper.line(header, LEFT, 40, 8)
        if n == 0:
            paper.line("Reading Papers With Care", 150, 80, 16, bold=True)
            paper.line("1 Introduction", LEFT, 130, 12, bold=True)
        paper.lines(filler_lines(6), LEFT, 150)
        if n == 0:
            paper.lines(footer, LEFT, 700, 8)
            if body:
                paper.line(body, LEFT, 300)
    return paper.save(path)


@pytest.mark.parametrize("footer,subject,header,want", [
    (["Proceedings of the 12th Workshop on Careful Reading, pages 1-9,", "Springfield, June 2019. (c) 2019 Quokka Society"],
     None, None, "Proceedings of the 12th Workshop on Careful Reading"),
    # a venue broken over two lines by a hyphen, with its ordinal set apart ("3 rd")
    (["Appearing in Proceedings of the 3 rd International Con-", "ference on Tidy Parsing, Springfield, 2011."],
     None, None, "Proceedings of the 3rd International Conference on Tidy Parsing"),
    ([], None, "To appear in TIDY 2004", "TIDY 2004"),  # a running header is still page 1's venue line
    ([], "Proceedings of the Widget Conference http://widgets.example/; vol. 3; doi:10.1/x", None,
     "Proceedings of the Widget Conference"),  # the metadata subject, up to its first ";"
    ([], "draft 3", None, None),  # a subject that names no venue
    ([], "Operating Systems", None, None),
    ([], "Computing methodologies -> Machine learning; Information systems -> Retrieval", None, None),
    (["Copyright 2019 by the authors."], None, None, None),
])
def test_a_pdfs_venue_is_read_from_its_first_page_or_its_metadata(tmp_path, footer, subject, header, want):
    """Where a paper appeared (its "Proceedings of …" or "To appear in …" line on page 1, else the
    metadata subject when that names a venue) is the document's venue: stored with it, so the sources
    pane, ``ask --json`` and ``export bib`` show it."""
    pdf = _venue_paper(tmp_path / "care.pdf", footer, subject, header)
    assert read_document(pdf).library.get("venue") == want
    store = HubStore(tmp_path / "hub.sqlite3")
    assert Ingestor(store, embed=False).ingest([pdf], "papers").added == ["care"]
    assert store.document("care")["venue"] == want


def test_body_text_on_page_one_is_never_a_venue(tmp_path):
    """ "… tend to appear in a random order" in the introduction names no venue: only a line set apart
    from the body (another size, or the header or footer band) is read for one."""
    pdf = _venue_paper(tmp_path / "care.pdf", [], body="To appear in a random order, tokens are shuffled first.")
    assert read_document(pdf).library.get("venue") is None


def test_a_venue_lines_year_is_the_papers_year_when_no_other_year_is_printed_apart(tmp_path):
    """MapReduce's PDF prints its year only in its running "To appear in OSDI 2004" and has no creation
    date: it was stored with no year, so the library's oldest-first listing put it last. The venue's
    year now comes before the file's creation date (the year the file was made, not the paper)."""
    pdf = _venue_paper(tmp_path / "care.pdf", [], None, "To appear in TIDY 2004")
    doc = read_document(pdf)
    assert doc.library.get("venue") == "TIDY 2004" and doc.year == 2004


def test_a_venue_lines_page_range_is_no_year():
    """A journal's line carries its pages ("… 15 (2014) 1929-1958"): the year is the printed year, not
    the range's last number, and of two years the latest, as page 1's own years are read."""
    from core.hub.pdf.front import year

    assert year([], 10.0, "D:20210101", "Journal of Machine Learning Research 15 (2014) 1929-1958") == 2014
    assert year([], 10.0, "", "SIGMOD 2008 Workshop on the Web and Databases (WebDB 2007)") == 2008
    assert year([], 10.0, "D:20210101", "Proceedings of the Widget Conference, pages 1951-1960") == 2021
