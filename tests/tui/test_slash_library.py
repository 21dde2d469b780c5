"""``/ingest refs.bib`` and ``/ingest zotero:PATH#collection`` in the real app (issue 29 in the app):
the same import as ``paperpilot ingest`` (the entry's metadata over the PDF's guess, an entry
without a PDF indexed from its abstract), into the store the app's bundled hub serves, with the
ingest bar; a library that is missing or cannot be read is one line in the chat and writes nothing.

Every library, PDF and abstract here is invented for these tests (PDFs made with fpdf2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.hub.store import HubStore
from tests.hub.zotero_db import Item, ZoteroLibrary
from tests.support.web_replay import paper_pdf
from tests.tui.conftest import own_hub_app, wait_until


def _notes(app) -> list[str]:
    return [str(n.render()) for n in app.main_screen.query("#chat-log ChatNote")]


@pytest.fixture
def libraries(tmp_path) -> tuple[Path, Path]:
    """refs.bib (one entry with a PDF whose own title is a scan name, one abstract-only entry) and a
    Zotero library (one item with a PDF and one without, in the collection "Reading", one outside it)."""
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    (pdfs / "braid.pdf").write_bytes(paper_pdf("scan0042", [("1 Method", "Braided adapters share one low-rank "
                                                            "basis across all attention layers of the model.")]))
    (pdfs / "lantern.pdf").write_bytes(paper_pdf("draft", [("1 Probe", "Lantern masks one retrieved passage at a "
                                                           "time and measures how the reader's answer changes.")]))
    bib = tmp_path / "refs.bib"
    bib.write_text("""@inproceedings{vale2023braid,
  title = {Braided Low-Rank Adapters},
  author = {Vale, Rosa and Imai, Ken},
  booktitle = {Proceedings of the Workshop on Small Updates},
  year = {2023},
  doi = {10.4242/braid.2023.3},
  file = {pdfs/braid.pdf}
}
@article{orr2021tide,
  title = {Tide Scheduling for Sparse Experts},
  author = {Orr, Lena},
  journal = {Journal of Routing},
  year = {2021},
  abstract = {Tide scheduling sends each token to the expert whose queue is shortest, balancing load
              without an auxiliary loss.}
}
""", encoding="utf-8")
    lib = ZoteroLibrary(tmp_path / "Zotero")
    lib.add(Item("Lantern: Probing Retrieval Augmented Readers", [("Mei", "Chen")], pdf=pdfs / "lantern.pdf",
                 data={"date": "2022-02-10", "DOI": "10.4242/lantern.2022.1"}, collections=["Reading"]))
    lib.add(Item("Glacier Sampling for Diffusion Decoders", [("Pia", "Lund")], collections=["Reading"],
                 data={"date": "2021", "abstractNote": "Glacier sampling freezes the noise schedule after the "
                                                      "twelfth step, halving the decoding time."}))
    lib.add(Item("Counting Heads in Sparse Attention", [("Raj", "Mehta")], collections=["Elsewhere"],
                 data={"date": "2020", "abstractNote": "Six heads per layer keep most of the accuracy."}))
    lib.close()
    return bib, lib.db_path


async def _slash(pilot, text: str) -> None:
    box = pilot.app.main_screen.query_one("#chat-input")
    box.load_text(text)
    await pilot.press("enter")
    await pilot.pause()


async def test_ingest_a_bib_and_a_zotero_collection_in_the_app(settings, hub_db, tmp_path, libraries):
    bib, zotero = libraries
    bad = tmp_path / "bad.bib"
    bad.write_text("this is not BibTeX at all\n", encoding="utf-8")
    app = own_hub_app(settings, hub_db, tmp_path)
    db = tmp_path / "hub" / "hub.sqlite3"  # the private copy own_hub_app serves
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.warm.is_set(), timeout=180)
        assert app.session.agent is not None, app.session.agent_error
        box = app.main_screen.query_one("#chat-input")

        # not there: refused at once, one line, the box keeps the command, no bar
        for command, line in ((f"/ingest {tmp_path}/gone.bib --collection lib", f"/ingest: {tmp_path}/gone.bib: no such file"),
                              (f"/ingest zotero:{tmp_path}/nowhere --collection lib",
                               f"/ingest: no Zotero database at {tmp_path}/nowhere")):
            await _slash(pilot, command)
            assert any(n.startswith(line) for n in _notes(app)), (line, _notes(app))
            assert box.text == command and not app.main_screen.query("#ingest-bar")
        # there but unreadable: one line when the worker reads it, nothing written
        for command, says in ((f"/ingest {bad} --collection lib", "holds no BibTeX entry that can be read"),
                              (f"/ingest zotero:{zotero}#Nope --collection lib", "Nope")):
            before = len(_notes(app))
            await _slash(pilot, command)
            await wait_until(pilot, lambda before=before: len(_notes(app)) > before and not any(
                w.name == "ingest" and not w.is_finished for w in app.workers), timeout=60)
            [line] = _notes(app)[before:]
            assert line.startswith("/ingest: ") and says in line and "\n" not in line, line
        store = HubStore(db)
        assert store.documents("lib") == []
        store.close()

        # the .bib: its PDF with the entry's title, the other entry from its abstract
        before = len(_notes(app))
        await _slash(pilot, f"/ingest {bib} --collection lib")
        await wait_until(pilot, lambda: any("collection 'lib': 2 added" in n for n in _notes(app)[before:]),
                         timeout=300)
        [summary] = [n for n in _notes(app)[before:] if "collection 'lib'" in n]
        assert "0 failed" in summary and len(summary.rsplit(", ", 1)[1].split()[0].split(".")[1]) == 2, summary

        # Zotero: the collection "Reading" only (its PDF and its abstract-only item)
        before = len(_notes(app))
        await _slash(pilot, f"/ingest zotero:{zotero}#Reading --collection lib")
        await wait_until(pilot, lambda: any("collection 'lib': 2 added, 0 updated, 0 unchanged" in n
                                            for n in _notes(app)[before:]), timeout=300)
        assert not app.main_screen.query("#ingest-bar")
        await wait_until(pilot, lambda: len(app.slash.docs("lib")) == 4, timeout=60)

        # again: nothing changes
        before = len(_notes(app))
        await _slash(pilot, f"/ingest zotero:{zotero}#Reading --collection lib")
        await wait_until(pilot, lambda: any("0 added, 0 updated, 2 unchanged" in n for n in _notes(app)[before:]),
                         timeout=300)

    store = HubStore(db)
    docs = {d["title"]: d for d in store.documents("lib")}
    store.close()
    assert set(docs) == {"Braided Low-Rank Adapters", "Tide Scheduling for Sparse Experts",
                         "Lantern: Probing Retrieval Augmented Readers", "Glacier Sampling for Diffusion Decoders"}
    braid, tide = docs["Braided Low-Rank Adapters"], docs["Tide Scheduling for Sparse Experts"]
    assert braid["doc_type"] == "pdf" and braid["doi"] == "10.4242/braid.2023.3" and braid["source_kind"] == "bib"
    assert tide["doc_type"] == "abstract" and tide["year"] == 2021
    lantern = docs["Lantern: Probing Retrieval Augmented Readers"]
    assert lantern["doc_type"] == "pdf" and lantern["source_kind"] == "zotero"
    assert docs["Glacier Sampling for Diffusion Decoders"]["doc_type"] == "abstract"


def test_the_bar_counts_a_librarys_pdfs_once_the_library_is_read(tmp_path):
    """A ``/ingest refs.bib`` starts with no file known; the library's PDFs join the count when it is
    read, so the bar's files, fraction and pages follow them."""
    from paperpilot_tui.ingest_meter import IngestMeter

    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(paper_pdf("a", [("1", "text")]))
    meter = IngestMeter([])
    assert meter.now().files == 0
    meter.add([pdf, pdf])
    assert meter.now().files == 1 and meter.now().fraction == 0
    meter.parsed(pdf, 3, 2)
    meter.embedded(pdf, 2)
    meter.step(pdf, "added", 3)
    now = meter.now()
    assert (now.files_done, now.files, now.pages, now.fraction) == (1, 1, 3, 1.0)
