"""A new data dir starts from the per-user index of the bundled notes (core.hub.bundled_cache).

Real hubs on real SQLite files with the real encoder: the first data dir indexes the notes and leaves a
copy in the cache; the next data dir copies it in and embeds nothing. A cache file that was changed,
or a cache folder others can write to, is not used: the notes are indexed as before.
"""

from __future__ import annotations

import shutil
import sqlite3

import pytest

from core.hub import bundled_cache
from core.hub.service import Hub

pytestmark = pytest.mark.slow  # indexes the bundled notes with the real encoder, twice


def _start(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    hub = Hub(path)
    hub.start(background=False)
    hub.wait_ready(dense=True)
    return hub


def _top(hub) -> list[str]:
    return [h.chunk.chunk_id for h in hub.query("What rank does LoRA use by default?", top_k=5)]


@pytest.fixture(scope="module")
def first(tmp_path_factory):
    """The first data dir of a user whose cache is empty: it indexes the notes and saves the copy."""
    root = tmp_path_factory.mktemp("bundled-cache")
    cache = root / "cache"
    mp = pytest.MonkeyPatch()
    mp.setenv("PAPERPILOT_INDEX_CACHE", str(cache))
    hub = _start(root / "first" / "hub.sqlite3")
    yield root, cache, hub
    hub.store.close()
    mp.undo()


@pytest.fixture
def cache_env(first, monkeypatch):
    root, cache, hub = first
    monkeypatch.setenv("PAPERPILOT_INDEX_CACHE", str(cache))
    return root, cache, hub


def _cached(cache):
    return sorted(p.name for p in cache.iterdir() if p.name.startswith("bundled-"))


def test_first_data_dir_indexes_and_leaves_a_copy(cache_env):
    root, cache, hub = cache_env
    assert not hub.restored and hub.total > 0  # it embedded the notes itself
    names = _cached(cache)
    assert len(names) == 2 and names[1] == names[0] + ".sha256"
    assert (cache / names[0]).stat().st_mode & 0o777 == 0o600


def test_second_data_dir_copies_the_index_and_embeds_nothing(cache_env, tmp_path):
    _, _, first_hub = cache_env
    hub = _start(tmp_path / "second" / "hub.sqlite3")
    try:
        assert hub.restored
        assert hub.total == 0  # no chunk was missing a vector: nothing was embedded
        assert hub.store.stats("default") == first_hub.store.stats("default")
        assert _top(hub) == _top(first_hub)
        assert (tmp_path / "second" / "hub.sqlite3").stat().st_mode & 0o777 == 0o600
    finally:
        hub.store.close()


def test_a_changed_cache_file_is_not_used(cache_env, tmp_path):
    _, cache, first_hub = cache_env
    db = cache / _cached(cache)[0]
    data = bytearray(db.read_bytes())
    data[len(data) // 2] ^= 0xFF
    db.write_bytes(bytes(data))
    hub = _start(tmp_path / "third" / "hub.sqlite3")
    try:
        assert not hub.restored and hub.total > 0  # indexed the notes itself
        assert _top(hub) == _top(first_hub)
    finally:
        hub.store.close()
    assert db.read_bytes() != bytes(data)  # and replaced the bad copy with its own
    assert bundled_cache.restore(tmp_path / "fourth.sqlite3")


def test_a_cache_folder_others_can_write_to_is_not_used(cache_env, tmp_path):
    _, cache, _ = cache_env
    cache.chmod(0o777)
    try:
        assert bundled_cache.folder() is None
        assert not bundled_cache.restore(tmp_path / "hub.sqlite3")
        assert not (tmp_path / "hub.sqlite3").exists()
    finally:
        cache.chmod(0o700)
    assert bundled_cache.restore(tmp_path / "hub.sqlite3")


def test_an_existing_hub_database_is_never_replaced(cache_env, tmp_path):
    db = tmp_path / "hub.sqlite3"
    db.write_bytes(b"")
    assert not bundled_cache.restore(db)
    assert db.read_bytes() == b""


def test_an_index_holding_more_than_the_notes_is_not_cached(cache_env, tmp_path):
    _, cache, hub = cache_env
    copy = tmp_path / "hub.sqlite3"
    with sqlite3.connect(hub.store.path) as src, sqlite3.connect(copy) as db:
        src.backup(db)
        db.execute("INSERT INTO documents(doc_id, collection, path, doc_type, file_hash, title, created_at,"
                   " updated_at) VALUES('mine', 'default', '/home/me/notes.md', 'markdown', 'x', 'Mine', 0, 0)")
    for name in _cached(cache):
        shutil.move(cache / name, tmp_path / name)
    try:
        assert not bundled_cache.save(copy)
        assert _cached(cache) == []
    finally:
        for p in tmp_path.glob("bundled-*"):
            shutil.move(p, cache / p.name)


def test_disabled_cache_is_neither_read_nor_written(cache_env, tmp_path, monkeypatch):
    monkeypatch.setenv("PAPERPILOT_INDEX_CACHE", "off")
    assert bundled_cache.folder() is None
    assert not bundled_cache.restore(tmp_path / "hub.sqlite3")


def test_the_hub_server_on_a_new_data_dir_copies_the_index(cache_env, tmp_path, monkeypatch):
    """``python -m core.hub serve`` opens its store through open_hub, which makes the (empty) file before
    the hub starts: the copy must be put there first."""
    from core.config import load_settings
    from core.hub.__main__ import open_hub

    import logging
    import warnings

    monkeypatch.setenv("PAPERPILOT_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir(mode=0o700)
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    # open_hub sets up the server process's logging (root handler -> hub.log in this tmp dir, warnings
    # ignored): put the test process's back, or every later test logs into a deleted file
    with warnings.catch_warnings():
        hub = open_hub(load_settings(use_user_file=False))
        try:
            hub.start(background=False)
            hub.wait_ready(dense=True)
            assert hub.restored and hub.total == 0
        finally:
            hub.store.close()
            for h in root.handlers:
                if h not in handlers:
                    h.close()
            root.handlers[:] = handlers
            root.setLevel(level)
            logging.captureWarnings(False)


def test_an_older_data_dir_does_not_fill_the_cache(cache_env, tmp_path):
    """A store that already held the notes when its hub started may have been indexed by older code:
    only a store a hub filled from empty is saved."""
    _, cache, hub = cache_env
    old = tmp_path / "old" / "hub.sqlite3"
    old.parent.mkdir()
    with sqlite3.connect(hub.store.path) as src, sqlite3.connect(old) as db:
        src.backup(db)
    aside = tmp_path / "aside"
    aside.mkdir()
    for name in _cached(cache):
        shutil.move(cache / name, aside / name)
    try:
        again = _start(old)
        again.store.close()
        assert not again.restored and again.total == 0
        assert _cached(cache) == []
    finally:
        for p in aside.iterdir():
            shutil.move(p, cache / p.name)
