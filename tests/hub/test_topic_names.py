"""Human names for topics: stored by the hub's ``name_topics`` and bound to each topic's documents,
given by the LLM brain (one call, each name checked), and asked for by ``paperpilot hub topics --name``."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core import scope
from core.brains.llm.brain import LLMBrain
from core.brains.llm.chat import build_chat_model
from core.brains.offline.brain import OfflineBrain
from core.config import Settings
from core.events import Notice
from core.hub import topics
from core.hub.service import Hub, HubError
from core.hub.store import HubStore, NewChunk
from core.telemetry import capture
from tests.support.fake_openai import FakeServer

REPO = Path(__file__).resolve().parents[2]


def _copy_home(hub_home: Path, to: Path) -> Path:
    """A home of its own (names written here never reach the shared one)."""
    to.mkdir()
    src = sqlite3.connect(hub_home / "hub.sqlite3")
    dst = sqlite3.connect(to / "hub.sqlite3")
    src.backup(dst)
    src.close()
    dst.close()
    return to


# -- the hub: storing names ---------------------------------------------------------------------------
def _copy_to_postgres(sqlite_home: Path, tmp_path: Path, dsn: str) -> None:
    """The indexed SQLite hub copied into the empty PostgreSQL database ``dsn`` (no re-embedding)."""
    from core.hub.pg.store import PgStore
    from core.hub.pg.transfer import copy_hub

    home = _copy_home(sqlite_home, tmp_path / "src")
    dst = PgStore(dsn)
    copy_hub(HubStore(home / "hub.sqlite3"), dst)
    dst.close()


@pytest.fixture(params=["sqlite", "postgres"])
def own_hub(request, sqlite_hub_home, tmp_path) -> Hub:
    """A hub of this test's own over the indexed bundled corpus, on each backend."""
    if request.param == "sqlite":
        hub = Hub(_copy_home(sqlite_hub_home, tmp_path / "home") / "hub.sqlite3", sync=False)
    else:
        dsn = request.getfixturevalue("pg_dsn")
        _copy_to_postgres(sqlite_hub_home, tmp_path, dsn)
        hub = Hub(tmp_path / "unused.sqlite3", sync=False, dsn=dsn)
    hub.start(background=False)
    yield hub
    hub.store.close()


def test_name_topics_round_trip_and_a_name_scopes_like_a_label(own_hub):
    hub = own_hub
    before = hub.list_topics("default")
    assert all(t.name is None for t in before.topics)
    lora = next(t for t in before.topics if "lora" in {d.doc_id for d in t.documents})
    named = hub.name_topics({lora.topic_id: "  Parameter-efficient   fine-tuning "}, "default")
    got = {t.topic_id: t for t in named.topics}
    assert got[lora.topic_id].name == "Parameter-efficient fine-tuning" and got[lora.topic_id].label == lora.label
    assert [t.name for t in hub.list_topics("default").topics if t.topic_id != lora.topic_id] == \
        [None] * (len(before.topics) - 1)  # only the named one has a name; the rest keep their labels
    again = {t.topic_id: t for t in hub.list_topics("default").topics}
    assert again[lora.topic_id].name == "Parameter-efficient fine-tuning"
    by_name = hub.topic_documents("parameter-efficient fine-tuning", "default")  # found by its name
    assert by_name.topic.topic_id == lora.topic_id
    hits = hub.query("memory", 5, "default", topic="Parameter-efficient fine-tuning")
    assert hits and {h.chunk.doc_id for h in hits} <= {d.doc_id for d in lora.documents}
    with pytest.raises(HubError, match="unknown topic"):
        hub.name_topics({"no-such-topic": "Anything"}, "default")
    with pytest.raises(HubError, match="at most 80"):
        hub.name_topics({lora.topic_id: "x" * 81}, "default")
    hub.name_topics({lora.topic_id: ""}, "default")  # clears it
    assert {t.topic_id: t.name for t in hub.list_topics("default").topics}[lora.topic_id] is None



