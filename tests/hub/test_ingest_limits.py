"""``paperpilot ingest`` skips a file over its size limit with one line; the other files ingest.

In-process CLI, a real hub database in a private home, ``--no-embed`` (the limit is checked before
a file is read, so the encoder has nothing to do with it).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core.config import LimitsSettings
from tests.support.cli import cli


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A private, empty PAPERPILOT_HOME."""
    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    return tmp_path / "home"

NOTE = "# Adapters\n\n## Abstract\n\nLoRA trains a low-rank update and keeps the base model frozen.\n"


def documents() -> list[str]:
    from core.config import load_settings
    from core.hub.store import HubStore

    s = load_settings()
    store = HubStore(s.paths.resolve(s.paths.hub_db))
    try:
        return sorted(Path(d["path"]).name for d in store.documents("mine"))
    finally:
        store.close()


def skipped_lines(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("paperpilot: skipped")]


@pytest.mark.parametrize("name, setting", [("big.md", "ingest_text_bytes"), ("big.txt", "ingest_text_bytes"),
                                           ("big.pdf", "ingest_file_bytes")])
def test_a_file_over_its_limit_is_skipped_and_the_rest_ingest(home, capsys, tmp_path, name, setting):
    cfg = tmp_path / "settings.yaml"
    cfg.write_text(f"limits:\n  {setting}: 1000\n", encoding="utf-8")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "small.md").write_text(NOTE, encoding="utf-8")
    (docs / name).write_bytes(b"%PDF-1.4 " * 200 if name.endswith(".pdf") else NOTE.encode() * 30)
    code, out, err = cli(capsys, "--config", str(cfg), "ingest", str(docs), "--collection", "mine", "--no-embed")
    assert code == 1 and "Traceback" not in err
    [line] = skipped_lines(err)
    assert name in line and f"limits.{setting}" in line and "over the limit of 1.0 kB" in line
    assert "1 added" in out and "1 failed" in out
    assert documents() == ["small.md"]


def test_the_default_text_limit_skips_an_11_mb_text_file(home, capsys, tmp_path):
    assert LimitsSettings().ingest_text_bytes == 10_000_000
    assert LimitsSettings().ingest_file_bytes == 100_000_000
    big = tmp_path / "dump.txt"
    with big.open("wb") as fh:
        fh.truncate(11_000_000)  # size is all the check looks at; a sparse file costs nothing
    small = tmp_path / "small.md"
    small.write_text(NOTE, encoding="utf-8")
    code, out, err = cli(capsys, "ingest", str(big), str(small), "--collection", "mine", "--no-embed")
    [line] = skipped_lines(err)
    assert code == 1 and "11.0 MB" in line and "limits.ingest_text_bytes" in line and "1 added" in out
    assert documents() == ["small.md"]
