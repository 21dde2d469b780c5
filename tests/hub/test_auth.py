"""Remote access (issue 14 item 6): a real ``paperpilot hub serve --transport http`` process bound to
every interface and reached through the machine's non-loopback address needs the bearer token of
``hub-token``; a loopback hub with ``hub.require_token: always`` needs it too; requests past
``limits.request_bytes`` / ``limits.hub_connections`` get 413 / 503; every refusal reaches the
client as one line. The servers run over copies of the session's indexed hub home; waits poll with
a deadline, nothing is timed.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import psutil
import pytest
from pydantic import SecretStr

from core.config import MCPConnection, load_settings
from core.errors import BackendUnavailable
from core.hub import auth
from core.tools.hub_client import HubClient

REPO = Path(__file__).resolve().parents[2]
QUESTION = "What rank does LoRA use by default?"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PAPERPILOT_HUB_TOKEN"}
    return env | {"PAPERPILOT_HOME": str(home), "PAPERPILOT_NO_WARM": "1"} | extra


def cli(home: Path, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=timeout, env=_env(home, **env))


def _public_ip() -> str:
    """This machine's first non-loopback IPv4 address (127.0.0.1 if it has none)."""
    for addrs in psutil.net_if_addrs().values():
        for a in addrs:
            if a.family == socket.AF_INET and not a.address.startswith("127."):
                return a.address
    return "127.0.0.1"


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _copy_home(hub_home: Path, dest: Path, settings: str = "") -> Path:
    dest.mkdir(mode=0o700, parents=True, exist_ok=True)
    for name in os.listdir(hub_home):
        if name.startswith("hub.sqlite3"):
            shutil.copy2(hub_home / name, dest / name)
    if settings:
        (dest / "settings.yaml").write_text(settings, encoding="utf-8")
    return dest


