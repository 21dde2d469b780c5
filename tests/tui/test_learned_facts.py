"""Defect 8 of the app issue: facts the offline brain learns keep the identifiers they quote."""

from __future__ import annotations

from paperpilot_tui.app import PaperPilotApp
from paperpilot_tui.widgets.memory_pane import MemoryPane
from tests.tui import stub_hub
from tests.tui.conftest import ask, real_agent_factory, wait_until

PEFT = ("PEFT: LoraConfig reference", "LoraConfig > Parameters", 1,
        "The lora_alpha parameter of LoraConfig scales the learned low-rank update by lora_alpha divided by r. "
        "LoraConfig also takes lora_dropout, the dropout probability applied to the LoRA layers.")


async def test_a_learned_fact_keeps_the_underscore_in_lora_alpha(settings, monkeypatch):
    monkeypatch.setattr(stub_hub, "CORPUS", [*stub_hub.CORPUS, PEFT])
    settings.memory.enabled = True
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(stub_hub.StubHub()))
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "What does the lora_alpha parameter of LoraConfig do?")
        pane = app.main_screen.query_one(MemoryPane)
        await wait_until(pilot, lambda: pane.written, timeout=60)
        assert any("lora_alpha" in fact for fact in pane.written), pane.written
        assert not any("loraalpha" in fact for fact in pane.written)
        stored = [f.content for f in app.session.agent.facts.list()]
        assert any("lora_alpha" in fact for fact in stored), stored
