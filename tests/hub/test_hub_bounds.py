"""The long-lived HTTP hub stays bounded (issue 17): abandoned sessions are dropped, the number of
open sessions is capped, and the per-collection and per-query caches have a size."""

from __future__ import annotations

import threading
import time

import httpx
import numpy as np
import pytest
import uvicorn

from core.hub import server as hub_server
from core.hub.lru import LRU
from core.hub.search import CACHED_QUERY_CHARS, Searcher
from tests.hub.test_deadlines import free_port

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def http_hub(hub, monkeypatch):
    """The hub's own streamable HTTP app on a loopback port, with a 0.5 s idle timeout and 2 sessions."""
    monkeypatch.setattr(hub_server, "SESSION_IDLE_S", 0.5)
    monkeypatch.setattr(hub_server, "MAX_SESSIONS", 2)
    port = free_port()
    app = hub_server.build_server(hub, port=port).streamable_http_app()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the hub app did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}/mcp"
    srv.should_exit = True
    thread.join(10)


def _open(client: httpx.Client, url: str) -> httpx.Response:
    return client.post(url, json=INIT, headers=HEADERS)


def _list_tools(client: httpx.Client, url: str, sid: str) -> int:
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    return client.post(url, json=body, headers=HEADERS | {"mcp-session-id": sid,
                                                          "mcp-protocol-version": "2025-06-18"}).status_code


def test_abandoned_sessions_are_dropped_and_capped(http_hub):
    with httpx.Client(timeout=10) as client:
        first, second = _open(client, http_hub), _open(client, http_hub)
        assert first.status_code == second.status_code == 200
        assert _open(client, http_hub).status_code == 503  # at the cap, a third is refused
        sid = first.headers["mcp-session-id"]
        assert _list_tools(client, http_hub, sid) == 200  # a session in use is kept
        time.sleep(1.2)  # both left idle: abandoned
        assert _list_tools(client, http_hub, sid) == 404
        assert _open(client, http_hub).status_code == 200  # room again


def test_lru_keeps_the_most_recently_used():
    cache: LRU[str, int] = LRU(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "b" is now the least recent
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3 and len(cache) == 2


def test_query_cache_keeps_short_queries_only(hub):
    calls: list[str] = []

    def embed(q: str) -> np.ndarray:
        calls.append(q)
        return np.ones(3, dtype=np.float32)

    searcher = Searcher(hub.store, embed_query=embed)
    long = "word " * (CACHED_QUERY_CHARS // 5 + 1)
    for q in ("lora rank", "lora rank", long, long):
        searcher.embed_query(q)
    assert calls == ["lora rank", long, long] and len(searcher._qcache) == 1
