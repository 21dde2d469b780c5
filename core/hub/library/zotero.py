"""Read a Zotero library (``zotero.sqlite``) into :class:`LibraryEntry` items.

Zotero keeps its database locked while it runs, so the file is copied (with its ``-wal`` journal,
when there is one) into a private temporary folder and the copy is opened read-only; the user's
database is never opened. Each regular item (not a note, attachment or annotation, not in the trash)
gives its title, creators (authors first; every creator when it has no author), year (from
``date``), venue (``publicationTitle``, ``proceedingsTitle``, ``conferenceName`` or ``bookTitle``),
DOI, arXiv id (from its URL, ``extra`` or ``archiveID``), abstract, tags, collections, the Better
BibTeX citation key (``Citation Key: ...`` in ``extra``, or Zotero 7's ``citationKey`` field) and
its PDF attachments: files Zotero stores (``storage:<name>`` under ``storage/<attachment key>/``)
and linked files with an absolute path. ``dateModified`` is kept for incremental re-imports.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import tempfile
from collections import defaultdict
from pathlib import Path

from core.hub.library.metadata import LibraryEntry, LibraryError, find_arxiv, normalize_doi

DEFAULT_DB = Path("~/Zotero/zotero.sqlite")
_SKIP_TYPES = {"note", "attachment", "annotation"}
_VENUES = ("publicationTitle", "proceedingsTitle", "conferenceName", "bookTitle")
_NEEDED = {"items", "itemData", "itemDataValues", "itemCreators", "creators", "itemAttachments"}
_CITATION_KEY = re.compile(r"^\s*citation key\s*:\s*(\S+)\s*$", re.I | re.M)
_EXTRA_DOI = re.compile(r"^\s*doi\s*:\s*(\S+)\s*$", re.I | re.M)


class ZoteroError(LibraryError):
    """The path is not a Zotero database that can be read: the one-line reason."""


def parse_source(spec: str) -> tuple[Path, str | None]:
    """``zotero:[PATH][#collection]`` → (database path, collection name or None)."""
    rest = spec.split(":", 1)[1] if ":" in spec else ""
    path, _, coll = rest.partition("#")
    db = Path(path).expanduser() if path.strip() else DEFAULT_DB.expanduser()
    if db.is_dir():
        db = db / "zotero.sqlite"
    return db, coll.strip() or None


def read_zotero(db_path: Path, collection: str | None = None) -> list[LibraryEntry]:
    """The items of the library at ``db_path`` (those in ``collection`` and its subcollections when
    one is named). :class:`ZoteroError` when it is missing, not a Zotero database, or has no such
    collection."""
    if not db_path.is_file():
        raise ZoteroError(f"no Zotero database at {db_path}")
    with tempfile.TemporaryDirectory(prefix="paperpilot-zotero-") as tmp:  # created 0700
        copy = Path(tmp) / "zotero.sqlite"
        try:
            shutil.copyfile(db_path, copy)
            wal = db_path.with_name(db_path.name + "-wal")
            if wal.is_file():
                shutil.copyfile(wal, copy.with_name(copy.name + "-wal"))
        except OSError as exc:
            raise ZoteroError(f"cannot copy {db_path}: {exc.strerror or type(exc).__name__}") from None
        db = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
        try:
            return _read(db, db_path.parent / "storage", collection, db_path)
        except sqlite3.DatabaseError as exc:
            raise ZoteroError(f"{db_path} is not a Zotero database ({exc})") from None
        finally:
            db.close()


def _table(db: sqlite3.Connection, *names: str) -> str:
    have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    return next((n for n in names if n in have), "")


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in db.execute(f"PRAGMA table_info({table})")}


def _read(db: sqlite3.Connection, storage: Path, collection: str | None, db_path: Path) -> list[LibraryEntry]:
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    fields_t = _table(db, "fieldsCombined", "fields")
    types_t = _table(db, "itemTypesCombined", "itemTypes")
    if not _NEEDED <= tables or not fields_t or not types_t:
        missing = sorted((_NEEDED - tables) | ({"fields"} if not fields_t else set()))
        raise ZoteroError(f"{db_path} is not a Zotero database (no {', '.join(missing) or 'itemTypes'} table)")
    deleted = "AND i.itemID NOT IN (SELECT itemID FROM deletedItems)" if "deletedItems" in tables else ""
    items = {r[0]: r[1:] for r in db.execute(
        f"SELECT i.itemID, i.key, i.dateModified, t.typeName FROM items i JOIN {types_t} t"
        f" ON t.itemTypeID = i.itemTypeID WHERE 1 {deleted}") if r[3] not in _SKIP_TYPES}
    wanted = _in_collection(db, collection, db_path) if collection else None
    data: dict[int, dict[str, str]] = defaultdict(dict)
    for item, name, value in db.execute(
            f"SELECT d.itemID, f.fieldName, v.value FROM itemData d JOIN itemDataValues v ON v.valueID = d.valueID"
            f" JOIN {fields_t} f ON f.fieldID = d.fieldID"):
        data[item][name] = str(value)
    return [_entry(item, key, modified, kind, data[item], db, storage)
            for item, (key, modified, kind) in sorted(items.items())
            if (wanted is None or item in wanted) and data[item].get("title")]


