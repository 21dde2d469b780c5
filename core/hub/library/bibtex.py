"""BibTeX/BibLaTeX in and out (bibtexparser v2).

In: :func:`read_bib` turns each entry into a :class:`LibraryEntry`: title, authors, year (``year``
or BibLaTeX ``date``), venue (``journal``/``journaltitle``/``booktitle``), DOI, arXiv id (``eprint``
with ``archiveprefix``/``eprinttype`` arXiv, or an arXiv URL or journal line), keywords as tags, the
abstract, and the PDFs its ``file`` field names in any of the three common forms: a plain path list
(Better BibTeX), ``Description:path:Type`` (Zotero's own export and JabRef, ``\\:`` escaped) and
BibDesk's ``bdsk-file-N`` (a base64 property list holding ``relativePath``). Relative paths are
relative to the ``.bib`` file. LaTeX in values is decoded (``{\\"u}`` → ``ü``, protective braces
dropped).

Out: :func:`write_bib` writes documents' metadata as entries; a document without a citation key
gets ``authorYEARword`` (the first author's surname, the year, the title's first content word),
made unique with ``a``, ``b``, ... suffixes.
"""

from __future__ import annotations

import base64
import binascii
import plistlib
import re
from pathlib import Path

from core.hub.library.metadata import LibraryEntry, LibraryError, find_arxiv, normalize_doi
from core.text import fold_ascii


class BibError(LibraryError):
    """The file is not a BibTeX file that can be read: the one-line reason."""


_VENUE_FIELDS = ("journal", "journaltitle", "booktitle")
_STOP = {"a", "an", "the", "on", "of", "for", "in", "to", "and", "with", "towards", "toward", "via", "is", "are"}
# A venue that is a meeting's (exported as @inproceedings with a booktitle): its name says so. A short
# name with a year ("NeurIPS 2017") is not enough: journals are named so too ("JMLR 2020").
_PROCEEDINGS = re.compile(r"\b(proceedings|conference|workshop|symposium|meeting|congress)\b", re.I)


