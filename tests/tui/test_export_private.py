"""Exports are private and, in a browser, confined (issue 26, item 1 and "exports are 0600").

Through the real app under Pilot: an export is a new 0600 file that replaces, never writes through
or chmods, a file already at that path; under ``paperpilot serve`` (Textual's web driver, the one
thing faked here: Pilot runs the headless driver) a path outside the data dir and the export
directory, or a symlink in the export directory pointing out of it, is refused with one line.
"""

from __future__ import annotations

import os
import stat

from textual.widgets import Input

from paperpilot_tui.app import PaperPilotApp
from tests.tui.conftest import ask, real_agent_factory, wait_until
from tests.tui.stub_hub import StubHub


async def export_to(pilot, path) -> None:
    app = pilot.app
    await pilot.press("ctrl+s")
    await wait_until(pilot, lambda: type(app.screen).__name__ == "PromptScreen")
    app.screen.query_one(Input).value = str(path)
    before = len(app._notifications)
    await pilot.press("enter")
    await wait_until(pilot, lambda: len(app._notifications) > before)


def last_toast(app) -> str:
    return str(list(app._notifications)[-1].message)


async def test_export_is_0600_and_a_browser_cannot_write_outside_the_data_dir(settings, tmp_path, monkeypatch):
    settings.memory.enabled = False
    app = PaperPilotApp(settings, agent_factory=real_agent_factory(StubHub()))
    exports = settings.paths.resolve("exports")
    async with app.run_test(size=(120, 40)) as pilot:
        await ask(pilot, "What does LoRA freeze?")

        # a local terminal: any path; an existing file is replaced by a new private one
        old = tmp_path / "shared" / "notes.md"
        old.parent.mkdir()
        old.write_text("someone's notes\n")
        old.chmod(0o644)
        os.link(old, tmp_path / "shared" / "same-inode")  # the old inode, to see it untouched
        await export_to(pilot, old)
        assert "Exported 1 turn(s)" in last_toast(app)
        assert "LoRA" in old.read_text() and stat.S_IMODE(old.stat().st_mode) == 0o600
        kept = tmp_path / "shared" / "same-inode"
        assert kept.read_text() == "someone's notes\n" and stat.S_IMODE(kept.stat().st_mode) == 0o644
        assert sorted(p.name for p in old.parent.iterdir()) == ["notes.bib", "notes.md", "same-inode"]  # no temp left
        assert stat.S_IMODE((old.parent / "notes.bib").stat().st_mode) == 0o600  # the cited papers' BibTeX too

        # the same app served to a browser tab
        monkeypatch.setattr(PaperPilotApp, "is_web", property(lambda self: True))
        outside = tmp_path / "elsewhere" / "planted.md"
        await export_to(pilot, outside)
        toast = last_toast(app)
        assert toast.startswith("not exported: in a browser (paperpilot serve) exports go only under ")
        assert "\n" not in toast and not outside.exists() and not outside.parent.exists()

        inside = exports / "from-the-browser.md"  # the export directory is made by the export, 0700
        await export_to(pilot, inside)
        assert "Exported 1 turn(s)" in last_toast(app)
        assert stat.S_IMODE(inside.stat().st_mode) == 0o600
        assert stat.S_IMODE(exports.stat().st_mode) == 0o700

        (exports / "link").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
        await export_to(pilot, exports / "link" / "planted.md")
        assert last_toast(app).startswith("not exported:") and not outside.exists()
