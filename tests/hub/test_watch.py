"""Watched folders: a real watchdog observer on a real temp folder, and a real hub daemon with
``hub.watch``. Waits are generous deadlines (wait_until), never speed assertions: bench/watch.py
measures the latency."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from core.hub.service import Hub, HubError
from core.hub.watch import Watcher, wanted

from tests.hub.helpers import REPO
from tests.hub.test_pdf_ingest import make_pdf

DEADLINE_S = 30


def wait_until(check, deadline_s: float = DEADLINE_S, what: str = "condition"):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        value = check()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture()
def watched(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    hub = Hub(tmp_path / "hub.sqlite3", sync=False)
    hub.start(background=False)
    events: list[tuple[str, str]] = []
    hub.watcher = Watcher(hub.store, [(folder, "default")], debounce=0.3, embed=False,
                          report=lambda p, s: events.append((p.name, s))).start()
    yield hub, folder, events
    hub.watcher.stop()


def _found(hub: Hub, query: str, needle: str, **scope) -> bool:
    try:
        return any(needle in h.chunk.text for h in hub.query(query, 5, "default", **scope))
    except HubError:  # no collection yet: nothing was indexed
        return False


def test_a_new_markdown_file_and_a_pdf_are_indexed(watched):
    hub, folder, events = watched
    (folder / "zorblax.md").write_text("# Zorblax\n\nZorblax adapters use a rank of 17.\n")
    make_pdf(folder / "study.pdf")
    wait_until(lambda: _found(hub, "zorblax rank", "rank of 17"), what="the Markdown file")
    wait_until(lambda: _found(hub, "zebra gradients clipped", "Zebra gradients"), what="the PDF")
    assert ("zorblax.md", "added") in events and ("study.pdf", "added") in events
    wait_until(lambda: hub.status()["indexing"] == 0, what="the watcher to go idle")
    assert hub.status()["watching"] == [str(folder.resolve())]


def test_an_editor_save_becomes_one_new_version(watched, tmp_path):
    """Several quick writes, then the editor's temp-file-and-rename: one re-index, one new version."""
    hub, folder, events = watched
    note = folder / "notes.md"
    note.write_text("# Notes\n\nThe glimmer rate is 5.\n")
    wait_until(lambda: hub.store.versions("notes"), what="the first version")
    hub.watcher.debounce = 1.0  # the burst below is far inside one quiet window
    for n in range(6, 10):
        note.write_text(f"# Notes\n\nThe glimmer rate is {n}.\n")
    swap = folder / ".notes.md.swp"
    swap.write_text("# Notes\n\nThe glimmer rate is 42.\n")
    os.replace(swap, note)
    wait_until(lambda: _found(hub, "glimmer rate", "rate is 42"), what="the saved edit")
    wait_until(lambda: hub.status()["indexing"] == 0, what="the watcher to go idle")
    assert [v["version"] for v in hub.store.versions("notes")] == [1, 2]
    assert _found(hub, "glimmer rate", "rate is 5", version=1)
    assert not any(".swp" in name for name, _ in events)


def test_move_and_delete(watched):
    hub, folder, events = watched
    (folder / "a.md").write_text("# Quokka\n\nQuokka heads attend to seven tokens.\n")
    wait_until(lambda: _found(hub, "quokka heads", "seven tokens"), what="a.md")
    sub = folder / "sub"
    sub.mkdir()
    os.replace(folder / "a.md", sub / "b.md")
    wait_until(lambda: [d["path"] for d in hub.store.documents("default")] == [str((sub / "b.md").resolve())],
               what="the move")
    assert _found(hub, "quokka heads", "seven tokens")
    (sub / "b.md").unlink()
    wait_until(lambda: not hub.store.documents("default"), what="the delete")
    assert not _found(hub, "quokka heads", "seven tokens")
    assert _found(hub, "quokka heads", "seven tokens", version=1)  # the deleted file's last version stays queryable
    assert ("b.md", "removed") in events


