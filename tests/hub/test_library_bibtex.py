"""``paperpilot ingest refs.bib`` and ``paperpilot export bib`` (issue 29, items 2 and 4).

Real parts: bibtexparser reads the file, fpdf2 draws the attached PDFs, the real ingestion reads
them, the real SQLite store keeps them. Entries point at their PDFs in the three ``file`` forms
reference managers write (a plain path, Zotero/JabRef's ``Description:path:Type``, BibDesk's
``bdsk-file-1`` property list); an entry without a file is indexed from its abstract. What the
``.bib`` says wins over what the PDF reader guessed; a second import changes nothing; the export
gives back the same keys, titles and DOIs.
"""

from __future__ import annotations

import base64
import plistlib
import stat

import pytest

from core.hub.library.bibtex import assign_keys, read_bib, split_authors
from core.hub.store import HubStore
from tests.support.cli import cli
from tests.support.web_replay import paper_pdf


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def _bibdesk(relative: str) -> str:
    """A ``bdsk-file-1`` value as BibDesk writes it: base64 of a keyed-archive plist naming the file."""
    archive = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": plistlib.UID(1)},
               "$objects": ["$null", {"relativePath": plistlib.UID(2), "aliasData": plistlib.UID(3)},
                            relative, b"\x00alias"]}
    return base64.b64encode(plistlib.dumps(archive, fmt=plistlib.FMT_BINARY)).decode()


@pytest.fixture
def library(tmp_path):
    """refs.bib with four entries: three PDFs (three file forms) and one abstract-only entry."""
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    # the PDFs' own titles are not the papers' titles: the .bib must win
    (pdfs / "sparse.pdf").write_bytes(paper_pdf("draft v3 final", [("1 Method", "Sparse mixture adapters route "
                                                                   "each token to two of sixteen adapters.")]))
    (pdfs / "merge.pdf").write_bytes(paper_pdf("scan0001", [("1 Idea", "Weight merging averages the fine-tuned "
                                                            "checkpoints of one base model.")]))
    (pdfs / "prune.pdf").write_bytes(paper_pdf("untitled", [("1 Result", "Magnitude pruning removes forty percent "
                                                            "of attention heads without loss.")]))
    bib = tmp_path / "refs.bib"
    bib.write_text(f"""% a small library
@inproceedings{{lee2023sparse,
  title = {{{{SMA}}: Sparse Mixture Adapters}},
  author = {{Lee, Ana and Park, Jin-woo and others}},
  booktitle = {{Proceedings of the Conference on Adapters}},
  year = {{2023}},
  doi = {{10.1234/SMA.2023.7}},
  keywords = {{adapters, sparsity}},
  file = {{pdfs/sparse.pdf}}
}}
@article{{Ng_2022,
  title = {{Merging Fine-Tuned Models by Averaging Weights}},
  author = {{M{{\\"u}}ller, Karl and Ng, Andrew}},
  journaltitle = {{Journal of Model Merging}},
  date = {{2022-03-14}},
  file = {{Full Text PDF:{tmp_path}/pdfs/merge.pdf:application/pdf}}
}}
@misc{{ortiz2024prune,
  title = {{Pruning Attention Heads by Magnitude}},
  author = {{{{OpenAI Research}}}},
  year = {{2024}},
  eprint = {{2401.01234}},
  archiveprefix = {{arXiv}},
  bdsk-file-1 = {{{_bibdesk("pdfs/prune.pdf")}}}
}}
@article{{kim2021distill,
  title = {{Distilling Retrieval into Dense Encoders}},
  author = {{Kim, Soo}},
  journal = {{Transactions on Retrieval}},
  year = {{2021}},
  doi = {{https://doi.org/10.5555/ret.2021.42}},
  abstract = {{We distill a cross-encoder reranker into a bi-encoder, keeping 97 percent of its recall
               at a twentieth of the cost.}}
}}
""", encoding="utf-8")
    return bib