def test_migrate_to_postgres_keeps_the_topic_names(sqlite_hub_home, pg_dsn, tmp_path):
    home = _copy_home(sqlite_hub_home, tmp_path / "home")
    sq = Hub(home / "hub.sqlite3", sync=False)
    sq.start(background=False)
    lora = next(t for t in sq.list_topics("default").topics if "lora" in {d.doc_id for d in t.documents})
    sq.name_topics({lora.topic_id: "Efficient fine-tuning"}, "default")
    _copy_to_postgres(home, tmp_path, pg_dsn)
    pg = Hub(tmp_path / "unused.sqlite3", sync=False, dsn=pg_dsn)
    pg.start(background=False)
    got = pg.list_topics("default")
    assert {t.topic_id: t.name for t in got.topics} == {t.topic_id: t.name for t in sq.list_topics("default").topics}
    assert {t.topic_id: t.name for t in got.topics}[lora.topic_id] == "Efficient fine-tuning"
    pg.store.close()

SPEECH, VISION = "speech audio acoustic phoneme", "image pixels detection backbone"
CENTRES = np.random.default_rng(5).normal(size=(2, 384))


@pytest.fixture(params=["sqlite", "postgres"])
def empty_store(request, tmp_path):
    """An empty store on each backend."""
    if request.param == "sqlite":
        return HubStore(tmp_path / "hub.sqlite3")
    from core.hub.pg.store import PgStore

    return PgStore(request.getfixturevalue("pg_dsn"))


def _blob_store(store):
    """Two well-separated groups of three notes each (speech, vision), with given vectors."""
    rng = np.random.default_rng(6)
    for group, words, centre in (("speech", SPEECH, CENTRES[0]), ("vision", VISION, CENTRES[1])):
        for i in range(3):
            _put(store, f"{group}{i}", words, centre + 0.05 * rng.normal(size=384))
    return store


def _put(store: HubStore, doc_id: str, words: str, vec: np.ndarray) -> None:
    store.put_document({"doc_id": doc_id, "collection": "c", "path": f"/x/{doc_id}.md", "doc_type": "markdown",
                        "file_hash": doc_id, "title": f"Note {doc_id}"},
                       [NewChunk(["Note", "Body"], f"{words} note {doc_id}",
                                 vector=(vec / np.linalg.norm(vec)).astype(np.float32))])


def _names(store: HubStore) -> dict[str, str]:
    """group (speech/vision) -> the name its topic carries now."""
    return {t.documents[0][0].rstrip("0123456789"): t.name for t in topics.current(store, "c").topics}


def test_a_name_survives_an_unchanged_recompute_and_is_dropped_when_the_documents_change(empty_store):
    store = _blob_store(empty_store)
    ts = topics.current(store, "c")
    assert sorted(sorted(d for d, _ in t.documents) for t in ts.topics) == [
        ["speech0", "speech1", "speech2"], ["vision0", "vision1", "vision2"]]
    ids = {t.documents[0][0].rstrip("0123456789"): t.topic_id for t in ts.topics}
    topics.set_names(store, ts, {ids["speech"]: "Speech recognition", ids["vision"]: "Object detection"})
    assert _names(store) == {"speech": "Speech recognition", "vision": "Object detection"}
    # recomputed from scratch (a new ingest of the same documents): the same clusters keep their names
    topics.save(store, topics.compute(store, "c"))
    assert _names(store) == {"speech": "Speech recognition", "vision": "Object detection"}
    # a fourth speech note moves the revision: the speech topic's documents changed, its name goes
    _put(store, "speech3", SPEECH, CENTRES[0])
    now = topics.current(store, "c")
    assert sorted(d for d, _ in next(t for t in now.topics if t.documents[0][0].startswith("speech")).documents) \
        == ["speech0", "speech1", "speech2", "speech3"]
    assert _names(store) == {"speech": "", "vision": "Object detection"}


