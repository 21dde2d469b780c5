"""esc while an LLM request is open: the user is told the server may still be computing it."""

from __future__ import annotations

from core.brains.llm import inflight
from tests.tui.conftest import wait_until
from tests.tui.test_flows import GatedAgent, ask_until_paused, recorded_app


def notices(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def test_escape_while_an_llm_request_is_open_says_the_server_is_still_finishing(settings):
    app, agent = recorded_app(settings, GatedAgent)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_until_paused(pilot, app, agent)
        # the request the turn awaits, counted as the LLM caller counts it (core.brains.llm.caller)
        async with inflight.tracked("http://127.0.0.1:8081/v1", "synthesis", 60):
            await pilot.press("escape")
            await wait_until(pilot, lambda: not app.session.busy)
        assert any(inflight.STILL_FINISHING in n.lower() and "127.0.0.1:8081" in n for n in notices(app)), notices(app)


async def test_escape_with_no_llm_request_open_says_nothing_more(settings):
    app, agent = recorded_app(settings, GatedAgent)
    async with app.run_test(size=(120, 40)) as pilot:
        await ask_until_paused(pilot, app, agent)
        await pilot.press("escape")
        await wait_until(pilot, lambda: not app.session.busy)
        assert not any(inflight.STILL_FINISHING in n.lower() for n in notices(app))
