"""The collection each conversation was asked in is remembered in the app's preferences file."""

from __future__ import annotations

import json
from types import SimpleNamespace

from paperpilot_tui import session_collections as sc


def _settings(tmp_path):
    return SimpleNamespace(paths=SimpleNamespace(resolve=lambda name: tmp_path / name))


def test_a_session_recalls_the_collection_it_was_last_asked_in(tmp_path):
    settings = _settings(tmp_path)
    assert sc.recall(settings, "s1") is None
    sc.remember(settings, "s1", "thesis")
    sc.remember(settings, "s2", "default")
    sc.remember(settings, "s1", "mine")
    assert sc.recall(settings, "s1") == "mine" and sc.recall(settings, "s2") == "default"
    stored = json.loads((tmp_path / "tui-prefs.json").read_text())[sc.KEY]
    assert stored == [["s2", "default"], ["s1", "mine"]]  # the newest last


def test_only_the_newest_sessions_are_kept_and_other_prefs_survive(tmp_path, monkeypatch):
    settings = _settings(tmp_path)
    (tmp_path / "tui-prefs.json").write_text(json.dumps({"theme": "nord"}))
    monkeypatch.setattr(sc, "KEEP", 3)
    for i in range(5):
        sc.remember(settings, f"s{i}", f"c{i}")
    prefs = json.loads((tmp_path / "tui-prefs.json").read_text())
    assert [p[0] for p in prefs[sc.KEY]] == ["s2", "s3", "s4"] and prefs["theme"] == "nord"
    assert sc.recall(settings, "s0") is None


def test_an_unreadable_prefs_file_recalls_nothing(tmp_path):
    settings = _settings(tmp_path)
    (tmp_path / "tui-prefs.json").write_text("{not json")
    assert sc.recall(settings, "s1") is None
    sc.remember(settings, "s1", "mine")  # replaces the broken file
    assert sc.recall(settings, "s1") == "mine"
