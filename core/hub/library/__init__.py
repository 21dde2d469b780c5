"""The researcher's library: bibliographic metadata per document, BibTeX and Zotero imports, BibTeX export.

:mod:`.metadata` holds the columns every document carries (venue, DOI, arXiv id, citation key, tags,
source kind) and the entry type both importers produce; :mod:`.bibtex` reads and writes ``.bib``
files; :mod:`.zotero` reads a Zotero database; :mod:`.importer` indexes entries into the hub.
"""
