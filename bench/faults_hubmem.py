"""Fault experiment (optional): the memory of an HTTP hub that clients abandon.

An HTTP hub (``hub serve --transport http`` on a loopback port) gets 100 sessions that initialize,
list the tools and are then dropped without a DELETE (a killed client), and 20 clients that each
send one large query (1,900 characters: under the 2,000-character query-vector cache bound and
``limits.request_bytes``). Its RSS is read before, after the abandoned sessions, after the queries
and once the idle timeout has passed. The idle timeout is a constant (``core.hub.server.
SESSION_IDLE_S``, 60 s), not a setting, so this hub runs with it set to ``idle_s`` (20 s) by the
launcher line below; everything else is the shipped server. Sessions refused with 503 (the
``MAX_SESSIONS`` cap, and ``PER_CLIENT_SESSIONS`` for this one client) are counted: abandoned sessions
fill the cap until the idle timeout drops them. Every request carries the hub's token (``hub-token``).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import time
from pathlib import Path

from bench.faults_common import CLI, ROOT, env_for, home_with_hub, killpg, row
from bench.faults_hub import _free_port, _listening

HUB = ("import sys, core.hub.server as s; s.SESSION_IDLE_S = float(sys.argv[1]); "
       "from core.hub.__main__ import exit_now, serve; exit_now(serve(sys.argv[2:]))")
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-03-26", "capabilities": {}, "clientInfo": {"name": "faults", "version": "0"}}}
WORDS = "low rank adapters attention memory quantization rank scaling fine tuning optimizer ".split()


def _mb(pid: int) -> float:
    import psutil

    return round(psutil.Process(pid).memory_info().rss / 2**20, 1)


async def _abandon(url: str, n: int, auth: dict[str, str]) -> dict[int, int]:
    """``n`` sessions opened and dropped; how many got each HTTP status on ``initialize``."""
    import httpx

    codes: dict[int, int] = {}
    async with httpx.AsyncClient(timeout=30) as http:
        for _ in range(n):
            r = await http.post(url, json=INIT, headers=HEADERS | auth)
            codes[r.status_code] = codes.get(r.status_code, 0) + 1
            sid = r.headers.get("mcp-session-id")
            if r.status_code == 200 and sid:
                h = {**HEADERS, **auth, "mcp-session-id": sid, "mcp-protocol-version": "2025-03-26"}
                await http.post(url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=h)
                await http.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=h)
    return codes


async def _queries(url: str, n: int, auth: dict[str, str], chars: int = 1900) -> tuple[int, int]:
    """``n`` clients, one large query each; (answered, failed)."""
    import httpx
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    ok = bad = 0
    for i in range(n):
        query = " ".join(WORDS[(i + j) % len(WORDS)] for j in range(400))[:chars]
        try:
            async with httpx.AsyncClient(headers=auth, timeout=30) as http, \
                    streamable_http_client(url, http_client=http) as (read, write, _), ClientSession(read, write) as s:
                await s.initialize()
                res = await asyncio.wait_for(s.call_tool("query_knowledge_hub", {"query": query, "top_k": 5}), 120)
                ok += not res.isError
                bad += bool(res.isError)
        except Exception:  # noqa: BLE001 - a refused or failed client is counted, not raised
            bad += 1
    return ok, bad


def hub_memory(indexed: Path, abandoned: int = 100, queries: int = 20, idle_s: float = 20) -> dict:
    """RSS of an HTTP hub (MB): start, after abandoned sessions, after large queries, after idle."""
    home = home_with_hub(indexed, "faults-hubmem-")
    port = _free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    hub = subprocess.Popen([*CLI[:1], "-c", HUB, str(idle_s), "--transport", "http", "--port", str(port)],
                           cwd=ROOT, env=env_for(home), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           start_new_session=True)
    try:
        end = time.monotonic() + 90
        while not _listening(port) and hub.poll() is None and time.monotonic() < end:
            time.sleep(0.1)
        if not _listening(port):
            return row("HTTP hub memory", hang=1, lost="n/a", notes="the HTTP hub did not start", skipped=1)
        from core.hub.auth import read_token, token_path

        auth = {"Authorization": f"Bearer {read_token(token_path(home))}"}  # made by the hub at start
        warm = asyncio.run(_queries(url, 1, auth))  # the encoder and the index loaded
        rss = {"start": _mb(hub.pid)}
        codes = asyncio.run(_abandon(url, abandoned, auth))
        rss["abandoned"] = _mb(hub.pid)
        refused_before_idle = asyncio.run(_queries(url, 1, auth))[1]
        time.sleep(idle_s + 5)
        answered, failed = asyncio.run(_queries(url, queries, auth))
        rss["queries"] = _mb(hub.pid)
        time.sleep(idle_s + 5)
        rss["idle"] = _mb(hub.pid)
        alive = hub.poll() is None
    finally:
        killpg(hub)
        shutil.rmtree(home, ignore_errors=True)
    notes = (f"RSS MB: start {rss['start']}, after {abandoned} abandoned sessions {rss['abandoned']}, after "
             f"{queries} large queries {rss['queries']}, after idle {rss['idle']}; initialize statuses {codes}; "
             f"a new client {'refused' if refused_before_idle else 'served'} while they were held; idle timeout "
             f"{idle_s:g} s (shipped 60 s)")
    return row("HTTP hub memory", tries=queries, survived=answered if alive else 0, clear_error="n/a",
               hang=0, lost="n/a", notes=notes, rss=rss, failed=failed + (warm[1]), statuses=codes)