def _in_collection(db: sqlite3.Connection, name: str, db_path: Path) -> set[int]:
    if not _table(db, "collections"):
        raise ZoteroError(f"{db_path} has no collections")
    rows = list(db.execute("SELECT collectionID, collectionName, parentCollectionID FROM collections"))
    ids = {cid for cid, cname, _ in rows if cname.casefold() == name.casefold()}
    if not ids:
        raise ZoteroError(f"no collection named {name!r} in {db_path}")
    grew = True
    while grew:  # subcollections too
        more = {cid for cid, _, parent in rows if parent in ids} - ids
        ids |= more
        grew = bool(more)
    marks = ",".join("?" * len(ids))
    return {r[0] for r in db.execute(f"SELECT itemID FROM collectionItems WHERE collectionID IN ({marks})", list(ids))}


def _entry(item: int, key: str, modified: str, kind: str, d: dict[str, str], db: sqlite3.Connection,
           storage: Path) -> LibraryEntry:
    extra = d.get("extra", "")
    year = re.search(r"\b(1[5-9]\d\d|2\d\d\d)\b", d.get("date", ""))
    cite = d.get("citationKey") or ((m.group(1)) if (m := _CITATION_KEY.search(extra)) else None)
    doi = normalize_doi(d.get("DOI")) or (normalize_doi(m.group(1)) if (m := _EXTRA_DOI.search(extra)) else None)
    return LibraryEntry(
        key=key, citation_key=cite, title=d["title"].strip(), authors=_creators(db, item),
        year=int(year.group(1)) if year else None, venue=next((d[v] for v in _VENUES if d.get(v)), None),
        doi=doi, arxiv_id=find_arxiv(d.get("url"), d.get("archiveID"), extra, d.get("publicationTitle")),
        url=d.get("url") or None, abstract=d.get("abstractNote", ""), tags=_tags(db, item),
        collections=_collections(db, item), files=_pdfs(db, item, storage), entry_type=kind,
        source_kind="zotero", modified=str(modified))


def _creators(db: sqlite3.Connection, item: int) -> list[str]:
    has_types = bool(_table(db, "creatorTypes"))
    rows = list(db.execute(
        "SELECT c.firstName, c.lastName, " + ("t.creatorType" if has_types else "'author'")
        + " FROM itemCreators ic JOIN creators c ON c.creatorID = ic.creatorID"
        + (" LEFT JOIN creatorTypes t ON t.creatorTypeID = ic.creatorTypeID" if has_types else "")
        + " WHERE ic.itemID=? ORDER BY ic.orderIndex", (item,)))
    authors = [r for r in rows if r[2] == "author"] or rows
    return [" ".join(x for x in (first or "", last or "") if x).strip() for first, last, _ in authors]


def _tags(db: sqlite3.Connection, item: int) -> list[str]:
    if not _table(db, "itemTags"):
        return []
    return [r[0] for r in db.execute("SELECT t.name FROM itemTags it JOIN tags t ON t.tagID = it.tagID"
                                     " WHERE it.itemID=? ORDER BY t.name", (item,))]


def _collections(db: sqlite3.Connection, item: int) -> list[str]:
    if not _table(db, "collectionItems"):
        return []
    return [r[0] for r in db.execute("SELECT c.collectionName FROM collectionItems ci JOIN collections c"
                                     " ON c.collectionID = ci.collectionID WHERE ci.itemID=? ORDER BY 1", (item,))]


def _pdfs(db: sqlite3.Connection, item: int, storage: Path) -> list[Path]:
    cols = _columns(db, "itemAttachments")
    parent = "parentItemID" if "parentItemID" in cols else "sourceItemID"
    ctype = "contentType" if "contentType" in cols else "mimeType"
    out = []
    for path, content_type, akey in db.execute(
            f"SELECT a.path, a.{ctype}, i.key FROM itemAttachments a JOIN items i ON i.itemID = a.itemID"
            f" WHERE a.{parent}=? ORDER BY a.itemID", (item,)):
        if not path:
            continue
        if path.startswith("storage:"):
            file = storage / akey / path.removeprefix("storage:")
        elif Path(path).is_absolute():
            file = Path(path)
        else:
            continue  # a path relative to Zotero's linked-attachment base folder, which lives in prefs.js
        if (content_type == "application/pdf" or file.suffix.lower() == ".pdf") and file.is_file():
            out.append(file)
    return out