def test_an_existing_store_with_topics_gets_the_names_table(tmp_path):
    db = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(db)
    conn.executescript("CREATE TABLE collections(name TEXT PRIMARY KEY, created_at REAL NOT NULL,"
                       " revision INTEGER NOT NULL DEFAULT 0);"
                       "CREATE TABLE topics(collection TEXT NOT NULL, topic_id TEXT NOT NULL, position INTEGER"
                       " NOT NULL, label TEXT NOT NULL, keyphrases TEXT NOT NULL, PRIMARY KEY(collection, topic_id));")
    conn.close()
    store = HubStore(db)
    cols = {r[1] for r in store.conn().execute("PRAGMA table_info(topic_names)")}
    assert {"collection", "topic_id", "name", "members"} <= cols


# -- the brain: one LLM call names every topic --------------------------------------------------------
TOPICS = [
    scope.Topic("lora", "lora / qlora", ("lora", "qlora", "quantization", "adapters"),
                ("LoRA: Low-Rank Adaptation of Large Language Models", "QLoRA: Efficient Finetuning of Quantized LLMs")),
    scope.Topic("reward", "reward / policy", ("reward", "policy", "dpo", "rlhf"),
                ("Direct Preference Optimization", "Training language models to follow instructions")),
    scope.Topic("reasoning", "reasoning / react", ("reasoning", "react", "chain-of-thought"),
                ("ReAct: Synergizing Reasoning and Acting", "Chain-of-Thought Prompting")),
]


def _llm(url: str) -> LLMBrain:
    settings = Settings.model_validate({"llm": {"provider": "openai", "base_url": url, "api_key": "sk-test",
                                                "retries": 0, "timeout": 5}})
    return LLMBrain(build_chat_model(settings), settings)


async def test_the_llm_names_all_topics_in_one_call_and_a_bad_name_keeps_the_label():
    with FakeServer() as server:
        server.tool_args = {"names": {
            "1": "Parameter-efficient fine-tuning",
            "2": "Direct Preference Optimization",  # a copy of a document title
            "3": "list of strings",  # a format word
        }}
        notices: list = []
        with capture(notices.append):
            names = await _llm(server.url).name_topics(TOPICS)
    assert names == {"lora": "Parameter-efficient fine-tuning"}  # the others keep their keyphrase labels
    assert len(server.requests) == 1
    prompt = json.dumps(server.requests[0]["messages"])
    assert "lora, qlora, quantization" in prompt and "ReAct: Synergizing Reasoning and Acting" in prompt
    warning = " ".join(n.message for n in notices if isinstance(n, Notice))
    assert "a document title" in warning and "format word" in warning and "keyphrase label" in warning


@pytest.mark.parametrize("names, kept", [
    ({"1": "Fine-tuning", "2": "Learning from human preference feedback in language models", "3": ""}, {}),  # 1, 7, 0 words
    ({"lora": "Low-rank adaptation", "reward": "Low-rank adaptation", "reasoning": "Topic 3"},
     {"lora": "Low-rank adaptation"}),  # ids as keys; a repeated name and a placeholder
    ({"1": "Quantized: adapters", "9": "Agent reasoning", "2": "Preference alignment"},
     {"reward": "Preference alignment"}),  # punctuation that breaks a quoted topic clause; an unknown topic
])
async def test_each_name_is_checked(names, kept):
    with FakeServer() as server:
        server.tool_args = {"names": names}
        assert await _llm(server.url).name_topics(TOPICS) == kept


async def test_a_malformed_reply_keeps_every_label():
    with FakeServer() as server:
        server.tool_args = {"unrelated": 3}
        server.text = "Sure! Here are some great names for your topics."
        notices: list = []
        with capture(notices.append):
            assert await _llm(server.url).name_topics(TOPICS) == {}
    assert len(server.requests) == 2  # the call and its one repair request
    assert any("keyphrase label" in n.message for n in notices if isinstance(n, Notice))


async def test_the_offline_brain_keeps_the_keyphrase_labels():
    assert await OfflineBrain().name_topics(TOPICS) == {}


