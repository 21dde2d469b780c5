"""Defect 9 of the app issue: an unreachable LLM endpoint names the brain (not the hub), and the
app switches to the offline brain without a restart; ``provider: auto`` says what it picked and why;
``paperpilot --llm`` chooses the brain for the app."""

from __future__ import annotations

import socket

from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.cli.main import build_parser
from paperpilot_tui.widgets.chat import Answer
from tests.tui.conftest import ask, real_agent_factory, wait_until
from tests.tui.stub_hub import StubHub


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # nothing listens once the socket is closed


async def test_unreachable_llm_blames_the_brain_and_switches_to_offline(settings):
    settings.memory.enabled = False
    settings.llm.provider = "openai"
    settings.llm.base_url = f"http://127.0.0.1:{closed_port()}/v1"
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()))
    async with app.run_test(size=(140, 45)) as pilot:
        status = app.main_screen.status
        await wait_until(pilot, lambda: status.brain == "LLM unreachable")
        assert status.hub != "unavailable"  # the hub was never the problem
        assert any("unreachable" in str(n.message) and "offline brain" in str(n.message) for n in app._notifications)
        await app.run_action("use_offline_brain")
        await wait_until(pilot, lambda: app.session.agent is not None)
        assert app.session.agent.brain_name.endswith("offline")
        await ask(pilot, "What does LoRA freeze?")
        assert "LoRA" in app.main_screen.query(Answer).last().source


async def test_auto_provider_says_which_brain_and_why(settings, monkeypatch):
    settings.memory.enabled = False
    settings.llm.provider = "auto"
    settings.llm.base_url = "http://127.0.0.1:9/v1"  # exported for some other tool, no key
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()))
    async with app.run_test(size=(160, 45)) as pilot:
        await wait_until(pilot, lambda: app.session.agent is not None)
        await pilot.pause()
        assert app.main_screen.status.brain.endswith("offline (auto: URL, no key)")


def test_the_app_takes_llm():
    args = build_parser().parse_args(["--llm", "offline"])
    assert args.command is None and args.llm == "offline"
