"""The first minute (app issue): the status bar says what start-up is doing, with the hub's
indexing progress, and "ready" only once a question will be answered quickly; a question asked
earlier waits visibly and then runs."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

from core.tools.hub_client import ToolError
from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.chat import Answer
from tests.tui.conftest import real_agent_factory, settle, wait_until
from tests.tui.stub_hub import StubHub


class IndexingHub(StubHub):
    """A hub that is still embedding its documents: each hub_status poll reports 32 more chunks of
    96 once ``step`` is set, then ready."""

    def __init__(self) -> None:
        super().__init__()
        self.done, self.step = 0, asyncio.Event()

    async def call(self, tool: str, args: dict, timeout: float | None = None):
        if tool != "hub_status":
            raise ToolError(f"unknown tool {tool}")
        if self.step.is_set() and self.done < 96:
            self.done += 32
            self.step.clear()
        phase = "embedding" if self.done < 96 else "ready"
        return SimpleNamespace(structured={"phase": phase, "done": self.done, "total": 96}, texts=[])


async def test_status_shows_indexing_progress_and_ready_only_when_warm(settings):
    settings.memory.enabled = False
    hub = IndexingHub()
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(hub))
    async with app.run_test(size=(140, 45)) as pilot:
        status = app.main_screen.status
        await wait_until(pilot, lambda: "indexing the knowledge hub 0/96" in status.activity)
        assert "ready" not in status.activity and app.session.agent is not None
        box = app.main_screen.query_one("#chat-input")
        box.load_text("What does LoRA freeze?")
        await pilot.press("enter")  # asked before ready: accepted, and it waits
        await wait_until(pilot, lambda: "your question waits" in status.activity)
        assert box.text == "" and not app.main_screen.query(Answer)
        hub.step.set()
        await wait_until(pilot, lambda: "32/96 ▰▰▰▱▱▱▱▱" in status.activity)
        hub.step.set()
        await wait_until(pilot, lambda: "64/96" in status.activity)
        hub.step.set()
        await wait_until(pilot, lambda: app.main_screen.turns_ended == 1)
        await settle(pilot)
        assert "LoRA" in app.main_screen.query(Answer).last().source
        assert status.activity == "ready"