def read_bib(path: Path, max_bytes: int | None = None) -> tuple[list[LibraryEntry], list[str]]:
    """The entries of a ``.bib`` file and notes on what could not be read (a block, a missing file).
    :class:`BibError` when the file cannot be read or holds no entry at all."""
    import bibtexparser
    from bibtexparser.middlewares import LatexDecodingMiddleware

    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BibError(f"cannot read {path}: {exc.strerror or type(exc).__name__}") from None
    if max_bytes is not None and len(raw) > max_bytes:
        raise BibError(f"{path} is larger than {max_bytes} bytes (limits.ingest_text_bytes)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    _quiet()
    # braced groups kept: "{OpenAI Research}" stays one author; clean() drops the braces elsewhere
    lib = bibtexparser.parse_string(text, append_middleware=[LatexDecodingMiddleware(keep_braced_groups=True)])
    notes = [f"line {getattr(b, 'start_line', 0) + 1}: an entry that could not be parsed was skipped"
             for b in lib.failed_blocks]
    entries = [_entry(e, path.parent, notes) for e in lib.entries]
    entries = [e for e in entries if e is not None]
    if not entries:
        why = f" ({len(lib.failed_blocks)} malformed block(s))" if lib.failed_blocks else ""
        raise BibError(f"{path} holds no BibTeX entry that can be read{why}")
    return entries, notes


def _quiet() -> None:
    """bibtexparser logs each malformed block; they are reported as notes instead."""
    import logging

    log = logging.getLogger("bibtexparser")
    if not log.handlers:
        log.addHandler(logging.NullHandler())
        log.propagate = False


def _value(entry, name: str) -> str:
    field = entry.fields_dict.get(name) or next((f for k, f in entry.fields_dict.items() if k.lower() == name), None)
    return clean(str(field.value)) if field is not None and field.value is not None else ""


def clean(value: str) -> str:
    """A decoded BibTeX value as plain text: protective braces dropped, whitespace collapsed."""
    return re.sub(r"\s+", " ", value.replace("{", "").replace("}", "")).strip()


def _entry(e, base: Path, notes: list[str]) -> LibraryEntry | None:
    title = _value(e, "title")
    if not title:
        notes.append(f"@{e.key}: no title, skipped")
        return None
    year_text = _value(e, "year") or _value(e, "date")
    m = re.search(r"\b(1[5-9]\d\d|2\d\d\d)\b", year_text)
    venue = next((v for f in _VENUE_FIELDS if (v := _value(e, f))), None)
    eprint_type = (_value(e, "archiveprefix") or _value(e, "eprinttype")).lower()
    eprint = _value(e, "eprint")
    arxiv = (re.sub(r"v\d+$", "", eprint) if eprint and eprint_type == "arxiv" else None) or find_arxiv(
        _value(e, "url"), venue, _value(e, "note"))
    files, missing = bib_files(e, base)
    for f in missing:
        notes.append(f"@{e.key}: file {f} not found, indexed from its abstract")
    tags = [t.strip() for t in re.split(r"[,;]", _value(e, "keywords")) if t.strip()]
    return LibraryEntry(key=e.key, citation_key=e.key, title=title, authors=split_authors(_value_raw(e, "author")),
                        year=int(m.group(1)) if m else None, venue=venue, doi=normalize_doi(_value(e, "doi")),
                        arxiv_id=arxiv, url=_value(e, "url") or None, abstract=_value(e, "abstract"), tags=tags,
                        files=files, entry_type=e.entry_type.lower(), source_kind="bib")


def _value_raw(entry, name: str) -> str:
    """A value with its braces kept (an author list: ``{OpenAI}`` is one name, not split)."""
    field = entry.fields_dict.get(name)
    return re.sub(r"\s+", " ", str(field.value)).strip() if field is not None and field.value is not None else ""


def split_authors(value: str) -> list[str]:
    """A BibTeX name list as "First Last" names: split on ``and`` outside braces; ``Last, First``
    turned around; ``others`` dropped."""
    names, depth, start = [], 0, 0
    for i, ch in enumerate(value):
        depth += ch == "{"
        depth -= ch == "}"
        if depth == 0 and value[i:i + 5].lower() == " and ":
            names.append(value[start:i])
            start = i + 5
    names.append(value[start:])
    out = []
    for name in (clean(n) for n in names):
        if not name or name.lower() == "others":
            continue
        if "," in name:
            last, first = (p.strip() for p in name.split(",", 1))
            name = f"{first} {last}".strip()
        out.append(name)
    return out


def bib_files(entry, base: Path) -> tuple[list[Path], list[str]]:
    """(existing PDFs, names of those missing) that the entry's ``file`` and ``bdsk-file-N`` fields point at."""
    found: list[Path] = []
    missing: list[str] = []
    candidates: list[str] = []
    for name, field in entry.fields_dict.items():
        if field.value is None:
            continue
        if name.lower() == "file":
            candidates += _file_field(str(field.value))
        elif name.lower().startswith("bdsk-file-"):
            candidates += _bibdesk(str(field.value))
    for c in candidates:
        p = Path(c).expanduser()
        p = p if p.is_absolute() else base / p
        if p.suffix.lower() != ".pdf":
            continue
        (found if p.is_file() else missing).append(p if p.is_file() else str(c))
    return list(dict.fromkeys(found)), missing


def _file_field(value: str) -> list[str]:
    """Paths in a ``file`` field: ``;``-separated parts, each a path or ``Description:path:Type``."""
    parts = re.split(r"(?<!\\);", value.strip().strip("{}"))
    out = []
    for part in (p.strip() for p in parts):
        if not part:
            continue
        pieces = re.split(r"(?<!\\):", part)
        if len(pieces) >= 3:  # Description:path:Type (a Windows drive's colon is escaped as \:)
            path = ":".join(pieces[1:-1])
        else:
            path = part
        out.append(path.replace("\\:", ":").replace("\\;", ";").replace("\\\\", "\\"))
    return out


def _bibdesk(value: str) -> list[str]:
    """The ``relativePath`` inside a BibDesk ``bdsk-file-N`` value (base64 of a keyed-archive plist)."""
    try:
        data = plistlib.loads(base64.b64decode(re.sub(r"\s+", "", value.strip("{}"))))
    except (binascii.Error, ValueError, plistlib.InvalidFileException):
        return []
    objects = data.get("$objects") if isinstance(data, dict) else None
    if isinstance(data, dict) and isinstance(data.get("relativePath"), str):
        return [data["relativePath"]]
    if not isinstance(objects, list):
        return []
    for obj in objects:
        if isinstance(obj, dict) and "relativePath" in obj:
            ref = obj["relativePath"]
            idx = getattr(ref, "data", ref)
            if isinstance(idx, int) and 0 <= idx < len(objects) and isinstance(objects[idx], str):
                return [objects[idx]]
    return []


# -- out ---------------------------------------------------------------------------------------------
def make_key(doc: dict) -> str:
    """``authorYEARword`` for a document without a citation key (``anon``/``nd`` when unknown)."""
    authors = doc.get("authors") or []
    surname = re.sub(r"[^a-z]", "", fold_ascii(authors[0].split()[-1]).lower()) if authors and authors[0].split() else ""
    words = [w for w in re.findall(r"[a-z0-9]+", fold_ascii(doc.get("title") or "").lower()) if w not in _STOP]
    return f"{surname or 'anon'}{doc.get('year') or 'nd'}{words[0] if words else ''}"


def assign_keys(docs: list[dict]) -> dict[str, str]:
    """doc_id -> a unique citation key: the stored one where there is one, else :func:`make_key`
    with ``a``, ``b``, ... appended on a clash."""
    keys: dict[str, str] = {}
    taken = {d["citation_key"] for d in docs if d.get("citation_key")}
    for d in docs:
        if d.get("citation_key"):
            keys[d["doc_id"]] = d["citation_key"]
            continue
        base = make_key(d)
        key, n = base, 0
        while key in taken:
            key = f"{base}{chr(ord('a') + n % 26)}{'' if n < 26 else n // 26}"
            n += 1
        taken.add(key)
        keys[d["doc_id"]] = key
    return keys


def _escape(value: str) -> str:
    value = re.sub(r"([&%$#_])", r"\\\1", value.replace("\\", "\\textbackslash{}"))
    return value.replace("{", "\\{").replace("}", "\\}").replace("\\textbackslash\\{\\}", "\\textbackslash{}")


_ET_AL = re.compile(r"^(?:et\.?\s*al\.?|others|and others)$", re.I)


def _author(name: str) -> str:
    if _ET_AL.match(name.strip()):
        return "others"  # BibTeX's word for the authors a list leaves out ("et al." is no person)
    if (cut := re.sub(r"\s+et\.?\s*al\.?$", "", name.strip())) != name.strip():
        return f"{_author(cut)} and others"  # one stored name "Smith et al."
    parts = name.split()
    return f"{parts[-1]}, {' '.join(parts[:-1])}" if len(parts) > 1 else f"{{{name}}}"


def entry_text(doc: dict, key: str) -> str:
    """One ``@type{key, ...}`` entry for a stored document (its metadata; its file when it has one)."""
    venue = doc.get("venue") or ""
    kind, venue_field = ("inproceedings", "booktitle") if _PROCEEDINGS.search(venue) else ("article", "journal")
    if not venue:
        kind = "misc"
    fields = [("title", doc.get("title") or key),
              ("author", " and ".join(_author(a) for a in doc.get("authors") or [])),
              ("year", str(doc["year"]) if doc.get("year") else ""), (venue_field, venue),
              ("doi", doc.get("doi") or ""), ("eprint", doc.get("arxiv_id") or ""),
              ("archiveprefix", "arXiv" if doc.get("arxiv_id") else ""), ("url", doc.get("url") or ""),
              ("keywords", ", ".join(doc.get("tags") or [])), ("file", _file_of(doc))]
    body = ",\n".join(f"  {name} = {{{value if name in ('url', 'file', 'doi') else _escape(value)}}}"
                      for name, value in fields if value)
    return f"@{kind}{{{key},\n{body}\n}}\n"


def _file_of(doc: dict) -> str:
    path = doc.get("path") or ""
    return path if path.lower().endswith(".pdf") and Path(path).is_absolute() else ""


def write_bib(docs: list[dict], keys: dict[str, str] | None = None) -> str:
    """The ``.bib`` text of ``docs`` (stored document rows), in the given order."""
    keys = keys or assign_keys(docs)
    return "\n".join(entry_text(d, keys[d["doc_id"]]) for d in docs)
