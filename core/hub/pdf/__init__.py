"""The scholarly PDF reader: a paper's pages become a title, authors, year, kinded blocks under
the paper's own section names, and its parsed reference list.

Pipeline: :mod:`.layout` (positioned lines from PDFium; accents drawn as glyphs of their own joined to
their letters, TeX math-font symbols PDFium reads by their ASCII slot read as drawn) → :mod:`.clean` (page furniture out,
reading order, whole words) → :mod:`.front` (title, authors, year) → :mod:`.structure` (headings,
abstract, captions, footnotes, figure text, table rows, numbered displayed equations (:mod:`.equations`),
references; :mod:`.tablerows` finds a
table's rows and :mod:`.grid` rebuilds them row by row) → blocks here. Block kinds:
``references`` blocks are kept apart and never chunked as evidence (:func:`core.hub.chunking.chunk_blocks`);
captions, footnotes, figure text, tables and equations are blocks of their own under the section they sit in.
Text is NFKC-normalized for indexing and matching; the paper's numeric citation markers read
``[ref n]`` (see :mod:`.references`); acronyms the paper defines are spelled out in its table rows
(:mod:`.acronyms`).

:data:`READER_VERSION` names this reader's output: a document indexed by another version is read
again on the next ingest.
"""

from __future__ import annotations

import re
from pathlib import Path

from core.hub.pdf import clean, listings

READER_VERSION = "pdf-40"
FIGURE_TEXT_IN_CAPTION = 600  # a figure's own text up to this long joins its caption's chunk (sub-captions)


def read_pdf(path: Path):
    """A :class:`core.hub.readers.ParsedDoc` for the PDF at ``path`` (``ReadError`` with one line
    when it cannot be read)."""
    from core.hub.pdf import acronyms, front
    from core.hub.pdf.layout import read_pages
    from core.hub.pdf.references import mark_citations, parse_entry, split_entries
    from core.hub.pdf.footnotes import split_notes, strip_mark
    from core.hub.pdf.structure import Walker, footnote_lines
    from core.hub.readers import Block, ParsedDoc, ReadError

    import pypdfium2 as pdfium

    try:
        pages, meta = read_pages(str(path))
    except pdfium.PdfiumError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if "password" in reason.lower():
            raise ReadError("encrypted PDF (password required)") from None
        raise ReadError(f"corrupt PDF ({reason})") from None
    except (OSError, ValueError) as exc:
        raise ReadError(f"corrupt PDF ({type(exc).__name__})") from None
    cover = list(pages[0].lines) if pages else []  # page 1 with its running header: "To appear in …"
    clean.drop_furniture(pages)
    body = clean.body_size(pages)
    ordered = [clean.reading_order(p) for p in pages]
    first = [ln for row in ordered[0] for ln in row] if pages else []
    tlines = front.title_lines(first, body, pages[0].height) if pages else []
    title = front.title(first, body, pages[0].height if pages else 0, meta.get("Title", ""),
                        path.stem.replace("_", " ").replace("-", " "))
    where = front.venue(cover, body, pages[0].height, meta.get("Subject", "")) if pages else None
    doc = ParsedDoc(title=title, doc_type="pdf", pages=len(pages),
                    authors=front.authors(first, tlines, body) if pages else [],
                    year=front.year(first, body, meta.get("CreationDate", ""), where) if pages else None)
    if where:
        doc.library["venue"] = where
    walker = Walker(body, tlines)
    for page, rows in zip(pages, ordered):
        walker.page(page, rows, footnote_lines(page, rows, body))
    # the paper's spellings, from its title, body, floats and reference list: one NFKC pass over their
    # lines (a line's own normalizing, small capitals aside, is the same)
    spell = clean.Spellings(clean.normalize("\n".join(ln.text for ln in [*tlines, *(ln for p in walker.pieces
                                                                                      for ln in p.lines)])).split("\n"))
    ref_lines = [ln for p in walker.pieces if p.kind == "references" for ln in p.lines]
    entries = split_entries(ref_lines, lambda texts: clean.join_lines([clean.normalize(t) for t in texts], spell))
    doc.references = [parse_entry(e) for e in entries]
    by_label = {r.label: r for r in doc.references if r.label}
    captions = [p for p in walker.pieces if p.kind == "caption"]
    below = _captions_below(walker.pieces, captions)
    inside: dict[int, list[str]] = {}  # a figure's own short text (sub-captions, labels), by caption piece
    for piece in walker.pieces:
        if piece.kind == "listing":  # "Algorithm 3 …" is a block of its own; a listing in a figure is figure text
            piece.label = listings.title(piece.lines) or ""
            piece.kind = "figure" if not piece.label else "listing"
        if piece.kind == "float":  # a float's own text, above the caption it names (:mod:`.floats`)
            piece.kind = "figure"
            cap = piece.caption
        else:
            cap = _caption_of(piece, captions, "Figure") if piece.kind == "figure" else None
        text = _joined(piece.lines, spell)
        if cap is not None and len(text) <= FIGURE_TEXT_IN_CAPTION:
            inside.setdefault(id(cap), []).append(text)
            piece.kind = "merged"
    for piece in walker.pieces:
        if piece.kind == "merged":
            continue
        crumb = [title] + piece.section
        if piece.kind == "table":
            doc.blocks += _table_blocks(piece, captions, crumb, below, spell)
            continue
        if piece.kind == "footnote":  # one block a footnote, without its mark, which the crumb names
            for mark, lines in split_notes(piece.lines):
                note = strip_mark(mark_citations(_joined(lines, spell), by_label), mark)
                doc.blocks.append(Block(crumb + [f"Footnote {mark}" if mark else "Footnote"], note, piece.page,
                                        kind="footnote"))
            continue
        text = _joined(piece.lines, spell)
        if piece.kind == "references":
            doc.blocks.append(Block(crumb, text, piece.page, kind="references"))
            continue
        text = mark_citations(text, by_label)
        if piece.kind == "caption":
            body_text = text.split(":", 1)[1] if ":" in text[:16] else text.split(".", 1)[-1] if "." in text[:16] else text
            within = " ".join(inside.get(id(piece), []))
            doc.blocks.append(Block(crumb + [piece.label], f"{piece.label}: {body_text.strip()}"
                                    + (f" (In the figure: {within})" if within else ""), piece.page, kind="caption"))
        elif piece.kind == "listing":
            doc.blocks.append(Block(crumb + [piece.label], text, piece.page, kind="figure"))
        elif piece.kind == "equation":
            doc.blocks.append(Block(crumb + [f"Equation {piece.label}"], text, piece.page, kind="equation"))
        elif piece.kind == "figure":
            near = (_caption_label(piece.caption, spell) if piece.caption is not None
                    else _nearest_caption(piece, captions, "Figure", spell))
            doc.blocks.append(Block(crumb + [f"{near} (figure text)" if near else "Figure text"], text, piece.page,
                                    kind="figure"))
        else:
            doc.blocks.append(Block(crumb, text, piece.page, kind=piece.kind))
    _join_split_tables(doc.blocks)
    _link_mentions(doc.blocks)
    acronyms.expand_tables(doc.blocks)
    _ocr(path, pages, doc, title)
    return doc


