"""A corrupt database is reported by file name with a hint, never a traceback (issue 17 point 5):
for commands, and in the app, which keeps running."""

from __future__ import annotations

import os

import pytest

from paperpilot_tui.app import PaperPilotApp
from tests.support.cli import cli, home  # noqa: F401 - fixture
from tests.tui.conftest import real_agent_factory, settings, wait_until  # noqa: F401 - fixture
from tests.tui.stub_hub import StubHub

JUNK = os.urandom(4096)


@pytest.mark.parametrize("db", ["paperpilot.sqlite3", "checkpoints.sqlite3"])
def test_commands_name_the_corrupt_file_and_the_fix(home, capsys, db):  # noqa: F811
    (home / db).write_bytes(JUNK)
    argv = ["memory", "list"] if db == "paperpilot.sqlite3" else ["ask", "What rank does LoRA use?"]
    code, _, err = cli(capsys, *argv)
    assert code == 1 and "Traceback" not in err, err
    assert f"{home / db} is not a readable database" in err and f"mv {home / db} {home / db}.bad" in err


async def test_the_app_says_which_file_is_corrupt_and_keeps_running(settings):  # noqa: F811
    from pathlib import Path

    Path(settings.paths.home).mkdir(parents=True, exist_ok=True)
    (Path(settings.paths.home) / "paperpilot.sqlite3").write_bytes(JUNK)
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_until(pilot, lambda: any("is not a readable database" in str(n.message)
                                            for n in app._notifications))
        assert app.main_screen.status.activity  # still painting, no crash
