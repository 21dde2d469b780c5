"""The row of a table that holds the best, highest or lowest value a question asks for, or the cell it names.

"What is the best BLEU on the test set, and which setting gives it?" is answered by one row of a
results table; the sentence scorer rates every row of that table alike (each carries the table's
caption and column names), so which row answers is a comparison of their values, not a reading of
their words. :func:`extreme_row` makes it: the column the question names (its words, with the
abbreviations the paper defines spelled out: "test-nc" is the test set of the news-commentary (nc)
data), the direction the question asks (the best error rate is the lowest), and the row whose value
in that column is the extreme one. When the question names no column, or names two equally ("the lowest
word error rate" over columns "1-best (%)", "oracle WCN (%)"), the row must hold the extreme in every one
of them. It declines (None) whenever the row is unclear: columns that disagree, values that tie, fewer
than two rows with a value.

A question that names a row's label and one of its columns ("What accuracy does KITE reach?" over a
row ``| KITE | Accuracy: 0.71 |``) asks for that cell: :func:`named_cell_row` finds the row, and
declines when no row or more than one is named as fully.

The rows are the PDF reader's (``| label | column: value | … |``, read as sentences by
:func:`core.brains.offline.text.row_sentence`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from core.brains.offline.text import content_terms, row_cells, row_sentence, table_label
from core.types import RetrievedContext

# "highest", "largest" ... ask for the greatest value; "lowest", "smallest" ... for the least; "best"
# and "worst" for the greatest unless the measure is one where less is better (an error, a loss, a time).
# Chinese says each with 最 and the adjective ("最高", "最低", "最好"), and names its measures in Chinese.
_GREATEST = re.compile(r"\b(?:highest|largest|biggest|greatest|maximum)\b|最高|最大|最多|最长", re.I)
_LEAST = re.compile(r"\b(?:lowest|smallest|fewest|minimum|shortest)\b|最低|最小|最少|最短", re.I)
_BEST = re.compile(r"\bbest\b|最好|最佳|最优", re.I)
_WORST = re.compile(r"\bworst\b|最差|最糟", re.I)
_LESS_IS_BETTER = re.compile(r"\b(?:errors?|loss(?:es)?|perplexity|wer|cer|ter|aer|mse|rmse|mae|latency|runtime|"
                             r"time|times|cost|costs|distance|error\s+rate)\b|错误率|误差|损失|困惑度|延迟|耗时|时间|成本",
                             re.I)
# "news-commentary (nc)", "Europarl (ep)": a phrase, then its abbreviation in parentheses
_DEFINES = re.compile(r"([A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,3})\s+\(([A-Za-z]{2,6})\)")
_NUMBER = re.compile(r"^[-+−]?(\d+(?:[.,]\d+)*|\.\d+)\s*(%|[kKMB])?(?![\w.])")
_SCALE = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9}


def direction(question: str) -> int:
    """+1 when ``question`` asks for the greatest value, -1 for the least, 0 when it asks for neither."""
    less_better = _LESS_IS_BETTER.search(question) is not None
    greatest, least = _GREATEST.search(question), _LEAST.search(question)
    if _BEST.search(question):
        best = -1 if less_better else 1
        greatest, least = (greatest or best > 0), (least or best < 0)
    if _WORST.search(question):
        worst = 1 if less_better else -1
        greatest, least = (greatest or worst > 0), (least or worst < 0)
    if bool(greatest) == bool(least):
        return 0
    return 1 if greatest else -1


def abbreviations(texts: Iterable[str]) -> dict[str, str]:
    """Lower-case abbreviations the texts define as "long form (abbr)", where the abbreviation's letters
    are the initials of the long form's last words or their hyphenated parts ("news-commentary (nc)")."""
    out: dict[str, str] = {}
    for text in texts:
        for m in _DEFINES.finditer(text):
            abbr, words = m.group(2).lower(), m.group(1).split()
            for start in range(len(words) - 1, -1, -1):
                parts = [p for w in words[start:] for p in w.split("-") if p]
                if "".join(p[0].lower() for p in parts) == abbr:
                    out.setdefault(abbr, " ".join(words[start:]))
                    break
    return out


def _column_terms(name: str, abbrs: dict[str, str]) -> set[str]:
    terms = set(content_terms(name, parts=True))
    for part in re.split(r"[\s\-_/]+", name.lower()):
        if part in abbrs:
            terms |= set(content_terms(abbrs[part], parts=True))
    return terms


def value(cell: str) -> float | None:
    """The number a table cell opens with ("28.81 ^123" → 28.81, "100k" → 100000, "74.1%" → 74.1)."""
    m = _NUMBER.match(cell.strip())
    if not m:
        return None
    number = float(m.group(1).replace(",", ""))
    return number * _SCALE.get(m.group(2) or "", 1.0)