def _texts(lines) -> list[str]:
    """Each line's text: small capitals rejoined, NFKC."""
    return [clean.normalize(clean.rejoin_small_caps(ln)) for ln in lines]


def _joined(lines, spell: clean.Spellings | None = None) -> str:
    """The text of a run of lines: small capitals rejoined, NFKC, hyphenated breaks joined (a
    compound's hyphen kept as the paper's ``spell`` writes it)."""
    return clean.join_lines(_texts(lines), spell)


def _link_mentions(blocks, most: int = 2) -> None:
    """Each caption block gains the body sentences that refer to it ("Table 1 shows …", with the
    sentence after it): a
    figure's or table's numbers are discussed in the text, and a question that names what only the
    caption names (a data set, a metric) finds caption and discussion in one chunk."""
    body = _body_sentences(blocks)
    for block in blocks:
        if block.kind != "caption":
            continue
        word, _, num = block.path[-1].partition(" ")
        names = r"Tables?|Tab\." if word == "Table" else r"Figures?|Figs?\."
        pattern = re.compile(rf"\b(?:{names})\s*(?:\d+\s*(?:,|and|&)\s*)*{re.escape(num)}(?![\d.]\d)", re.I)
        said = [" ".join(sents[i:i + 2]) for sents in body for i, s in enumerate(sents)
                if pattern.search(s) and not (i and pattern.search(sents[i - 1]))  # no sentence quoted twice
                and not s[:1].islower()][:most]  # nor the end of one whose start is not known
        if said:
            block.text = f"{block.text} (In the text: {' '.join(said)})"


