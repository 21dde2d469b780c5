"""An answer's table sizes its columns only while it shows its content.

A reopened session renders its earlier answers while the chat is still being filled, and Textual can
clear a table's content before the table's own mount runs: sizing then raised NoMatches inside the
table's ``on_mount`` and took the whole app down (seen under load in the reopened-session flow test).
"""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets._markdown import MarkdownTableContent

from paperpilot_tui.widgets.answer_table import AnswerTable
from paperpilot_tui.widgets.chat import Answer

TABLE = "| | Memory | Accuracy |\n|---|---|---|\n| LoRA | less | same |\n| QLoRA Long Name | least | same |\n"


class OneAnswer(App):
    def compose(self) -> ComposeResult:
        yield Answer(TABLE)


async def test_the_first_column_is_as_wide_as_its_longest_name():
    app = OneAnswer()
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        content = app.query_one(AnswerTable).query_one(MarkdownTableContent)
        assert str(content.styles.grid_columns[0]) == str(len("QLoRA Long Name") + 2)


async def test_a_table_whose_content_is_gone_sizes_nothing_and_raises_nothing():
    app = OneAnswer()
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        table = app.query_one(AnswerTable)
        await table.query_one(MarkdownTableContent).remove()
        table.on_mount()  # what Textual runs when the content was cleared before the table's mount
        table._size_columns()
        assert not table.query(MarkdownTableContent)