# -- paperpilot hub topics -------------------------------------------------------------------------------
def _cli(home: Path, *args: str, config: Path | None = None) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    env |= {"PAPERPILOT_HOME": str(home), "PYTHONPATH": str(REPO)}
    cfg = ["--config", str(config)] if config else []
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "hub", "topics", *cfg, *args], env=env,
                          cwd=REPO, capture_output=True, text=True, timeout=240)


def test_hub_topics_name_with_the_offline_brain_says_so_and_exits_2(tmp_path):
    out = _cli(tmp_path, "--name", "--llm", "offline")
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().count("\n") == 0 and "LLM brain" in out.stderr and not out.stdout


def test_hub_topics_name_stores_the_llm_names_through_the_hub(hub_home, tmp_path):
    home = _copy_home(hub_home, tmp_path / "home")
    listed = _cli(home)
    assert listed.returncode == 0, listed.stderr
    ids = [line.split()[0] for line in listed.stdout.splitlines() if line.startswith("  ")]
    assert len(ids) >= 3
    cfg = tmp_path / "settings.yaml"
    with FakeServer() as server:
        server.tool_args = {"names": {"1": "Efficient fine-tuning", "2": "Direct Preference Optimization"}}
        cfg.write_text(f"llm:\n  provider: openai\n  base_url: {server.url}\n  api_key: sk-test\n  retries: 0\n",
                       encoding="utf-8")
        named = _cli(home, "--name", config=cfg)
    assert named.returncode == 0, named.stderr
    assert len(server.requests) == 1
    first = next(line for line in named.stdout.splitlines() if line.startswith(f"  {ids[0]} "))
    assert "Efficient fine-tuning" in first
    assert "1 of" in named.stdout and "named by llm:" in named.stdout
    assert "keyphrase label" in named.stderr  # the title copy was refused
    stored = topics.load(HubStore(home / "hub.sqlite3"), "default")
    assert [t.name for t in stored.topics][:2] == ["Efficient fine-tuning", ""]


# -- the app's Topics screen ---------------------------------------------------------------------------
async def test_the_topics_screen_shows_a_given_name_and_asks_within_it(tmp_path):
    from types import SimpleNamespace

    from core.config import load_settings
    from paperpilot_tui.app import PaperPilotApp
    from paperpilot_tui.screens.topics import TopicsScreen
    from tests.tui.conftest import wait_until
    from tests.tui.test_topics_screen import RECORDED

    recorded = json.loads(json.dumps(RECORDED))
    second = recorded["topics"][1]
    second["name"] = "Preference-based alignment"

    class Named:
        async def list_topics(self, collection=None):
            return SimpleNamespace(structured=recorded, texts=[])

    settings = load_settings(use_user_file=False)
    settings.paths.home = str(tmp_path / "home")
    settings.agent.router = settings.agent.critic = "rules"
    app = PaperPilotApp(settings, start_backend=False, blink=False)
    app.session.agent = SimpleNamespace(hub=Named(), collection="default", brain_name="offline", hub_status="hub")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("alt+t")
        await wait_until(pilot, lambda: isinstance(app.screen, TopicsScreen) and bool(app.screen.topics))
        table = app.screen.query_one("DataTable")
        assert table.get_row_at(1)[0] == "Preference-based alignment"
        assert table.get_row_at(0)[0] == recorded["topics"][0]["label"]  # not named: its label
        await pilot.press("down")
        detail = str(app.screen.query_one("#topic-detail").render())
        assert "Preference-based alignment" in detail and f"label {second['label']}" in detail
        await pilot.press("enter")
        await wait_until(pilot, lambda: app.screen is app.main_screen)
        box = app.main_screen.query_one("#chat-input")
        assert box.text == 'In the topic "Preference-based alignment": '
        found = scope.match(box.text + "what do these papers propose?", scope.parse_topics(recorded))
        assert found is not None and found.topic.topic_id == second["topic_id"]  # the name scopes like a label