def _body_sentences(blocks) -> list[list[str]]:
    """The sentences of each running-text block, in reading order, with a sentence that a page, column or
    float break cut carried on whole into the block it starts in: the next running-text block of the
    same section, past the footnotes, tables, figures and equations set at the break, carries it on
    (:func:`core.hub.runon.continues`), and then loses that piece of it. A block that ends in a run of a
    chart's labels read as text (:func:`core.hub.runon.labels_tail`) is carried on by nothing."""
    from core.hub.chunking import block_sentences
    from core.hub.runon import SENTENCE_DONE, continues, labels_tail

    out: list[list[str]] = []
    last = None  # the running-text block read last, while nothing but floats and footnotes followed it
    floated = False  # a table, figure or equation was set since
    for b in blocks:
        if b.kind not in ("body", "abstract"):
            floated = floated or b.kind != "footnote"
            last = last if b.kind in ("footnote", "caption", "table", "figure", "equation") else None
            continue
        sents = block_sentences(b.text)
        before = last.text.rstrip() if last is not None else ""
        if (sents and out and out[-1] and last is not None and last.path == b.path and before
                and not before.endswith(SENTENCE_DONE) and not labels_tail(before)
                and continues(b.text.lstrip(), before, pdf=True, past_float=floated)):
            out[-1][-1] = clean.join_lines([out[-1][-1], sents.pop(0)])
        out.append(sents)
        last, floated = b, False
    return out


def _caption_of(piece, captions, word: str, span: tuple[float, float] | None = None, below: bool | None = None):
    """The caption piece of this kind ("Figure", "Table") of a piece: in a paper that sets table
    captions above (``below`` False), the one read right before a table's rows; else the one on
    the piece's page nearest to it by the vertical gap between the caption and the piece's first
    to last line, on the paper's side (``below``) when it has one there, and sharing horizontal
    extent with the piece (or with ``span`` of it) when one does; or None."""
    if piece.caption is not None and span is None and below is False:
        return piece.caption  # read right before the rows, in a paper that sets table captions above
    same = [c for c in captions if c.page == piece.page and c.label.startswith(word) and c.lines and piece.lines]
    if not same:
        return None
    top, bottom = min(ln.top for ln in piece.lines), max(ln.bottom for ln in piece.lines)
    cells = [ln for row in piece.cells for ln in row] or piece.lines
    x0, x1 = span or (min(ln.x0 for ln in cells), max(ln.x1 for ln in cells))

    def gap(c) -> tuple[bool, bool, float]:
        ctop, cbottom = c.lines[0].top, c.lines[-1].bottom
        cx0, cx1 = min(ln.x0 for ln in c.lines), max(ln.x1 for ln in c.lines)
        other_side = below is not None and (ctop < bottom - 2 if below else cbottom > top + 2)
        return min(cx1, x1) - max(cx0, x0) <= 0, other_side, max(0.0, ctop - bottom, top - cbottom)

    return min(same, key=gap)


def _caption_label(cap, spell: clean.Spellings | None = None, words: int = 12) -> str:
    """``"Table 2: Precision and recall on…"``: a caption shortened, the breadcrumb of table rows
    and figure text, so their chunks match the caption's words too. Lines are joined as body text
    is (a word hyphenated over the caption's line break made whole)."""
    text = _joined(cap.lines, spell)
    body = text.split(":", 1)[1] if ":" in text[:16] else text.split(".", 1)[-1] if "." in text[:16] else text
    short = body.split()
    return f"{cap.label}: {' '.join(short[:words])}{'…' if len(short) > words else ''}".strip()


def _nearest_caption(piece, captions, word: str, spell: clean.Spellings | None = None) -> str:
    """The label of the caption of this kind nearest to the piece ("" when there is none)."""
    cap = _caption_of(piece, captions, word)
    return _caption_label(cap, spell) if cap is not None else ""


def _captions_below(pieces, captions) -> bool:
    """Whether this paper sets table captions below their tables: no fewer table captions are read
    right after table rows only than right before table rows only (one between two tables says
    nothing)."""
    before = {id(p.caption) for p in pieces if p.kind == "table" and p.caption is not None}
    tables = [c for c in captions if c.label.startswith("Table")]
    after_only = sum(c.after_table and id(c) not in before for c in tables)
    return after_only >= sum(not c.after_table and id(c) in before for c in tables)


def _table_blocks(piece, captions, crumb: list[str], below: bool = True,
                  spell: clean.Spellings | None = None) -> list:
    """A table piece's blocks: each table set in it (side by side, each under its own caption),
    rebuilt row by row, or its rows as plain lines when no columns are found. Rows without a
    caption that hold nothing but numbers (a plot's axis ticks) are figure text."""
    from core.hub.pdf.cells import is_value
    from core.hub.pdf.grid import rebuild_groups
    from core.hub.readers import Block

    halves = _split_beside(piece, captions)
    if len(halves) > 1:
        return [b for half in halves for b in _table_blocks(half, captions, crumb, below, spell)]
    groups = rebuild_groups(piece.cells) if piece.cells else None
    if not groups:
        groups = [None]
    out = []
    for g in groups:
        cap = _caption_of(piece, captions, "Table", (g.x0, g.x1) if g is not None and len(groups) > 1 else None, below)
        text = "\n".join(g.lines) if g is not None else _table_text(piece.rows)
        if cap is None and all(is_value(c) for row in piece.rows for c in row):
            out.append(Block(crumb + ["Figure text"], " ".join(" ".join(r) for r in piece.rows), piece.page,
                             kind="figure"))
            break
        label = _caption_label(cap, spell) if cap is not None else f"Table, p. {piece.page}"
        out.append(Block(crumb + [label], text, piece.page, kind="table"))
    return out


