"""Build a Zotero library (``zotero.sqlite`` + ``storage/``) the way Zotero lays one out, for the import tests.

The tables and columns are Zotero's own, as its schema files declare them: ``resource/schema/userdata.sql``
(user data schema 107) at commit f7d895ab52ce0e2ebaca37d40925578a912ace39 and ``resource/schema/system.sql``
at commit d2f028d797c5c0ae3d77d54a5bbabaa5cd4a961b of https://github.com/zotero/zotero. Those files are
AGPL-3.0 and are not copied into this repository: the statements below restate, for the tables the
importer reads (and ``deletedItems``), the same table names, column names, types and keys, without the
tables the importer never touches (sync, full-text words, feeds, annotations, ...). Zotero fills
``fields``/``fieldsCombined`` and ``itemTypes``/``itemTypesCombined`` from its global schema at
start-up; the ids used here are Zotero's (``title`` 110, ``abstractNote`` 90, ``date`` 14, ``DOI`` 26,
``publicationTitle`` 12, ``url`` 1, ``extra`` 22, ``proceedingsTitle`` 114; ``journalArticle`` 4,
``conferencePaper`` 33, ``attachment`` 14, ``note`` 1). Items are written row by row through those tables:
``items`` + ``itemData``/``itemDataValues`` + ``creators``/``itemCreators`` + ``itemAttachments`` (a
stored file is ``storage:<name>`` under ``storage/<attachment key>/``) + ``tags``/``itemTags`` +
``collections``/``collectionItems``.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import string
from dataclasses import dataclass, field
from pathlib import Path

ZOTERO_TABLES = """
CREATE TABLE version (schema TEXT PRIMARY KEY, version INT NOT NULL);
CREATE TABLE libraries (libraryID INTEGER PRIMARY KEY, type TEXT NOT NULL, editable INT NOT NULL,
  filesEditable INT NOT NULL, version INT NOT NULL DEFAULT 0, storageVersion INT NOT NULL DEFAULT 0,
  lastSync INT NOT NULL DEFAULT 0, archived INT NOT NULL DEFAULT 0);
CREATE TABLE itemTypes (itemTypeID INTEGER PRIMARY KEY, typeName TEXT, templateItemTypeID INT, display INT DEFAULT 1);
CREATE TABLE itemTypesCombined (itemTypeID INT NOT NULL, typeName TEXT NOT NULL, display INT DEFAULT 1 NOT NULL,
  custom INT NOT NULL, PRIMARY KEY (itemTypeID));
CREATE TABLE fieldFormats (fieldFormatID INTEGER PRIMARY KEY, regex TEXT, isInteger INT);
CREATE TABLE fields (fieldID INTEGER PRIMARY KEY, fieldName TEXT, fieldFormatID INT,
  FOREIGN KEY (fieldFormatID) REFERENCES fieldFormats(fieldFormatID));
CREATE TABLE fieldsCombined (fieldID INT NOT NULL, fieldName TEXT NOT NULL, label TEXT, fieldFormatID INT,
  custom INT NOT NULL, PRIMARY KEY (fieldID));
CREATE TABLE creatorTypes (creatorTypeID INTEGER PRIMARY KEY, creatorType TEXT);
CREATE TABLE items (itemID INTEGER PRIMARY KEY, itemTypeID INT NOT NULL,
  dateAdded TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, dateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, libraryID INT NOT NULL, key TEXT NOT NULL,
  version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0, UNIQUE (libraryID, key),
  FOREIGN KEY (libraryID) REFERENCES libraries(libraryID) ON DELETE CASCADE);
CREATE TABLE itemDataValues (valueID INTEGER PRIMARY KEY, value UNIQUE);
CREATE TABLE itemData (itemID INT, fieldID INT, valueID, PRIMARY KEY (itemID, fieldID),
  FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
  FOREIGN KEY (fieldID) REFERENCES fieldsCombined(fieldID), FOREIGN KEY (valueID) REFERENCES itemDataValues(valueID));
CREATE TABLE itemNotes (itemID INTEGER PRIMARY KEY, parentItemID INT, note TEXT, title TEXT,
  FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
  FOREIGN KEY (parentItemID) REFERENCES items(itemID) ON DELETE CASCADE);
CREATE TABLE itemAttachments (itemID INTEGER PRIMARY KEY, parentItemID INT, linkMode INT, contentType TEXT,
  charsetID INT, path TEXT, syncState INT DEFAULT 0, storageModTime INT, storageHash TEXT,
  FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
  FOREIGN KEY (parentItemID) REFERENCES items(itemID) ON DELETE CASCADE);
