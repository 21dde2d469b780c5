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


# ---- the @paper scope of each question (paperpilot_tui.session_scopes) -------------------------------

def test_a_session_recalls_the_scope_of_each_question_the_latest_ask_winning(tmp_path):
    from paperpilot_tui import session_scopes as ss

    settings = _settings(tmp_path)
    assert ss.recall(settings, "s1") == {}
    ss.remember(settings, "s1", "What does Thistlenet save?", "thistlenet")
    ss.remember(settings, "s1", "What is LoRA?", None)  # unscoped: nothing stored
    ss.remember(settings, "s2", "What does Thistlenet save?", "other")
    sc.remember(settings, "s1", "mine")  # the collection map beside it is kept
    assert ss.recall(settings, "s1") == {"What does Thistlenet save?": "thistlenet"}
    assert ss.recall(settings, "s2") == {"What does Thistlenet save?": "other"}
    ss.remember(settings, "s1", "What does Thistlenet save?", None)  # asked again unscoped
    assert ss.recall(settings, "s1") == {} and sc.recall(settings, "s1") == "mine"


def test_only_the_newest_scopes_are_kept(tmp_path, monkeypatch):
    from paperpilot_tui import session_scopes as ss

    settings = _settings(tmp_path)
    monkeypatch.setattr(ss, "KEEP", 2)
    for i in range(4):
        ss.remember(settings, "s", f"q{i}", f"d{i}")
    assert ss.recall(settings, "s") == {"q2": "d2", "q3": "d3"}
