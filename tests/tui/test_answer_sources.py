"""App issue, item 2: each answer keeps its own sources. [n] in an earlier answer opens that answer's
source n (it used to select the latest answer's [n], and an [n] past the latest list did nothing),
and the sources pane follows the answer the user clicks."""

from __future__ import annotations

import re

from textual.widgets import Markdown, OptionList

from paperpilot_tui.widgets.chat import Answer
from paperpilot_tui.widgets.sources import SourcesPanel
from tests.support.recorded import COMPARE_Q, FOLLOW_Q
from tests.tui.conftest import ask
from tests.tui.test_flows import recorded_app


def shown(panel: SourcesPanel):
    return panel.sources[panel.query_one(OptionList).highlighted]


async def test_a_citation_in_an_earlier_answer_opens_that_answers_own_source(settings):
    app, _ = recorded_app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, COMPARE_Q)
        await ask(pilot, FOLLOW_Q)
        first, last = list(app.main_screen.query(Answer))[:2]
        panel = app.main_screen.query_one(SourcesPanel)
        assert panel.sources == last.sources  # the latest turn's, as before
        n = next(s.index for s in first.sources
                 if all(t.index != s.index or t.chunk_id != s.chunk_id for t in last.sources))
        first.post_message(Markdown.LinkClicked(first, f"#source-{n}"))
        await pilot.pause()
        await pilot.pause()
        assert panel.sources == first.sources
        assert (shown(panel).index, shown(panel).chunk_id) == (n, next(s.chunk_id for s in first.sources
                                                                     if s.index == n))
        await pilot.click(last)  # the pane follows the answer clicked
        await pilot.pause()
        assert panel.sources == last.sources


def _screen_lines(app) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


async def test_a_mouse_click_on_a_marker_in_an_earlier_answer_opens_its_source(settings):
    """A real click (mouse down, up) on the first `[n]` an earlier comparison shows, with
    that answer focused by the keys, as a user does it at 200×60."""
    app, _ = recorded_app(settings)
    async with app.run_test(size=(200, 60)) as pilot:
        await ask(pilot, COMPARE_Q)
        await ask(pilot, FOLLOW_Q)
        answers = list(app.main_screen.query(Answer))
        earlier = answers[0]  # the comparison, not the latest answer
        await pilot.press("alt+up", "up")
        await pilot.pause()
        assert app.focused is earlier and earlier.sources != answers[-1].sources
        panel = app.main_screen.query_one(SourcesPanel)
        box = earlier.region
        marks = [(y, m.start() + 1, int(m.group(1))) for y, line in enumerate(_screen_lines(app))
                 if box.y <= y < box.bottom for m in re.finditer(r"\[(\d+)\]", line)
                 if box.x <= m.start() and m.end() <= box.right]
        assert marks, "no [n] of the earlier answer on screen"
        y, x, n = marks[0]
        assert n != 0 and any(s.index == n for s in earlier.sources)
        assert await pilot.click(offset=(x, y))
        await pilot.pause()
        await pilot.pause()
        assert panel.sources == earlier.sources
        assert shown(panel).index == n
