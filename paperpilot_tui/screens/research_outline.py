"""The outline editor of a deep-research run: the knowledge points the search will cover.

Structured view: the points in a table (add, remove, move up/down, change importance) and a form
for the highlighted point (topic, category, keywords, importance). Raw view (ctrl+t): the outline
as JSON in a text area, checked with ``Outline.model_validate_json``; an invalid text stays as the
user wrote it, with one line naming the first bad field. Confirming (ctrl+s) dismisses with the
outline to search; esc dismisses with None and the run keeps waiting.
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Select, Static, TextArea

from core.research.types import Outline
from paperpilot_tui.actions import bindings
from paperpilot_tui.screens import research_outline_edit as edit

FIELDS = ("topic", "category", "search_keywords")
COLUMNS = ("id", "importance", "topic", "category", "keywords")  # the topic first: it says what a point is


class OutlineScreen(Screen[Outline | None]):
    CSS_PATH = "research.tcss"
    BINDINGS = bindings("outline", "dialog")
    HELP_SCOPES = ("outline", "dialog", "app")
    HELP_TITLE = "Deep research · outline"

    def __init__(self, outline: Outline) -> None:
        super().__init__(id="outline-editor")
        self.proposed = outline
        self.outline = outline
        self.raw = False
        self._loaded: int | None = None  # the row the form shows; typing edits it, so it is not reloaded

    def compose(self) -> ComposeResult:
        yield Static("", id="outline-title")
        with Horizontal(id="outline-structured"):
            yield DataTable(id="points", cursor_type="row", zebra_stripes=True)
            with Vertical(id="point-form"):
                yield Static("The highlighted point", classes="form-title")
                yield Static("topic", classes="label")
                yield Input(placeholder="what the review covers here", id="topic")
                yield Static("category", classes="label")
                yield Input(placeholder="e.g. Core Concepts", id="category")
                yield Static("search keywords (comma-separated)", classes="label")
                yield Input(placeholder="LoRA, low-rank", id="search_keywords")
                yield Static("importance", classes="label")
                yield Select([(i, i) for i in edit.IMPORTANCE], allow_blank=False, value="medium", id="importance")
        yield TextArea("", language="json", id="outline-json", show_line_numbers=True)
        yield Static("", id="outline-error")
        yield Static("", id="outline-hint")
        yield Footer()

    def on_mount(self) -> None:
        blink = getattr(self.app, "blink", True)
        for box in self.query("Input, TextArea"):
            box.cursor_blink = blink
        table = self.query_one("#points", DataTable)
        table.add_columns(*COLUMNS)
        self._rebuild(0)
        self._show_raw(False)
        table.focus()

    # ---- view ----------------------------------------------------------------------------------

    @property
    def row(self) -> int:
        return self.query_one("#points", DataTable).cursor_row

    def _rebuild(self, row: int) -> None:
        """Redraw the table from ``self.outline`` and highlight ``row``."""
        table = self.query_one("#points", DataTable)
        table.clear()
        for n, p in enumerate(self.outline.knowledge_points):
            table.add_row(p.id, p.importance, p.topic, p.category, ", ".join(p.search_keywords), key=str(n))
        points = self.outline.knowledge_points
        if points:
            table.move_cursor(row=min(max(row, 0), len(points) - 1))
        self._loaded = None
        self._load_form()
        self._summary()

    def _load_form(self) -> None:
        points = self.outline.knowledge_points
        form = self.query_one("#point-form")
        form.display = bool(points) and not self.raw
        row = min(self.row, len(points) - 1)
        if not points or row == self._loaded:
            return
        self._loaded = row
        p = points[row]
        for name in FIELDS:
            value = getattr(p, name)
            self.query_one(f"#{name}", Input).value = ", ".join(value) if isinstance(value, list) else value
        self.query_one("#importance", Select).value = p.importance

    def _summary(self) -> None:
        n = len(self.outline.knowledge_points)
        changed = " · edited" if self.outline != self.proposed else ""
        self.query_one("#outline-title", Static).update(f"Outline: {self.outline.title} · {n} point(s){changed}")
        keys = getattr(self.app, "keys_for", lambda a: "")
        hint = ("Raw JSON: edit the outline as text; "
                f"{keys('outline_json')} back to the table checks it" if self.raw else
                "In the table: a add · d remove · shift+↑/↓ (k/j) move · i importance; "
                "tab to the form edits the highlighted point")
        if not n and not self.raw:
            hint = "No knowledge point yet: a adds one, or edit the JSON (ctrl+t)."
        self.query_one("#outline-hint", Static).update(f"{hint} · {keys('outline_confirm')} start the search · esc later")

    def _error(self, text: str) -> None:
        err = self.query_one("#outline-error", Static)
        err.update(text)
        err.set_class(bool(text), "-on")

    def _show_raw(self, raw: bool) -> None:
        self.raw, self._loaded = raw, None
        self.query_one("#outline-structured").display = not raw
        self.query_one("#outline-json").display = raw
        self._load_form()
        self._summary()

    # ---- form ----------------------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#points")
    def _highlighted(self) -> None:
        self._load_form()

    @on(Input.Changed)
    def _field(self, event: Input.Changed) -> None:
        name = event.input.id or ""
        points = self.outline.knowledge_points
        if name not in FIELDS or not points or not event.input.has_focus or event.value != event.input.value:
            return  # loaded into the form (not typed), or a change since overtaken
        row = min(self.row, len(points) - 1)
        current = getattr(points[row], name)
        if (edit.parse_keywords(event.value) if name == "search_keywords" else event.value) == current:
            return
        self.outline = edit.set_field(self.outline, row, name, event.value)
        shown = ", ".join(getattr(self.outline.knowledge_points[row], name)) if name == "search_keywords" else event.value
        self._cell(row, "keywords" if name == "search_keywords" else name, shown)

    @on(Select.Changed, "#importance")
    def _importance(self, event: Select.Changed) -> None:
        points = self.outline.knowledge_points
        if not points or event.value != event.select.value:
            return  # a change since overtaken (the form was loaded with another point)
        row = min(self.row, len(points) - 1)
        if event.value != points[row].importance:
            self.outline = edit.set_field(self.outline, row, "importance", str(event.value))
            self._cell(row, "importance", str(event.value))

    def _cell(self, row: int, column: str, value: str) -> None:
        table = self.query_one("#points", DataTable)
        table.update_cell_at((row, COLUMNS.index(column)), value)
        self._summary()

    # ---- actions -------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[Any, ...]) -> bool | None:
        """Structural edits only in the structured view."""
        if action in ("add", "remove", "move", "importance"):
            return not self.raw
        return True

    def action_add(self) -> None:
        row = self.row if self.outline.knowledge_points else None
        self.outline, row = edit.add_point(self.outline, row)
        self._rebuild(row)
        self.query_one("#topic", Input).focus()

    def action_remove(self) -> None:
        if self.outline.knowledge_points:
            row = self.row
            self.outline = edit.remove_point(self.outline, row)
            self._rebuild(row)

    def action_move(self, step: int) -> None:
        self.outline, row = edit.move_point(self.outline, self.row, step)
        self._rebuild(row)

    def action_importance(self) -> None:
        if self.outline.knowledge_points:
            self.outline = edit.cycle_importance(self.outline, self.row)
            self._rebuild(self.row)

    def action_toggle_json(self) -> None:
        area = self.query_one("#outline-json", TextArea)
        if not self.raw:
            area.load_text(self.outline.model_dump_json(indent=2))
            self._error("")
            self._show_raw(True)
            area.focus()
            return
        outline, why = edit.from_json(area.text)
        if outline is None:
            self._error(f"✗ {why}")
            return
        self.outline = outline
        self._error("")
        self._show_raw(False)
        self._rebuild(0)
        self.query_one("#points", DataTable).focus()

    def action_confirm(self) -> None:
        outline = self.outline
        if self.raw:
            outline, why = edit.from_json(self.query_one("#outline-json", TextArea).text)
            if outline is None:
                self._error(f"✗ {why}")
                return
        if why := edit.problems(outline):
            self._error(f"✗ {why}")
            return
        self.dismiss(outline)

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