@contextmanager
def serving(home: Path, host: str, connect_to: str, *hub_args: str):
    """A real ``paperpilot hub serve --transport http --host HOST`` process; yields (url, process)."""
    port = _free_port(host)
    args = [sys.executable, "-m", "paperpilot_tui.cli.main", "hub", *hub_args, "serve", "--transport", "http",
            "--host", host, "--port", str(port)]
    log = (home / "serve.out").open("w")
    proc = subprocess.Popen(args, cwd=REPO, env=_env(home), stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, (home / "serve.out").read_text()
            try:
                socket.create_connection((connect_to, port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the hub did not start listening"
                time.sleep(0.1)
        yield f"http://{connect_to}:{port}/mcp", proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def _client(url: str, token: str | None = None) -> HubClient:
    s = load_settings(use_user_file=False)
    s.mcp.connections["remote"] = MCPConnection(transport="streamable_http", url=url)
    s.mcp.connection, s.mcp.token, s.mcp.connect_timeout = "remote", SecretStr(token) if token else None, 20
    return HubClient(s.mcp)


async def _search(url: str, token: str | None) -> list:
    async with _client(url, token) as hub:
        return await hub.search(QUESTION, top_k=2)


# -- the token file ---------------------------------------------------------------------------------

def test_the_token_is_made_private_from_its_first_byte_and_reused(tmp_path, monkeypatch):
    created: list[tuple[str, int, int]] = []
    real_open = os.open

    def watch(path, flags, mode=0o777, *a, **kw):
        if flags & os.O_CREAT and str(tmp_path) in str(path):
            created.append((str(path), flags, mode))
        return real_open(path, flags, mode, *a, **kw)

    monkeypatch.setattr(os, "open", watch)
    old = os.umask(0)  # a permissive umask must not widen it
    try:
        first = auth.ensure_token(tmp_path)
    finally:
        os.umask(old)
    path = auth.token_path(tmp_path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert created and all(mode == 0o600 and flags & os.O_EXCL for _, flags, mode in created)
    assert len(first) >= 40 and auth.ensure_token(tmp_path) == first  # reused
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hub-token"]  # no temp file left behind
    rotated = auth.rotate_token(tmp_path)
    assert rotated != first and auth.ensure_token(tmp_path) == rotated
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_token_file_others_can_read_is_refused(tmp_path):
    auth.ensure_token(tmp_path)
    auth.token_path(tmp_path).chmod(0o644)
    with pytest.raises(auth.TokenFileError, match=r"readable by others.*hub token --rotate"):
        auth.ensure_token(tmp_path)


def test_every_bind_needs_the_token_unless_auto_on_loopback():
    for host in ("127.0.0.1", "127.0.0.2", "::1", "localhost"):
        assert auth.is_loopback(host) and not auth.needs_token(host, "auto"), host
        assert auth.needs_token(host) and auth.needs_token(host, "always"), host
    for host in ("0.0.0.0", "::", "192.0.2.2", "10.1.2.3"):
        assert not auth.is_loopback(host) and auth.needs_token(host), host


def test_the_token_is_compared_in_constant_time_and_re_read_after_a_rotation(tmp_path):
    verifier = auth.verifier_for("0.0.0.0", home=tmp_path)
    token = auth.ensure_token(tmp_path)
    assert asyncio.run(verifier.verify_token(token)) is not None
    assert asyncio.run(verifier.verify_token(token[:-1])) is None
    assert asyncio.run(verifier.verify_token("")) is None
    new = auth.rotate_token(tmp_path)
    assert asyncio.run(verifier.verify_token(token)) is None
    assert asyncio.run(verifier.verify_token(new)) is not None
    assert auth.verifier_for("127.0.0.1", "auto", home=tmp_path) is None


def test_the_client_token_comes_from_the_environment_and_is_redacted(monkeypatch):
    monkeypatch.setenv("PAPERPILOT_HUB_TOKEN", "tok-from-env-123")
    s = load_settings(use_user_file=False)
    assert s.mcp.token.get_secret_value() == "tok-from-env-123" and "tok-from-env-123" in s.secrets()
    assert "tok-from-env-123" not in repr(s.mcp)


# -- a hub on every interface, reached through the machine's address -----------------------------------

@pytest.fixture(scope="module")
def public_hub(hub_home, tmp_path_factory):
    home = _copy_home(hub_home, tmp_path_factory.mktemp("public") / "home")
    with serving(home, "0.0.0.0", _public_ip()) as (url, proc):
        yield url, proc, home


def test_a_hub_on_0_0_0_0_refuses_requests_without_the_token_and_serves_them_with_it(public_hub):
    url, _, home = public_hub
    assert not url.startswith("http://127.")  # connected through the machine's own address
    token = cli(home, "hub", "token").stdout.strip()
    assert stat.S_IMODE(auth.token_path(home).stat().st_mode) == 0o600
    with httpx.Client(timeout=10) as client:
        bare = client.post(url, json=INIT, headers=MCP_HEADERS)
        wrong = client.post(url, json=INIT, headers=MCP_HEADERS | {"Authorization": "Bearer " + token[:-1] + "x"})
        right = client.post(url, json=INIT, headers=MCP_HEADERS | {"Authorization": f"Bearer {token}"})
    for refused in (bare, wrong):
        assert refused.status_code == 401 and refused.json()["error"] == "invalid_token"
        assert refused.headers["www-authenticate"].startswith("Bearer")
    assert right.status_code == 200 and right.headers["mcp-session-id"]

    with pytest.raises(BackendUnavailable) as err:
        asyncio.run(_search(url, None))
    assert str(err.value) == (f"the hub at {url} needs a token (HTTP 401); set mcp.token or PAPERPILOT_HUB_TOKEN "
                              "to what `paperpilot hub token` prints on the hub's machine")
    with pytest.raises(BackendUnavailable, match=r"refused the token \(HTTP 401\); set mcp.token"):
        asyncio.run(_search(url, "not-the-token"))
    hits = asyncio.run(_search(url, token))
    assert hits and any("lora" in h.doc_id.lower() for h in hits)


def test_paperpilot_ask_against_the_remote_hub(public_hub, tmp_path):
    url, proc, home = public_hub
    token = cli(home, "hub", "token").stdout.strip()
    client_home = tmp_path / "client"
    client_home.mkdir(mode=0o700)
    config = client_home / "remote.yaml"
    config.write_text(f"mcp:\n  connection: remote\n  connections:\n    remote:\n"
                      f"      transport: streamable_http\n      url: {url}\n", encoding="utf-8")
    ask = ("--offline", "ask", "--config", str(config), QUESTION)

    refused = cli(client_home, *ask, timeout=180)
    assert refused.returncode == 3, refused.stdout + refused.stderr
    assert refused.stderr.strip() == (f"paperpilot: the hub at {url} needs a token (HTTP 401); set mcp.token or "
                                      "PAPERPILOT_HUB_TOKEN to what `paperpilot hub token` prints on the hub's machine")
    wrong = cli(client_home, *ask, timeout=180, PAPERPILOT_HUB_TOKEN="wrong")
    assert wrong.returncode == 3 and "refused the token" in wrong.stderr and "Traceback" not in wrong.stderr

    ok = cli(client_home, "--offline", "ask", "--json", *ask[2:], timeout=180, PAPERPILOT_HUB_TOKEN=token)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    answer = json.loads(ok.stdout)
    assert answer["hub"] == f"remote ({url})" and "r = 8" in answer["final_answer"] and answer["sources"]

    # never on a command line, in the server's output or log, or in what the client stored
    cmdlines = [" ".join(p.cmdline()) for p in [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(True)]]
    assert cmdlines and not any(token in c for c in cmdlines)
    for f in [*home.rglob("*.log"), home / "serve.out", *client_home.rglob("*")]:
        if f.is_file() and f.name != "hub-token":
            assert token.encode() not in f.read_bytes(), f


def test_a_rotated_token_takes_effect_without_a_restart(public_hub):
    url, _, home = public_hub
    old = cli(home, "hub", "token").stdout.strip()
    new = cli(home, "hub", "token", "--rotate").stdout.strip()
    assert new and new != old
    with httpx.Client(timeout=10) as client:
        assert client.post(url, json=INIT, headers=MCP_HEADERS | {"Authorization": f"Bearer {old}"}).status_code == 401
        assert client.post(url, json=INIT, headers=MCP_HEADERS | {"Authorization": f"Bearer {new}"}).status_code == 200


# -- a loopback hub that always asks for the token, with small limits -----------------------------------

@pytest.fixture(scope="module")
def strict_hub(hub_home, tmp_path_factory):
    home = _copy_home(hub_home, tmp_path_factory.mktemp("strict") / "home",
                      "hub:\n  require_token: always\nlimits:\n  request_bytes: 2000\n  hub_connections: 4\n")
    with serving(home, "127.0.0.1", "127.0.0.1", "--config", str(home / "settings.yaml")) as (url, _):
        yield url, auth.ensure_token(home)


def test_a_loopback_hub_asks_for_the_token_when_configured_to(strict_hub):
    url, token = strict_hub
    with httpx.Client(timeout=10) as client:
        assert client.post(url, json=INIT, headers=MCP_HEADERS).status_code == 401
    hits = asyncio.run(_search(url, token))
    assert hits


def test_a_request_over_the_size_limit_gets_413_and_the_client_one_line(strict_hub):
    url, token = strict_hub
    with httpx.Client(timeout=10) as client:
        big = client.post(url, content=b"x" * 80_000, headers=MCP_HEADERS | {"Authorization": f"Bearer {token}"})
    assert big.status_code == 413  # 2 x 2,000 + 64 kB is the most a body may be

    async def huge_call() -> None:
        async with _client(url, token) as hub:
            await hub.call("get_node_content", {"chunk_id": "x" * 80_000})

    with pytest.raises(BackendUnavailable) as err:
        asyncio.run(huge_call())
    assert str(err.value) == f"the hub at {url} refused the request (HTTP 413): Request body too large"


def test_a_request_past_the_connection_limit_gets_503_and_the_client_one_line(strict_hub):
    url, token = strict_hub
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    held = [socket.create_connection(("127.0.0.1", port)) for _ in range(4)]  # 4 requests whose body never comes
    try:
        for sock in held:
            sock.sendall(f"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {token}\r\n"
                         "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n".encode())
        deadline = time.monotonic() + 20
        with httpx.Client(timeout=10) as client:
            while (r := client.post(url, json=INIT, headers=MCP_HEADERS | {"Authorization": f"Bearer {token}"})) \
                    .status_code != 503:
                assert time.monotonic() < deadline, r.status_code
                time.sleep(0.05)
        assert r.json()["error"] == "busy" and r.headers["retry-after"] == "1"
        with pytest.raises(BackendUnavailable) as err:
            asyncio.run(_search(url, token))
        assert str(err.value) == (f"the hub at {url} refused the request (HTTP 503): the hub is serving 4 requests "
                                  "at once (limits.hub_connections); try again shortly")
    finally:
        for sock in held:
            sock.close()
    deadline = time.monotonic() + 20
    while True:  # the held request ends with its connection: room again
        try:
            assert asyncio.run(_search(url, token))
            break
        except BackendUnavailable:
            assert time.monotonic() < deadline
            time.sleep(0.1)