def _split_beside(piece, captions) -> list:
    """A table piece whose rows run under two table captions set side by side (one in each column
    of the page) as two pieces, cut at the gap between the captions."""
    from core.hub.pdf.structure import Piece

    caps = sorted((c for c in captions if c.page == piece.page and c.label.startswith("Table") and c.lines),
                  key=lambda c: min(ln.x0 for ln in c.lines))
    for a, b in ((a, b) for i, a in enumerate(caps) for b in caps[i + 1:]):
        end, start = max(ln.x1 for ln in a.lines), min(ln.x0 for ln in b.lines)
        if end > start + 1 or abs(a.lines[0].top - b.lines[0].top) > 3 * a.lines[0].size:
            continue
        cut = (end + start) / 2
        left = [[c for c in row if (c.x0 + c.x1) / 2 <= cut] for row in piece.cells]
        right = [[c for c in row if (c.x0 + c.x1) / 2 > cut] for row in piece.cells]
        if sum(map(bool, left)) >= 2 and sum(map(bool, right)) >= 2:
            halves = []
            for rows in (left, right):
                rows = [r for r in rows if r]
                half = Piece("table", piece.section, piece.page, lines=[r[0] for r in rows], cells=rows)
                half.rows = [[clean.normalize(c.text).strip() for c in r] for r in rows]
                halves.append(half)
            return halves
    return [piece]


def _join_split_tables(blocks: list) -> None:
    """Rows of a table that the reading order set apart from the rest of it (a table beside a shorter
    one runs on below it, and its last rows are read after the other column's text) join that table,
    named after its columns: a table block whose rows name no column, on the page of an earlier
    table block filed under the same caption whose rows have as many cells and name theirs. In place."""
    from core.hub.pdf.cells import row_line_cells

    out: list = []
    for b in blocks:
        label = b.path[-1] if b.kind == "table" else ""
        first = next((p for p in reversed(out) if p.kind == "table" and p.page == b.page and p.path[-1] == label),
                     None) if label and not label.startswith("Table, p.") else None
        if first is not None:
            head = row_line_cells(first.text.splitlines()[0])
            names = [cell.partition(": ")[0] if ": " in cell else "" for cell in head]
            rows = [row_line_cells(line) for line in b.text.splitlines()]
            if any(names) and all(len(r) == len(names) and not any(": " in c for c in r) for r in rows):
                first.text += "".join("\n| " + " | ".join(f"{n}: {v}" if n else v for n, v in zip(names, r)) + " |"
                                      for r in rows)
                continue
        out.append(b)
    blocks[:] = out


def _table_text(rows: list[list[str]]) -> str:
    """Rows as ``| label | column: value |`` lines when the first row names the columns."""
    numeric = re.compile(r"^[-+±]?\d[\d.,]*\s*[%†*]*$")
    head = rows[0] if rows and sum(bool(numeric.match(cell)) for cell in rows[0]) <= len(rows[0]) // 3 else None
    if head and len(rows) > 1 and not any(len(row) == len(head) >= 2 for row in rows[1:]):
        head = None  # a first row that names no row's cells is a row of its own
    out = []
    for row in rows[1:] if head and len(rows) > 1 else rows:
        if head and len(row) == len(head) and len(row) >= 2:
            cells = [row[0]] + [f"{h}: {v}" if h else v for h, v in zip(head[1:], row[1:])]
        else:
            cells = row
        out.append("| " + " | ".join(cells) + " |")
    if head and len(rows) == 1:
        out = ["| " + " | ".join(head) + " |"]
    return "\n".join(out)


def _ocr(path: Path, pages, doc, title: str) -> None:
    """OCR blocks for pages without a text layer (and, with ``hub.ocr: all``, for every image)."""
    from core.hub import ocr

    opts = ocr.options()
    todo = [p for p in pages if opts.mode == "all" or (opts.mode != "off" and p.chars < opts.min_page_chars)]
    if not todo:
        return
    import logging

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            reader.decrypt("")
    except Exception as exc:  # noqa: BLE001 - the text is read; OCR is extra
        doc.ocr_errors.append(f"images unreadable ({type(exc).__name__})")
        return
    for p in todo:
        doc.blocks += ocr.pdf_page_blocks(reader.pages[p.number - 1], p.number, [title], p.chars, path.name,
                                          doc.ocr_errors, len(pages))
