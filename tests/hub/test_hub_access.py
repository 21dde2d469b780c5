"""Other local users and the HTTP hub (issue 26, item 8).

A real ``paperpilot hub serve --transport http`` on loopback with default settings refuses a
request without the token (401), from this user and from another uid alike, while the project's
own client finds the token in its data dir with no setup; that token is never sent to a port
another user listens on. One client flooding ``initialize`` calls is capped while others (another
loopback address, another uid) still get in, and an idle session is reaped.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import threading
import time

import httpx
import pytest
import uvicorn

from core.errors import BackendUnavailable
from core.hub import auth
from core.hub import server as hub_server
from tests.hub.test_auth import INIT, MCP_HEADERS, QUESTION, _client, _copy_home, _free_port, serving

NOBODY = 65534
as_root = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                             reason="acting as another uid needs root")

POST_INIT = r"""
import json, sys, urllib.error, urllib.request
req = urllib.request.Request(sys.argv[1], data=sys.argv[2].encode(), method="POST",
                             headers=json.loads(sys.argv[3]))
try:
    with urllib.request.urlopen(req, timeout=10) as r:
        print(r.status)
except urllib.error.HTTPError as e:
    print(e.code)
"""

RECORDER = r"""
import http.server, socket, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        print("AUTH", self.headers.get("Authorization"), flush=True)
        self.send_response(401); self.send_header("Content-Length", "0"); self.end_headers()
    do_GET = do_POST
    def log_message(self, *a): pass
srv = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H)
print("READY", flush=True)
srv.serve_forever()
"""


def nobody(*argv: str, **kw) -> subprocess.Popen | subprocess.CompletedProcess:
    python = shutil.which("python3", path="/usr/bin:/bin")
    args = dict(user=NOBODY, group=NOBODY, extra_groups=[], cwd="/", text=True)
    if kw.pop("background", False):
        return subprocess.Popen([python, "-I", "-c", *argv], stdout=subprocess.PIPE, **args)
    return subprocess.run([python, "-I", "-c", *argv], capture_output=True, timeout=60, check=True, **args)


def nobody_opens(url: str, token: str | None = None) -> int:
    headers = MCP_HEADERS | ({"Authorization": f"Bearer {token}"} if token else {})
    return int(nobody(POST_INIT, url, json.dumps(INIT), json.dumps(headers)).stdout)


@pytest.fixture(scope="module")
def default_hub(hub_home, tmp_path_factory):
    home = _copy_home(hub_home, tmp_path_factory.mktemp("default") / "home")
    with serving(home, "127.0.0.1", "127.0.0.1") as (url, _):
        yield url, home


def test_a_default_loopback_hub_needs_the_token_and_our_client_finds_it(default_hub, monkeypatch):
    url, home = default_hub
    with httpx.Client(timeout=10) as client:
        assert client.post(url, json=INIT, headers=MCP_HEADERS).status_code == 401
    token = auth.ensure_token(home)  # made by the hub at start, 0600
    monkeypatch.setenv("PAPERPILOT_HOME", str(home))
    assert auth.own_token(url) == token
    with httpx.Client(timeout=10) as client:
        assert client.post(url, json=INIT, headers=MCP_HEADERS | {"Authorization": f"Bearer {token}"}).status_code == 200

    async def search() -> list:
        async with _client(url, None) as hub:  # no mcp.token, no PAPERPILOT_HUB_TOKEN: found in the data dir
            return await hub.search(QUESTION, top_k=2)

    assert asyncio.run(search())


@as_root
def test_another_local_user_gets_401_from_a_default_loopback_hub(default_hub):
    url, home = default_hub
    assert nobody_opens(url) == 401


@as_root
def test_our_token_is_never_sent_to_a_port_another_user_listens_on(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    token = auth.ensure_token(home)
    monkeypatch.setenv("PAPERPILOT_HOME", str(home))
    port = _free_port("127.0.0.1")
    url = f"http://127.0.0.1:{port}/mcp"
    squatter = nobody(RECORDER, str(port), background=True)
    try:
        assert squatter.stdout.readline().strip() == "READY"
        assert auth.own_token(url) is None

        async def search() -> list:
            async with _client(url, None) as hub:
                return await hub.search(QUESTION, top_k=2)

        with pytest.raises(BackendUnavailable, match=r"needs a token \(HTTP 401\)"):
            asyncio.run(search())
    finally:
        squatter.terminate()
        seen = squatter.communicate(timeout=10)[0]
    assert "AUTH None" in seen and token not in seen


# -- the per-client session cap and the idle reaper, on the hub's own HTTP app ------------------------

@pytest.fixture
def small_hub(hub, monkeypatch):
    """The hub's streamable HTTP app on a loopback port: 3 sessions per client, 8 in all, 1 s idle."""
    monkeypatch.setattr(hub_server, "SESSION_IDLE_S", 1.0)
    monkeypatch.setattr(hub_server, "MAX_SESSIONS", 8)
    monkeypatch.setattr(hub_server, "PER_CLIENT_SESSIONS", 3)
    port = _free_port("127.0.0.1")
    app = hub_server.build_server(hub, port=port).streamable_http_app()
    srv = uvicorn.Server(uvicorn.Config(app, host="0.0.0.0", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "the hub app did not start"
        time.sleep(0.02)
    yield port
    srv.should_exit = True
    thread.join(10)


def _list_tools(client: httpx.Client, url: str, sid: str) -> int:
    body = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    return client.post(url, json=body, headers=MCP_HEADERS | {"mcp-session-id": sid,
                                                              "mcp-protocol-version": "2025-06-18"}).status_code


def test_a_client_flooding_initialize_is_capped_while_others_get_in(small_hub):
    url = f"http://127.0.0.1:{small_hub}/mcp"
    with httpx.Client(timeout=10) as flood:
        answers = [flood.post(url, json=INIT, headers=MCP_HEADERS) for _ in range(10)]
        assert [r.status_code for r in answers] == [200] * 3 + [503] * 7
        said = answers[-1].json()["error_description"]
        assert said == "this client already holds 3 hub sessions (the most one client may hold); " \
                       "close one, or unused ones end after 1 s idle"
        # another client on another loopback address still gets in
        other = httpx.Client(timeout=10, transport=httpx.HTTPTransport(local_address="127.0.0.2"))
        with other:
            assert other.post(url, json=INIT, headers=MCP_HEADERS).status_code == 200
        sid = answers[0].headers["mcp-session-id"]
        assert _list_tools(flood, url, sid) == 200
        time.sleep(2.2)  # the flood's sessions sit idle past the bound: reaped, and room again
        assert _list_tools(flood, url, sid) == 404
        assert flood.post(url, json=INIT, headers=MCP_HEADERS).status_code == 200


@as_root
def test_another_uid_on_the_same_address_is_another_client(small_hub):
    url = f"http://127.0.0.1:{small_hub}/mcp"
    with httpx.Client(timeout=10) as flood:
        assert [flood.post(url, json=INIT, headers=MCP_HEADERS).status_code for _ in range(4)] == [200] * 3 + [503]
    assert nobody_opens(url) == 200  # 127.0.0.1 too, but a different local user


def test_idle_sessions_are_reaped_within_a_minute():
    assert hub_server.SESSION_IDLE_S <= 60 and hub_server.PER_CLIENT_SESSIONS <= hub_server.MAX_SESSIONS // 2
