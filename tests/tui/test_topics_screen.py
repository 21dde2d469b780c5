"""The Topics screen: alt+t (and the palette) opens it over the hub's recorded ``list_topics`` answer
for the bundled corpus (``tests/data/topics_default.json``, ``python -m tests.support.record_topics``);
enter goes back to the question box with a question scoped to the topic. SVG snapshot at 120×40."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

from textual.command import CommandList, CommandPalette

from core import scope
from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.screens.topics import TopicsScreen, scoped_question
from tests.tui.conftest import wait_until

RECORDED = json.loads((Path(__file__).resolve().parents[1] / "data" / "topics_default.json").read_text())


class RecordedHub:
    """Answers list_topics with the recorded structured content, as HubClient returns it."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def list_topics(self, collection: str | None = None):
        self.calls.append(collection or "")
        return SimpleNamespace(structured=RECORDED, texts=[])


def _app(settings) -> PaperPilotApp:
    app = PaperPilotApp(settings, start_backend=False, blink=False)
    app.session.agent = SimpleNamespace(hub=RecordedHub(), collection="default", brain_name="offline",
                                        hub_status="hub (stdio)")
    return app


async def _open_topics(pilot) -> None:
    app = pilot.app
    await pilot.press("alt+t")
    await wait_until(pilot, lambda: isinstance(app.screen, TopicsScreen) and bool(app.screen.topics))
    for widget in app.screen.query("TextArea, Input"):
        widget.cursor_blink = False
    await pilot.pause()


async def test_topics_screen_lists_topics_and_asks_within_one(settings):
    app = _app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await _open_topics(pilot)
        screen = app.screen
        assert [t["topic_id"] for t in screen.topics] == [t["topic_id"] for t in RECORDED["topics"]]
        assert app.session.agent.hub.calls == ["default"]
        await pilot.press("down")
        second = RECORDED["topics"][1]
        detail = str(screen.query_one("#topic-detail").render())
        assert second["label"] in detail and second["documents"][0]["title"] in detail
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is app.main_screen)
        box = app.main_screen.query_one("#chat-input")
        assert box.text == scoped_question(second["label"]) and box.has_focus
        # what the box now starts with is scoped by slot filling to exactly that topic
        found = scope.match(box.text + "what do these papers propose?", scope.parse_topics(RECORDED))
        assert found is not None and found.topic.topic_id == second["topic_id"]


async def test_alt_t_as_a_terminal_sends_it_opens_topics_from_the_question_box(settings):
    """tmux and xterm send ESC t, which Textual reads as alt+t with the printable character "t":
    the question box (focused) would type it unless the binding comes first."""
    from textual import events
    from textual._xterm_parser import XTermParser

    app = _app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        box = app.main_screen.query_one("#chat-input")
        box.focus()
        await pilot.pause()
        [key] = [e for e in XTermParser().feed("\x1bt") if isinstance(e, events.Key)] or [events.Key("alt+t", "t")]
        assert (key.key, key.character) == ("alt+t", "t")
        app.post_message(key)
        await wait_until(pilot, lambda: isinstance(app.screen, TopicsScreen))
        assert box.text == ""
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is app.main_screen)


async def test_topics_is_in_the_command_palette(settings):
    app = _app(settings)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("ctrl+p")
        await wait_until(pilot, lambda: isinstance(app.screen, CommandPalette))
        await pilot.press(*"topics: the collection")
        hits = app.screen.query_one(CommandList)
        await wait_until(pilot, lambda: hits.option_count == 1 and "Topics" in str(hits.get_option_at_index(0).prompt))
        await pilot.press("down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, TopicsScreen))


def test_topics_screen_snapshot(snap_compare, settings):
    assert snap_compare(_app(settings), terminal_size=(120, 40), run_before=_open_topics)
