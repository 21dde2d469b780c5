"""``paperpilot ingest zotero:PATH[#collection]`` (issue 29, item 1) over a Zotero library built through
Zotero's own tables (:mod:`tests.hub.zotero_db`): ten items, six with a PDF stored under
``storage/<key>/``, import in one command; the four without a PDF are indexed from their abstracts
and answer from them; a re-import changes nothing; an edited item (a newer ``dateModified``) is
updated; the database is read from a private copy, so a library Zotero holds locked imports and the
user's file is never written.

The six PDFs are full-text papers of the shared dev set (used as files to ingest, nothing else);
that test skips where the set is absent. The abstracts are invented for these tests.
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from core.hub.library.zotero import read_zotero
from core.hub.store import HubStore
from tests.hub.zotero_db import Item, ZoteroLibrary
from tests.support.cli import cli
from tests.support.web_replay import paper_pdf

FULLPAPERS = Path(__file__).resolve().parents[3] / "shared" / "eval" / "fullpapers" / "dev" / "docs"
if not FULLPAPERS.is_dir():
    FULLPAPERS = Path("/work/shared/eval/fullpapers/dev/docs")
SIX = ["mapreduce.pdf", "trustrank.pdf", "parallel_lda.pdf", "reverb_openie.pdf", "paraphrase_smt.pdf",
       "convnet_denoising.pdf"]

ABSTRACT_ONLY = [  # invented entries, no file attached
    Item("Tidal Memory Networks for Long Documents", [("Ines", "Varga"), ("Tom", "Okafor")],
         data={"date": "2019-07-02", "publicationTitle": "Journal of Synthetic Reading", "DOI": "10.4242/jsr.2019.11",
               "abstractNote": "Tidal memory networks store a document in rotating slots and recall the slot whose "
                               "key matches the question, reading documents of forty thousand tokens in one pass."},
         tags=["memory"], collections=["Reading"]),
    Item("Glacier Sampling for Diffusion Decoders", [("Pia", "Lund")], kind="conferencePaper",
         data={"date": "2021", "proceedingsTitle": "Proceedings of the Workshop on Slow Sampling",
               "extra": "Citation Key: lund2021glacier\narXiv: 2103.04567",
               "abstractNote": "Glacier sampling freezes the noise schedule after the twelfth step, halving "
                               "the decoding time of diffusion decoders with no loss in quality."},
         collections=["Generation"]),
    Item("Counting Heads in Sparse Attention", [("Raj", "Mehta")],
         data={"date": "2020-11", "url": "https://arxiv.org/abs/2011.07788v2",
               "abstractNote": "We count how many attention heads a sparse transformer needs and find that "
                               "six heads per layer keep ninety-eight percent of its accuracy."}),
    Item("Lantern: Probing Retrieval Augmented Readers", [("Mei", "Chen"), ("Omar", "Haddad"), ("Lea", "Brun")],
         data={"date": "2022-02-10", "abstractNote": "Lantern probes which retrieved passage a reader model used, "
                                                     "by masking passages one at a time and measuring the change."},
         editors=[("Ed", "Itor")], tags=["retrieval", "probing"]),
]


def library_with_pdfs(root: Path, pdfs: list[Path]) -> tuple[ZoteroLibrary, list[str]]:
    lib = ZoteroLibrary(root)
    keys = []
    for n, pdf in enumerate(pdfs):
        name = pdf.stem.replace("_", " ").title()
        keys.append(lib.add(Item(f"{name} (Zotero title)", [("Ada", f"Author{n}")], pdf=pdf,
                                 data={"date": f"{2000 + n}-01-01", "DOI": f"10.9999/zot.{n}",
                                       "publicationTitle": "Collected Papers"},
                                 tags=["library"], collections=["Reading"])))
    keys += [lib.add(item) for item in ABSTRACT_ONLY]
    return lib, keys


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


@pytest.mark.skipif(not FULLPAPERS.is_dir(), reason="the full-text dev set (shared/eval/fullpapers/dev) is absent")
def test_ten_items_six_pdfs_import_in_one_command_and_a_reimport_changes_nothing(home, tmp_path, capsys):
    lib, keys = library_with_pdfs(tmp_path / "Zotero", [FULLPAPERS / name for name in SIX])
    lib.close()
    before = _digest(lib.db_path)
    code, out, err = cli(capsys, "ingest", f"zotero:{lib.db_path}", "--collection", "zot", "--no-embed")
    assert code == 0, err
    assert "10 added, 0 updated, 0 unchanged, 0 failed" in out, out
    store = HubStore(home / "hub.sqlite3")
    docs = store.documents("zot")
    assert len(docs) == 10 and sum(d["doc_type"] == "pdf" for d in docs) == 6
    assert sum(d["doc_type"] == "abstract" for d in docs) == 4 and {d["source_kind"] for d in docs} == {"zotero"}
    mapreduce = next(d for d in docs if d["path"].endswith("mapreduce.pdf"))
    assert mapreduce["title"] == "Mapreduce (Zotero title)" and mapreduce["doi"] == "10.9999/zot.0"
    assert mapreduce["pages"] > 1 and len(store.doc_chunks(mapreduce["doc_id"])) > 5  # the full text, not the abstract
    store.close()

    code, out, _ = cli(capsys, "ingest", f"zotero:{lib.db_path}", "--collection", "zot", "--no-embed")
    assert code == 0 and "0 added, 0 updated, 10 unchanged" in out, out
    assert _digest(lib.db_path) == before  # the user's database was never written


def test_an_items_metadata_comes_through_and_an_edit_updates_only_it(home, tmp_path, capsys):
    pdf = tmp_path / "adapters.pdf"
    pdf.write_bytes(paper_pdf("working draft", [("1 Method", "Sparse adapters route tokens to two experts.")]))
    lib, keys = library_with_pdfs(tmp_path / "Zotero", [pdf])
    entries = {e.key: e for e in read_zotero(lib.db_path)}
    glacier = entries[keys[2]]
    assert (glacier.citation_key, glacier.arxiv_id, glacier.venue, glacier.year, glacier.authors) == (
        "lund2021glacier", "2103.04567", "Proceedings of the Workshop on Slow Sampling", 2021, ["Pia Lund"])
    assert entries[keys[3]].arxiv_id == "2011.07788"  # from the item's arXiv URL
    lantern = entries[keys[4]]
    assert lantern.authors == ["Mei Chen", "Omar Haddad", "Lea Brun"] and lantern.tags == ["probing", "retrieval"]
    assert entries[keys[1]].collections == ["Reading"] and entries[keys[0]].files == [
        tmp_path / "Zotero" / "storage" / lib.keys[2] / "adapters.pdf"]  # item, collection, attachment

    assert cli(capsys, "ingest", f"zotero:{lib.db_path}", "--collection", "zot", "--no-embed")[0] == 0
    lib.edit(keys[1], "title", "Tidal Memory Networks, Revisited", "2024-06-01 09:00:00")
    code, out, _ = cli(capsys, "ingest", f"zotero:{lib.db_path}", "--collection", "zot", "--no-embed")
    assert code == 0 and "0 added, 1 updated, 4 unchanged" in out, out
    store = HubStore(home / "hub.sqlite3")
    titles = {d["title"] for d in store.documents("zot")}
    assert "Tidal Memory Networks, Revisited" in titles and "Tidal Memory Networks for Long Documents" not in titles
    store.close()
    lib.close()


def test_a_collection_selects_its_items_and_its_subcollections(home, tmp_path, capsys):
    lib, _ = library_with_pdfs(tmp_path / "Zotero", [])
    lib.add(Item("Sub Item", [("Z", "Zed")], data={"abstractNote": "In a subcollection."}, collections=["Deep"]))
    lib.subcollection("Deep", "Generation")
    lib.close()
    code, out, err = cli(capsys, "ingest", f"zotero:{lib.db_path}#generation", "--collection", "gen", "--no-embed")
    assert code == 0 and "2 added" in out, (out, err)
    store = HubStore(home / "hub.sqlite3")
    assert sorted(d["title"] for d in store.documents("gen")) == ["Glacier Sampling for Diffusion Decoders", "Sub Item"]
    store.close()


def test_a_library_zotero_holds_locked_imports_from_a_copy(home, tmp_path, capsys):
    lib, keys = library_with_pdfs(tmp_path / "Zotero", [])
    lib.trash(keys[3])
    lib.close()
    zotero = sqlite3.connect(lib.db_path)  # Zotero running: an exclusive lock on its database
    zotero.execute("PRAGMA locking_mode=EXCLUSIVE")
    zotero.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(sqlite3.OperationalError):
            sqlite3.connect(f"file:{lib.db_path}?mode=ro", uri=True, timeout=0.1).execute("SELECT 1 FROM items").fetchone()
        code, out, err = cli(capsys, "ingest", f"zotero:{lib.db_path}", "--collection", "zot", "--no-embed")
    finally:
        zotero.rollback()
        zotero.close()
    assert code == 0 and "3 added" in out, (out, err)  # the trashed item is not imported


def test_abstract_only_items_answer_from_their_abstract(home, tmp_path, capsys):
    lib, _ = library_with_pdfs(tmp_path / "Zotero", [])
    lib.close()
    assert cli(capsys, "ingest", f"zotero:{lib.db_path}", "--collection", "zot")[0] == 0
    code, out, err = cli(capsys, "ask", "--json", "--llm", "offline", "--collection", "zot",
                         "How many attention heads per layer does a sparse transformer need?")
    assert code == 0, err
    import json

    result = json.loads(out)
    assert "six" in result["final_answer"].lower(), result["final_answer"]
    top = result["sources"][0]
    assert top["title"] == "Counting Heads in Sparse Attention"
    assert top["metadata"]["arxiv_id"] == "2011.07788" and top["metadata"]["authors"] == ["Raj Mehta"]


@pytest.mark.parametrize("make, says", [
    (lambda p: None, "no Zotero database at"),
    (lambda p: p.write_text("not a database " * 100), "is not a Zotero database"),
    (lambda p: sqlite3.connect(p).execute("CREATE TABLE notes(x)").connection.commit(), "is not a Zotero database"),
])
def test_a_path_that_is_not_a_zotero_database_is_one_line_exit_2(home, tmp_path, capsys, make, says):
    db = tmp_path / "zotero.sqlite"
    make(db)
    code, out, err = cli(capsys, "ingest", f"zotero:{db}", "--collection", "zot")
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and says in lines[0] and "Traceback" not in err, err
    assert not (home / "hub.sqlite3").exists()


def test_an_unknown_collection_is_one_line_exit_2(home, tmp_path, capsys):
    lib, _ = library_with_pdfs(tmp_path / "Zotero", [])
    lib.close()
    code, _, err = cli(capsys, "ingest", f"zotero:{lib.db_path}#Nope", "--collection", "zot")
    assert code == 2 and err.strip().endswith(f"no collection named 'Nope' in {lib.db_path}"), err


def test_a_zotero_import_on_postgres_is_incremental_too(home, tmp_path, capsys, monkeypatch, pg_dsn):
    """``hub.backend: postgres``: the items land in PostgreSQL and a re-import changes nothing
    (the last ``dateModified`` seen is kept in the hub's meta, which PostgreSQL has too)."""
    from core.hub.pg.store import PgStore

    monkeypatch.setenv("PAPERPILOT_HUB_BACKEND", "postgres")
    monkeypatch.setenv("PAPERPILOT_HUB_DSN", pg_dsn)
    pdf = tmp_path / "tidal.pdf"
    pdf.write_bytes(paper_pdf("scan0007", [("1 Method", "Tidal memory rotates its slots every page.")]))
    lib, _ = library_with_pdfs(tmp_path / "Zotero", [pdf])
    lib.close()
    code, out, err = cli(capsys, "ingest", f"zotero:{lib.db_path}", "--collection", "zot", "--no-embed")
    assert code == 0 and "5 added, 0 updated, 0 unchanged, 0 failed" in out, err
    pg = PgStore(pg_dsn)
    docs = pg.documents("zot")
    assert sorted(d["doc_type"] for d in docs) == ["abstract"] * 4 + ["pdf"]
    assert {d["source_kind"] for d in docs} == {"zotero"} and not (home / "hub.sqlite3").exists()
    pg.close()
    code, out, _ = cli(capsys, "ingest", f"zotero:{lib.db_path}", "--collection", "zot", "--no-embed")
    assert code == 0 and "0 added, 0 updated, 5 unchanged" in out, out