def test_the_bib_is_read_with_its_files_in_every_form(library):
    entries, notes = read_bib(library)
    by_key = {e.key: e for e in entries}
    assert list(by_key) == ["lee2023sparse", "Ng_2022", "ortiz2024prune", "kim2021distill"] and notes == []
    sma = by_key["lee2023sparse"]
    assert (sma.title, sma.authors, sma.year, sma.venue, sma.doi, sma.tags) == (
        "SMA: Sparse Mixture Adapters", ["Ana Lee", "Jin-woo Park"], 2023, "Proceedings of the Conference on Adapters",
        "10.1234/sma.2023.7", ["adapters", "sparsity"])
    merge = by_key["Ng_2022"]
    assert merge.authors == ["Karl Müller", "Andrew Ng"] and merge.year == 2022 and merge.venue == "Journal of Model Merging"
    prune = by_key["ortiz2024prune"]
    assert prune.arxiv_id == "2401.01234" and prune.authors == ["OpenAI Research"]
    assert [f.name for e in entries for f in e.files] == ["sparse.pdf", "merge.pdf", "prune.pdf"]
    assert by_key["kim2021distill"].files == [] and by_key["kim2021distill"].doi == "10.5555/ret.2021.42"


def test_ingest_bib_indexes_pdfs_with_the_bibs_metadata_and_abstracts_alone(home, library, capsys):
    code, out, err = cli(capsys, "ingest", str(library), "--collection", "lib", "--no-embed")
    assert code == 0, err
    assert "4 added" in out, out
    store = HubStore(home / "hub.sqlite3")
    docs = {d["citation_key"]: d for d in store.documents("lib")}
    assert set(docs) == {"lee2023sparse", "Ng_2022", "ortiz2024prune", "kim2021distill"}
    sma = docs["lee2023sparse"]
    assert (sma["title"], sma["doc_type"], sma["source_kind"], sma["doi"]) == (
        "SMA: Sparse Mixture Adapters", "pdf", "bib", "10.1234/sma.2023.7")  # not "draft v3 final"
    assert all(c.title == "SMA: Sparse Mixture Adapters" and c.citation_key == "lee2023sparse"
               for c in store.doc_chunks(sma["doc_id"]))
    distill = docs["kim2021distill"]
    assert distill["doc_type"] == "abstract" and distill["path"] == "bib:kim2021distill"
    text = " ".join(c.text for c in store.doc_chunks(distill["doc_id"]))
    assert "cross-encoder reranker into a bi-encoder" in text
    store.close()

    code, out, _ = cli(capsys, "ingest", str(library), "--collection", "lib", "--no-embed")
    assert code == 0 and "0 added, 0 updated, 4 unchanged" in out, out  # re-importing changes nothing


def test_an_edited_entry_updates_its_document_on_the_next_import(home, library, capsys):
    assert cli(capsys, "ingest", str(library), "--collection", "lib", "--no-embed")[0] == 0
    library.write_text(library.read_text().replace("{SMA}: Sparse Mixture Adapters", "SMA Revisited"))
    code, out, _ = cli(capsys, "ingest", str(library), "--collection", "lib", "--no-embed")
    assert code == 0 and "1 updated, 3 unchanged" in out, out
    store = HubStore(home / "hub.sqlite3")
    doc = next(d for d in store.documents("lib") if d["citation_key"] == "lee2023sparse")
    assert doc["title"] == "SMA Revisited" and all(c.title == "SMA Revisited" for c in store.doc_chunks(doc["doc_id"]))
    store.close()


def test_export_bib_round_trips_keys_titles_and_dois(home, library, capsys, tmp_path):
    assert cli(capsys, "ingest", str(library), "--collection", "lib", "--no-embed")[0] == 0
    out_file = tmp_path / "exported" / "lib.bib"
    code, out, err = cli(capsys, "export", "bib", "--collection", "lib", "--out", str(out_file))
    assert code == 0 and "4 entries" in out, err
    assert stat.S_IMODE(out_file.stat().st_mode) == 0o600
    before = {e.key: (e.title, e.doi, e.arxiv_id) for e in read_bib(library)[0]}
    again, _ = read_bib(out_file)
    assert {e.key: (e.title, e.doi, e.arxiv_id) for e in again} == before
    assert sorted(f.name for e in again for f in e.files) == ["merge.pdf", "prune.pdf", "sparse.pdf"]