def test_a_deleted_file_that_comes_back_is_indexed_again(watched):
    hub, folder, _ = watched
    note = folder / "n.md"
    note.write_text("# N\n\nNimbus layers stack four deep.\n")
    wait_until(lambda: _found(hub, "nimbus layers", "four deep"), what="n.md")
    note.unlink()
    wait_until(lambda: not hub.store.documents("default"), what="the delete")
    note.write_text("# N\n\nNimbus layers stack four deep.\n")  # the same content as before
    wait_until(lambda: _found(hub, "nimbus layers", "four deep"), what="n.md again")


def test_temporary_hidden_and_unreadable_files_are_ignored(tmp_path):
    for name in (".notes.md.swp", "notes.md~", "#notes.md#", ".hidden.md", "data.bin", "~$lock.docx"):
        assert not wanted(tmp_path / name), name
    assert wanted(tmp_path / "notes.md") and wanted(tmp_path / "paper.PDF")


def test_the_start_up_scan_catches_up(tmp_path):
    folder = tmp_path / "papers"
    folder.mkdir()
    (folder / "old.md").write_text("# Old\n\nOrrery gears turn twice.\n")
    hub = Hub(tmp_path / "hub.sqlite3", sync=False)
    hub.start(background=False)
    w = Watcher(hub.store, [(folder, "mine")], debounce=0.3, embed=False).start()
    try:
        wait_until(lambda: hub.store.documents("mine"), what="the scan")
        w.stop()
        (folder / "old.md").unlink()  # while nothing watches
        w = Watcher(hub.store, [(folder, "mine")], debounce=0.3, embed=False).start()
        wait_until(lambda: not hub.store.documents("mine"), what="the second scan")
    finally:
        w.stop()


# -- a real hub daemon with hub.watch ----------------------------------------------------------------

def _cli(home: Path, *args: str) -> subprocess.CompletedProcess:
    code = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
    return subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, capture_output=True, text=True,
                          timeout=240, env={**os.environ, "PAPERPILOT_HOME": str(home)})


