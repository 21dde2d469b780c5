"""A fact typed in the memory browser is stored with the configured API key scrubbed: the app's
stores come from ``core.stores.open_stores``, which passes the settings' secrets to every store."""

from __future__ import annotations

from pydantic import SecretStr

from paperpilot_tui.app import PaperPilotApp
from tests.tui.conftest import wait_until

KEY = "pp-team-7d1f3c9a2b"  # matches no credential pattern: only the configured secret can catch it


async def test_fact_added_in_memory_browser_is_stored_redacted(settings):
    settings.llm.provider = "offline"
    settings.llm.api_key = SecretStr(KEY)
    app = PaperPilotApp(settings, agent_factory=_no_agent)  # the app's own stores (open_stores)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: app.session.stores is not None)
        await pilot.press("f3")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "MemoryScreen")
        await pilot.press("a")
        await wait_until(pilot, lambda: type(app.screen).__name__ == "PromptScreen")
        await pilot.press(*f"our gateway key is {KEY} for LoRA runs")
        await pilot.press("enter")
        facts = app.session.stores.facts
        await wait_until(pilot, lambda: len(facts.list()) == 1)
        stored = facts.list()[0].content
        assert KEY not in stored
        assert stored == "our gateway key is [REDACTED] for LoRA runs"


def _no_agent(settings):
    from contextlib import asynccontextmanager

    @asynccontextmanager
    async def hold():
        raise RuntimeError("no agent in this test")
        yield

    return hold()