def test_documents_without_a_key_get_unique_author_year_word_keys():
    docs = [{"doc_id": "a", "title": "The Attention Mechanism", "authors": ["Ashish Vaswani"], "year": 2017},
            {"doc_id": "b", "title": "Attention, again", "authors": ["Ashish Vaswani"], "year": 2017},
            {"doc_id": "c", "title": "Über Netze", "authors": ["Jürgen Schmidhuber"], "year": None},
            {"doc_id": "d", "title": "Kept", "citation_key": "vaswani2017attention"}]
    keys = assign_keys(docs)
    assert keys == {"a": "vaswani2017attentiona", "b": "vaswani2017attentionb", "c": "schmidhubernduber",
                    "d": "vaswani2017attention"}


def test_author_lists_keep_braced_names_whole():
    assert split_authors("{Google Brain Team} and Le, Quoc V. and Jeff Dean") == [
        "Google Brain Team", "Quoc V. Le", "Jeff Dean"]


@pytest.mark.parametrize("content, says", [
    (None, "cannot read"),
    ("this is not bibtex at all, just prose.\n", "holds no BibTeX entry"),
    ("@article{broken, title = {Unclosed\n", "holds no BibTeX entry"),
])
def test_a_bad_bib_is_one_line_exit_2_and_writes_nothing(home, tmp_path, capsys, content, says):
    bib = tmp_path / "bad.bib"
    if content is not None:
        bib.write_text(content)
    code, out, err = cli(capsys, "ingest", str(bib), "--collection", "lib")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and says in lines[0] and "Traceback" not in err, err
    assert not (home / "hub.sqlite3").exists() or "lib" not in HubStore(home / "hub.sqlite3").collections()


def test_an_entry_whose_file_is_missing_is_noted_and_indexed_from_its_abstract(home, tmp_path, capsys):
    bib = tmp_path / "gone.bib"
    bib.write_text("@article{gone2020, title = {A Paper Whose PDF Moved}, year = {2020},\n"
                   "  abstract = {Moved papers keep their abstracts.}, file = {:papers/moved.pdf:PDF}}\n")
    code, out, err = cli(capsys, "ingest", str(bib), "--collection", "lib", "--no-embed")
    assert code == 0 and "1 added" in out
    assert err.strip() == "paperpilot: note: @gone2020: file papers/moved.pdf not found, indexed from its abstract"
    store = HubStore(home / "hub.sqlite3")
    (doc,) = store.documents("lib")
    assert doc["doc_type"] == "abstract" and doc["year"] == 2020
    store.close()


def test_export_bib_prints_without_out_and_refuses_an_unknown_collection(home, library, capsys):
    assert cli(capsys, "ingest", str(library), "--collection", "lib", "--no-embed")[0] == 0
    code, out, _ = cli(capsys, "export", "bib", "--collection", "lib")
    assert code == 0 and out.count("\n@") + out.startswith("@") == 4 and "@inproceedings{lee2023sparse," in out
    code, out, err = cli(capsys, "export", "bib", "--collection", "nope")
    assert code == 2 and out == "" and err.strip() == "paperpilot: no collection 'nope' (collections: lib)", err


def test_bib_import_and_export_round_trip_on_postgres(home, library, capsys, tmp_path, monkeypatch, pg_dsn):
    """The same commands with ``hub.backend: postgres``: the documents land in PostgreSQL, a second
    import changes nothing, and the export gives back the .bib's keys, titles, DOIs and files."""
    from core.hub.pg.store import PgStore

    monkeypatch.setenv("PAPERPILOT_HUB_BACKEND", "postgres")
    monkeypatch.setenv("PAPERPILOT_HUB_DSN", pg_dsn)
    code, out, err = cli(capsys, "ingest", str(library), "--collection", "lib", "--no-embed")
    assert code == 0 and "4 added" in out, err
    assert not (home / "hub.sqlite3").exists()  # nothing went to SQLite
    pg = PgStore(pg_dsn)
    docs = {d["citation_key"]: d for d in pg.documents("lib")}
    assert (docs["lee2023sparse"]["title"], docs["lee2023sparse"]["source_kind"], docs["kim2021distill"]["doc_type"]) \
        == ("SMA: Sparse Mixture Adapters", "bib", "abstract")
    pg.close()
    code, out, _ = cli(capsys, "ingest", str(library), "--collection", "lib", "--no-embed")
    assert code == 0 and "0 added, 0 updated, 4 unchanged" in out, out
    out_file = tmp_path / "exported" / "lib.bib"
    code, out, err = cli(capsys, "export", "bib", "--collection", "lib", "--out", str(out_file))
    assert code == 0 and "4 entries" in out, err
    before = {e.key: (e.title, e.doi, e.arxiv_id) for e in read_bib(library)[0]}
    again, _ = read_bib(out_file)
    assert {e.key: (e.title, e.doi, e.arxiv_id) for e in again} == before
    assert sorted(f.name for e in again for f in e.files) == ["merge.pdf", "prune.pdf", "sparse.pdf"]