def table_rows(contexts: list[RetrievedContext]) -> dict[str, list[str]]:
    """Each PDF table row sentence of ``contexts`` with its cells (label first)."""
    out: dict[str, list[str]] = {}
    for ctx in contexts:
        table = table_label(ctx.breadcrumb)
        for line in ctx.content.splitlines():
            line = line.strip()
            if not (line.startswith("|") and line.endswith("|")):
                continue
            for cells in row_cells(line):
                cells = [c for c in cells if c]
                if cells:
                    out.setdefault(row_sentence(cells, table), cells)
    return out


def extreme_row(question: str, rows: list[tuple[str, list[str]]], texts: Iterable[str] = ()) -> str | None:
    """The row (its sentence) of ``rows`` (one table's, as (sentence, cells)) whose value in the column
    ``question`` names is the greatest or least it asks for (in every column, when it names none or
    several equally); None when the question asks for no extreme, the columns disagree, fewer than two
    rows hold a value, or the extreme value ties. ``texts``: the paper's sentences, for the
    abbreviations it defines.

    A column named right after the superlative ("above the highest confidence threshold, what accuracy
    …") is the one whose extreme is asked, whatever other column the question names. A row label
    that names its column ("Thr.: 0.65") is a column too, and a column is told apart from another
    of the same name by its place ("Accuracy" for each of two directions)."""
    sign = direction(question)
    if not sign or len(rows) < 2:
        return None
    asked = set(content_terms(question, drop_frame=True, parts=True))
    abbrs = abbreviations(texts)
    columns: dict[tuple[int, str], list[tuple[float, str]]] = {}
    for sentence, cells in rows:
        for i, cell in enumerate(cells):
            name, sep, raw = cell.partition(": ")
            v = value(raw) if sep else None
            if v is not None:
                columns.setdefault((i, name.strip()), []).append((v, sentence))
    kept = [c for c, vals in columns.items() if len(vals) >= 2]
    if not kept:
        return None
    after = set(content_terms(" ".join(_SUPERLATIVE_NOUN.findall(question)), parts=True))
    for terms in (after, asked):
        named = sorted(((_naming(c[1], abbrs, terms), c) for c in kept), reverse=True)
        if terms is after and not named[0][0]:
            continue  # no column right after the superlative: the one the question names most
        best = [c for k, c in named if k == named[0][0]]  # the column(s) named most, or all when none is
        found = {_extreme(columns[c], sign) for c in best}
        return found.pop() if len(found) == 1 else None  # one column, or columns that agree on the row
    return None


# the (at most four) words after a superlative: "the highest confidence threshold" names its column
_SUPERLATIVE_NOUN = re.compile(r"\b(?:highest|largest|biggest|greatest|maximum|lowest|smallest|fewest|minimum|"
                               r"shortest|best|worst)\s+((?:[\w.-]+\s*){1,4})", re.I)


def _naming(name: str, abbrs: dict[str, str], terms: set[str]) -> int:
    """How many of ``terms`` a column's name names: its words (abbreviations the paper defines spelt out),
    and a word it abbreviates with a full stop ("Thr." for "threshold", "Cov." for "coverage")."""
    short = [w[:-1].lower() for w in name.split() if w.endswith(".") and len(w) >= 4]
    return len(_column_terms(name, abbrs) & terms) + sum(1 for t in terms if any(t.startswith(a) for a in short))


def _extreme(vals: list[tuple[float, str]], sign: int) -> str | None:
    """The row holding the single greatest (``sign`` +1) or least (-1) value; None on a tie."""
    top = max(v * sign for v, _ in vals)
    at = [s for v, s in vals if v * sign == top]
    return at[0] if len(at) == 1 else None


_ASIDE = re.compile(r"\([^)]*\)")


def named_cell_row(question: str, rows: list[tuple[str, list[str]]], texts: Iterable[str] = ()) -> str | None:
    """The row (its sentence) of ``rows`` (as (sentence, cells), from any tables) whose label
    ``question`` names in full (its words outside parentheses: "DD (Diversity Density)" is named by
    "DD") and that holds a value in a column the question names; the most fully named when several
    are (label and column words, then its table's caption words), None when none is or the best tie.
    A row whose every named value the question already states is what it asks from, not its answer.
    ``texts``: the paper's sentences, for the abbreviations it defines."""
    asked = set(content_terms(question, drop_frame=True, parts=True))
    abbrs = abbreviations(texts)
    scored: list[tuple[tuple[int, int], str]] = []
    for sentence, cells in rows:
        label = set(content_terms(_ASIDE.sub(" ", cells[0]), parts=True))
        if not label or not label <= asked:
            continue
        named = [(_naming(name, abbrs, asked), raw.strip()) for cell in cells[1:]
                 for name, sep, raw in [cell.partition(": ")] if sep and value(raw) is not None]
        hit = max((k for k, _ in named), default=0)
        if not hit or all(raw.split()[0] in question for k, raw in named if k == hit):
            continue
        caption = set(content_terms(sentence.split(", ", 1)[0], parts=True)) & asked
        scored.append(((len(label) + hit, len(caption)), sentence))
    if not scored:
        return None
    top = max(k for k, _ in scored)
    at = [s for k, s in scored if k == top]
    return at[0] if len(at) == 1 else None