CREATE TABLE tags (tagID INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE itemTags (itemID INT NOT NULL, tagID INT NOT NULL, type INT NOT NULL, PRIMARY KEY (itemID, tagID),
  FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE, FOREIGN KEY (tagID) REFERENCES tags(tagID) ON DELETE CASCADE);
CREATE TABLE creators (creatorID INTEGER PRIMARY KEY, firstName TEXT, lastName TEXT, fieldMode INT,
  UNIQUE (lastName, firstName, fieldMode));
CREATE TABLE itemCreators (itemID INT NOT NULL, creatorID INT NOT NULL, creatorTypeID INT NOT NULL DEFAULT 1,
  orderIndex INT NOT NULL DEFAULT 0, PRIMARY KEY (itemID, creatorID, creatorTypeID, orderIndex),
  UNIQUE (itemID, orderIndex), FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE,
  FOREIGN KEY (creatorID) REFERENCES creators(creatorID) ON DELETE CASCADE,
  FOREIGN KEY (creatorTypeID) REFERENCES creatorTypes(creatorTypeID));
CREATE TABLE collections (collectionID INTEGER PRIMARY KEY, collectionName TEXT NOT NULL,
  parentCollectionID INT DEFAULT NULL, clientDateModified TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
  libraryID INT NOT NULL, key TEXT NOT NULL, version INT NOT NULL DEFAULT 0, synced INT NOT NULL DEFAULT 0,
  UNIQUE (libraryID, key));
CREATE TABLE collectionItems (collectionID INT NOT NULL, itemID INT NOT NULL, orderIndex INT NOT NULL DEFAULT 0,
  PRIMARY KEY (collectionID, itemID));
CREATE TABLE deletedItems (itemID INTEGER PRIMARY KEY, dateDeleted DEFAULT CURRENT_TIMESTAMP NOT NULL,
  FOREIGN KEY (itemID) REFERENCES items(itemID) ON DELETE CASCADE);
"""
FIELDS = {1: "url", 12: "publicationTitle", 14: "date", 22: "extra", 26: "DOI", 90: "abstractNote", 110: "title",
          114: "proceedingsTitle"}
ITEM_TYPES = {1: "note", 4: "journalArticle", 14: "attachment", 33: "conferencePaper"}
CREATOR_TYPES = {1: "author", 3: "editor"}


@dataclass
class Item:
    title: str
    authors: list[tuple[str, str]] = field(default_factory=list)  # (first, last)
    kind: str = "journalArticle"
    data: dict[str, str] = field(default_factory=dict)  # other Zotero fields: date, DOI, url, extra, ...
    pdf: Path | None = None  # copied into storage/<attachment key>/
    tags: list[str] = field(default_factory=list)
    collections: list[str] = field(default_factory=list)
    editors: list[tuple[str, str]] = field(default_factory=list)
    modified: str = "2024-05-01 10:00:00"


class ZoteroLibrary:
    """A Zotero data directory at ``root``: ``zotero.sqlite`` and ``storage/``."""

    def __init__(self, root: Path, seed: int = 29) -> None:
        self.root = root
        self.db_path = root / "zotero.sqlite"
        root.mkdir(parents=True, exist_ok=True)
        self._rand = random.Random(seed)
        self.db = sqlite3.connect(self.db_path)
        self.db.executescript(ZOTERO_TABLES)
        self.db.execute("INSERT INTO version VALUES('userdata', 107)")
        self.db.execute("INSERT INTO libraries(libraryID, type, editable, filesEditable) VALUES(1, 'user', 1, 1)")
        for fid, name in FIELDS.items():
            self.db.execute("INSERT INTO fields VALUES(?, ?, NULL)", (fid, name))
            self.db.execute("INSERT INTO fieldsCombined VALUES(?, ?, NULL, NULL, 0)", (fid, name))
        for tid, name in ITEM_TYPES.items():
            self.db.execute("INSERT INTO itemTypes VALUES(?, ?, NULL, 1)", (tid, name))
            self.db.execute("INSERT INTO itemTypesCombined VALUES(?, ?, 1, 0)", (tid, name))
        self.db.executemany("INSERT INTO creatorTypes VALUES(?, ?)", CREATOR_TYPES.items())
        self.keys: list[str] = []
        self.db.commit()

    def _key(self) -> str:
        key = "".join(self._rand.choice(string.ascii_uppercase + string.digits) for _ in range(8))
        self.keys.append(key)
        return key

    def _item(self, type_name: str, modified: str) -> tuple[int, str]:
        type_id = next(i for i, n in ITEM_TYPES.items() if n == type_name)
        key = self._key()
        cur = self.db.execute("INSERT INTO items(itemTypeID, dateAdded, dateModified, clientDateModified, libraryID, key)"
                              " VALUES(?, ?, ?, ?, 1, ?)", (type_id, modified, modified, modified, key))
        return cur.lastrowid, key

    def _set(self, item: int, name: str, value: str) -> None:
        fid = next(i for i, n in FIELDS.items() if n == name)
        self.db.execute("INSERT OR IGNORE INTO itemDataValues(value) VALUES(?)", (value,))
        vid = self.db.execute("SELECT valueID FROM itemDataValues WHERE value=?", (value,)).fetchone()[0]
        self.db.execute("INSERT OR REPLACE INTO itemData(itemID, fieldID, valueID) VALUES(?, ?, ?)", (item, fid, vid))

    def add(self, it: Item) -> str:
        """Write one item (and its PDF attachment, tags, collections); its Zotero key."""
        item, key = self._item(it.kind, it.modified)
        self._set(item, "title", it.title)
        for name, value in it.data.items():
            self._set(item, name, value)
        people = [(p, 1) for p in it.authors] + [(p, 3) for p in it.editors]
        for order, ((first, last), ctype) in enumerate(people):
            self.db.execute("INSERT OR IGNORE INTO creators(firstName, lastName, fieldMode) VALUES(?, ?, 0)", (first, last))
            cid = self.db.execute("SELECT creatorID FROM creators WHERE firstName=? AND lastName=?",
                                  (first, last)).fetchone()[0]
            self.db.execute("INSERT INTO itemCreators VALUES(?, ?, ?, ?)", (item, cid, ctype, order))
        for tag in it.tags:
            self.db.execute("INSERT OR IGNORE INTO tags(name) VALUES(?)", (tag,))
            tid = self.db.execute("SELECT tagID FROM tags WHERE name=?", (tag,)).fetchone()[0]
            self.db.execute("INSERT INTO itemTags VALUES(?, ?, 0)", (item, tid))
        for name in it.collections:
            row = self.db.execute("SELECT collectionID FROM collections WHERE collectionName=?", (name,)).fetchone()
            cid = row[0] if row else self.db.execute(
                "INSERT INTO collections(collectionName, libraryID, key) VALUES(?, 1, ?)", (name, self._key())).lastrowid
            self.db.execute("INSERT INTO collectionItems(collectionID, itemID) VALUES(?, ?)", (cid, item))
        if it.pdf is not None:
            att, akey = self._item("attachment", it.modified)
            folder = self.root / "storage" / akey
            folder.mkdir(parents=True)
            shutil.copyfile(it.pdf, folder / it.pdf.name)
            self.db.execute("INSERT INTO itemAttachments(itemID, parentItemID, linkMode, contentType, path)"
                            " VALUES(?, ?, 0, 'application/pdf', ?)", (att, item, f"storage:{it.pdf.name}"))
            self._set(att, "title", "Full Text PDF")
        self.db.commit()
        return key

    def subcollection(self, name: str, parent: str) -> None:
        pid = self.db.execute("SELECT collectionID FROM collections WHERE collectionName=?", (parent,)).fetchone()[0]
        self.db.execute("UPDATE collections SET parentCollectionID=? WHERE collectionName=?", (pid, name))
        self.db.commit()

    def edit(self, key: str, name: str, value: str, modified: str) -> None:
        """Change one field of an item, as Zotero does: the value and the item's ``dateModified``."""
        item = self.db.execute("SELECT itemID FROM items WHERE key=?", (key,)).fetchone()[0]
        self._set(item, name, value)
        self.db.execute("UPDATE items SET dateModified=?, clientDateModified=? WHERE itemID=?", (modified, modified, item))
        self.db.commit()

    def trash(self, key: str) -> None:
        item = self.db.execute("SELECT itemID FROM items WHERE key=?", (key,)).fetchone()[0]
        self.db.execute("INSERT INTO deletedItems(itemID) VALUES(?)", (item,))
        self.db.commit()

    def close(self) -> None:
        self.db.close()