def test_a_pdfs_printed_venue_stands_where_the_entry_gives_none_and_reimporting_changes_nothing(home, tmp_path, capsys):
    """The venue page 1 prints is kept when the .bib entry has none (as the PDF's title and year are),
    the entry's own venue wins where it has one, and a second import finds nothing changed (a venue the
    entry never had is not a library field it dropped)."""
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    for name in ("quokka", "wombat"):
        (pdfs / f"{name}.pdf").write_bytes(paper_pdf(f"{name} parsing", [(
            "Proceedings of the 7th Quokka Workshop, pages 1-9, Springfield.", "Parsers read quokkas slowly.")]))
    bib = tmp_path / "refs.bib"
    bib.write_text("@article{ada2019q, title = {Quokka Parsing}, author = {Lovelace, Ada}, year = {2019},\n"
                   "  file = {pdfs/quokka.pdf}}\n"
                   "@article{ada2019w, title = {Wombat Parsing}, author = {Lovelace, Ada}, year = {2019},\n"
                   "  journal = {Journal of Wombats}, file = {pdfs/wombat.pdf}}\n", encoding="utf-8")
    code, out, err = cli(capsys, "ingest", str(bib), "--collection", "lib", "--no-embed")
    assert code == 0 and "2 added" in out, (out, err)
    store = HubStore(home / "hub.sqlite3")
    venues = {d["citation_key"]: d["venue"] for d in store.documents("lib")}
    store.close()
    assert venues == {"ada2019q": "Proceedings of the 7th Quokka Workshop", "ada2019w": "Journal of Wombats"}
    code, out, _ = cli(capsys, "ingest", str(bib), "--collection", "lib", "--no-embed")
    assert code == 0 and "0 added, 0 updated, 2 unchanged" in out, out


def test_an_author_list_cut_short_with_et_al_exports_as_and_others(tmp_path):
    """A stored author list that ends in "et al." (as the bundled papers' do) is BibTeX's "and others",
    not a person called "al., et"; reading the entry back drops it."""
    from core.hub.library.bibtex import entry_text

    doc = {"doc_id": "d", "title": "Quokka Parsing", "authors": ["Ada Lovelace", "Alan Turing", "et al."], "year": 2019}
    text = entry_text(doc, "lovelace2019quokka")
    assert "author = {Lovelace, Ada and Turing, Alan and others}" in text, text
    (tmp_path / "one.bib").write_text(text, encoding="utf-8")
    assert read_bib(tmp_path / "one.bib")[0][0].authors == ["Ada Lovelace", "Alan Turing"]


@pytest.mark.parametrize("venue,kind,field", [
    ("Proceedings of the 30th VLDB Conference", "inproceedings", "booktitle"),
    ("International Congress of Quokka Studies", "inproceedings", "booktitle"),
    ("Annual Meeting of the Association for Computational Linguistics", "inproceedings", "booktitle"),
    ("Journal of Model Merging", "article", "journal"), ("Transactions on Retrieval", "article", "journal"),
    ("JMLR 2020", "article", "journal"),
])
def test_a_meetings_venue_exports_as_inproceedings_and_a_journals_as_article(venue, kind, field):
    from core.hub.library.bibtex import entry_text

    text = entry_text({"doc_id": "d", "title": "Quokka Parsing", "venue": venue, "year": 2019}, "k")
    assert text.startswith(f"@{kind}{{k,") and f"{field} = {{{venue}}}" in text, text


def test_one_stored_name_with_et_al_exports_as_that_author_and_others():
    from core.hub.library.bibtex import entry_text

    assert "author = {Smith, Jane and others}" in entry_text({"doc_id": "d", "title": "T",
                                                               "authors": ["Jane Smith et al."]}, "k")