def test_the_daemon_watches_hub_watch_folders(hub_home, tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    for name in os.listdir(hub_home):
        if name.startswith("hub.sqlite3"):
            shutil.copy2(hub_home / name, home / name)
    folder = tmp_path / "inbox"
    folder.mkdir()
    cfg = tmp_path / "settings.yaml"
    cfg.write_text(f"hub:\n  watch: [{{path: {folder}, collection: inbox}}]\n  debounce: 0.3\n")
    out = _cli(home, "--config", str(cfg), "hub", "start")
    assert out.returncode == 0, out.stdout + out.stderr
    monkeypatch.setenv("PAPERPILOT_HOME", str(home))
    from core.config import load_settings
    from core.hub import daemon
    from core.tools.hub_client import HubClient

    settings = load_settings(cfg)

    async def ask(query: str, **kw) -> list[str]:
        async with HubClient(settings.mcp) as hub:
            assert "daemon" in hub.describe
            return [c.content for c in await hub.search(query, 5, "inbox", **kw)]

    async def status() -> dict:
        async with HubClient(settings.mcp) as hub:
            res = await hub.call("hub_status", {})
            return res.structured.get("result", res.structured)

    try:
        assert asyncio.run(status())["watching"] == [str(folder.resolve())]
        make_pdf(folder / "study.pdf")
        note = folder / "notes.md"
        note.write_text("# Vortex notes\n\nVortex attention uses 12 heads.\n")

        def answered(query: str, needle: str, **kw) -> bool:
            try:
                return any(needle in t for t in asyncio.run(ask(query, **kw)))
            except Exception:  # noqa: BLE001 - "unknown collection" until the first file is written
                return False

        wait_until(lambda: answered("zebra gradients clipped", "Zebra gradients"), 60, "the PDF via the daemon")
        wait_until(lambda: answered("vortex attention heads", "12 heads"), 60, "the note via the daemon")
        note.write_text("# Vortex notes\n\nVortex attention uses 16 heads.\n")
        wait_until(lambda: answered("vortex attention heads", "16 heads"), 60, "the edit via the daemon")
        assert answered("vortex attention heads", "12 heads", version=1)
        assert not answered("vortex attention heads", "12 heads")
    finally:
        state, _ = daemon.read_state(daemon.state_path(home))
        _cli(home, "--config", str(cfg), "hub", "stop")
        if state is not None and daemon.alive(state.pid):
            daemon.stop_pid(state.pid)


# -- the app's status bar -----------------------------------------------------------------------------

class _StatusHub:
    """Answers hub_status like a watching hub: 2 files, then 1, then done; then goes away."""

    def __init__(self, answers: list[dict]):
        self.answers = answers

    async def call(self, tool: str, args: dict, timeout: float | None = None):
        from core.tools.hub_client import ToolResult

        assert tool == "hub_status"
        if not self.answers:
            raise ConnectionError("gone")
        return ToolResult(texts=[], structured={"result": self.answers.pop(0)})


def test_the_app_learns_how_many_files_the_hub_is_indexing(monkeypatch):
    from types import SimpleNamespace

    from core import warmup

    monkeypatch.setattr(warmup, "FOLLOW_S", 0.0)
    seen: list[int] = []
    states = [{"phase": "ready", "indexing": n, "watching": ["/x"]} for n in (0, 2, 2, 1, 0)]
    asyncio.run(warmup.follow_indexing(SimpleNamespace(hub=_StatusHub(states)), seen.append))
    assert seen == [2, 1, 0]  # each change once
    seen.clear()
    asyncio.run(warmup.follow_indexing(SimpleNamespace(hub=_StatusHub([{"phase": "ready"}] * 3)), seen.append))
    assert seen == []  # a hub that watches nothing is asked once, then left alone


def test_the_status_bar_shows_indexing_files():
    from textual.app import App, ComposeResult

    from paperpilot_tui.widgets.status import StatusBar

    class Bar(App):
        def compose(self) -> ComposeResult:
            yield StatusBar()

    async def go() -> tuple[str, str]:
        async with Bar().run_test(size=(160, 3)) as pilot:
            bar = pilot.app.query_one(StatusBar)
            bar.hub = "hub (daemon :4242)"
            bar.indexing = 2
            await pilot.pause()
            busy = str(bar.render())
            bar.indexing = 0
            await pilot.pause()
            return busy, str(bar.render())

    busy, idle = asyncio.run(go())
    assert "hub (daemon :4242) · indexing 2 files…" in busy
    assert "indexing" not in idle and "hub (daemon :4242)" in idle


def test_hub_watch_cli_indexes_until_interrupted(tmp_path):
    """`paperpilot hub watch DIR --collection C`: one line per indexed file; Ctrl-C ends it cleanly."""
    import signal

    from core.hub.store import HubStore

    home, folder = tmp_path / "home", tmp_path / "inbox"
    home.mkdir(mode=0o700)
    folder.mkdir()
    code = "import sys; from paperpilot_tui.cli.main import main; sys.exit(main())"
    # A terminal's Ctrl-C: SIGINT handled by default in the child, also when the suite itself runs as a
    # background job of a non-interactive shell (which starts it with SIGINT ignored, inherited by children).
    proc = subprocess.Popen([sys.executable, "-c", code, "hub", "watch", str(folder), "--collection", "inbox"],
                            cwd=REPO, env={**os.environ, "PAPERPILOT_HOME": str(home)}, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    def line(deadline_s: float) -> str:  # a bounded readline: a hung watcher fails the test, never blocks it
        import select

        ready, _, _ = select.select([proc.stdout], [], [], deadline_s)
        assert ready, "no output from hub watch"
        return proc.stdout.readline()

    try:
        assert "watching" in line(60)
        (folder / "orrery.md").write_text("# Orrery\n\nOrrery gears turn twice a day.\n")
        indexed = line(120)
        assert indexed.split()[1:] == ["added", str(folder / "orrery.md")]
        store = HubStore(home / "hub.sqlite3")
        assert [d["title"] for d in store.documents("inbox")] == ["Orrery"]
        assert store.stats("inbox")["embedded_chunks"] == 1  # the CLI embeds as `ingest` does
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
