"""A browser table's one wide text column (a title, a question, a fact) sized to what the other
columns leave of the screen, so no column runs off the right edge at 80 columns and the text gets
the room back on a wide terminal. The screens call :func:`fit_column` on mount and on every resize.
"""

from __future__ import annotations

from textual.widgets import DataTable

SCROLLBAR = 2  # the vertical scrollbar's width, once the rows outgrow the table
LEAST = 16  # the wide column never gets narrower than this (the others then scroll)


def fill_width(table: DataTable, key: str, screen_width: int, *, most: int | None = None,
               least: int = LEAST) -> int:
    """The width of column ``key``: the screen less the other columns, every cell's padding and the
    scrollbar, at least ``least`` and at most ``most`` (None: no limit)."""
    others = sum(c.width for c in table.columns.values() if c.key != key)
    padding = 2 * table.cell_padding * len(table.columns)
    room = screen_width - others - padding - SCROLLBAR
    return max(least, room if most is None else min(most, room))


def fit_column(table: DataTable, key: str, screen_width: int, *, most: int | None = None,
               least: int = LEAST) -> None:
    """Set column ``key`` to :func:`fill_width` and make the table measure itself again."""
    column = table.columns.get(key)  # type: ignore[call-overload]  # a str finds its ColumnKey
    if column is None:
        return
    width = fill_width(table, key, screen_width, most=most, least=least)
    if column.width != width:
        column.width = width
        table._require_update_dimensions = True  # DataTable 8.x re-measures its columns only then
        table.refresh(layout=True)
