"""Answer tables: the first column (the compared items) as wide as its longest name (up to
``MAX_FIRST``), every other column an equal share of the rest.

Textual's Markdown sizes each table column to its content and then shrinks them, which leaves a
comparison's middle column a dozen characters wide beside a wide last one, and cuts the names.
A streamed table grows row by row (``_update_from_block``), so the widths follow each update.
When Textual cannot grow the table in place it removes this block and mounts the new one in its
place; the new block sizes itself on mount, and the removed one has no content left to size. Textual
can also clear a table's content before the table's own mount runs (a reopened session fills the chat
while earlier answers render): a table without its content sizes nothing, as Textual's own
``MarkdownTable._update_from_block`` does.
"""

from __future__ import annotations

from textual.css.query import NoMatches
from textual.widgets._markdown import MarkdownBlock, MarkdownTable, MarkdownTableContent

MAX_FIRST = 24  # longer names wrap


class AnswerTable(MarkdownTable):
    def on_mount(self) -> None:
        self._size_columns()

    async def _update_from_block(self, block: MarkdownBlock) -> None:
        await super()._update_from_block(block)
        if self.is_attached:  # grown in place; otherwise ``block`` replaced this one and sizes itself
            self._size_columns()

    def _size_columns(self) -> None:
        columns = len(self._headers)
        if columns < 2:
            return
        names = [self._headers[0], *(row[0] for row in self._rows if row)]
        first = min(max(name.cell_length for name in names) + 2, MAX_FIRST)  # + the cell's padding
        try:
            content = self.query_one(MarkdownTableContent)
        except NoMatches:  # cleared or replaced before this ran: nothing of this table is shown
            return
        content.styles.grid_columns = " ".join([str(first), *["1fr"] * (columns - 1)])
