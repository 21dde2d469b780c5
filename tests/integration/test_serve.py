"""`paperpilot serve` over real HTTP on loopback: the token guard, foreign websockets, a taken port,
the app command it starts, and a light ``--help``. (The browser itself: test_serve_browser.py.)"""

from __future__ import annotations

import json
import os
import shlex
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from paperpilot_tui.cli.main import build_parser
from paperpilot_tui.cli.serve import app_command, choose_token
from tests.integration.serve_helpers import ROOT, free_port, serving


def get(url: str, cookie: str | None = None, headers: dict | None = None) -> tuple[int, dict, str]:
    req = urllib.request.Request(url, headers=(headers or {}) | ({"Cookie": cookie} if cookie else {}))
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def ws_status(url: str, origin: str, cookie: str | None = None) -> int:
    """The handshake's HTTP status; 101 (switching protocols) means the server accepted it."""
    headers = {"Cookie": cookie} if cookie else None
    try:
        with connect(url, origin=origin, additional_headers=headers, open_timeout=10):
            return 101
    except InvalidStatus as e:
        return e.response.status_code


def test_token_guards_page_static_files_and_websocket(tmp_path):
    with serving(tmp_path, "--token", "s3cret") as (base, banner):
        assert banner == f"paperpilot: serving the app at {base}/?token=s3cret (Ctrl+C stops)"
        for url in (f"{base}/", f"{base}/?token=wrong", f"{base}/static/js/textual.js"):
            status, _, body = get(url)
            assert (status, body.strip()) == (401, "paperpilot: token required: open the URL `paperpilot serve` printed")

        status, headers, page = get(f"{base}/?token=s3cret")
        assert status == 200 and f'data-session-websocket-url="ws://{base[7:]}/ws"' in page
        cookie = headers["Set-Cookie"]
        assert cookie.startswith("paperpilot_token=s3cret;") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert get(f"{base}/static/js/textual.js", cookie="paperpilot_token=s3cret")[0] == 200
        assert get(f"{base}/static/js/textual.js", cookie="paperpilot_token=nope")[0] == 401

        ws = base.replace("http", "ws") + "/ws"
        assert ws_status(ws, origin=base) == 401  # same site, no cookie: no app is started
        assert ws_status(ws, origin="http://evil.example", cookie="paperpilot_token=s3cret") == 403


def test_loopback_needs_the_printed_token_and_refuses_other_sites(tmp_path):
    with serving(tmp_path) as (base, banner):
        token = banner.split("?token=", 1)[1].split()[0]
        assert banner == f"paperpilot: serving the app at {base}/?token={token} (Ctrl+C stops)" and len(token) >= 32
        ws = base.replace("http", "ws") + "/ws"
        # other local users reach 127.0.0.1 too: no token, no page and no app
        status, _, body = get(f"{base}/")
        assert (status, body.strip()) == (401, "paperpilot: token required: open the URL `paperpilot serve` printed")
        assert ws_status(ws, origin=base) == 401
        status, headers, page = get(f"{base}/?token={token}")
        assert status == 200 and "textual-terminal" in page
        assert headers["Set-Cookie"].startswith(f"paperpilot_token={token};")
        # any web page the user visits may open ws://127.0.0.1:PORT/ws; it must not drive the app
        assert ws_status(ws, origin="http://evil.example", cookie=f"paperpilot_token={token}") == 403
        # nor may a page at a name its owner made resolve to 127.0.0.1 (DNS rebinding), token or not
        port = base.rsplit(":", 1)[1]
        status, _, body = get(f"{base}/?token={token}", headers={"Host": f"evil.example:{port}"})
        assert (status, body.strip()) == (403, f"paperpilot: host 'evil.example:{port}' refused: open 127.0.0.1 or localhost")
        assert get(f"{base}/?token={token}", headers={"Host": f"localhost:{port}"})[0] == 200


def test_behind_a_proxy_the_public_url_is_the_page_and_websocket_origin(tmp_path):
    with serving(tmp_path, "--token", "t", "--public-url", "https://paper.example") as (base, _):
        status, _, page = get(f"{base}/?token=t")
        assert status == 200 and 'data-session-websocket-url="wss://paper.example/ws"' in page
        ws = base.replace("http", "ws") + "/ws"
        assert ws_status(ws, origin="https://paper.example") == 401  # its origin passes; the token is still asked
        assert ws_status(ws, origin="https://evil.example") == 403


def test_taken_port_is_one_clear_line(tmp_path):
    port = free_port()
    with socket.create_server(("127.0.0.1", port)):
        out = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", "serve", "--port", str(port)],
                             cwd=ROOT, capture_output=True, text=True, timeout=60,
                             env={"PAPERPILOT_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 1 and out.stdout == ""
    assert out.stderr.strip().splitlines()[-1] == (
        f"paperpilot: cannot listen on 127.0.0.1:{port}: the port is in use; pick another with --port")
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize("argv, message", [
    (["serve", "--token", " "], "paperpilot: --token is empty; give a non-empty token or leave --token out"),
    (["serve", "--port", "70000"], "paperpilot: --port 70000 is not a port number (1-65535)"),
])
def test_bad_options_are_one_line(argv, message, tmp_path):
    out = subprocess.run([sys.executable, "-m", "paperpilot_tui.cli.main", *argv], cwd=ROOT, capture_output=True,
                         text=True, timeout=60, env={"PAPERPILOT_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert (out.returncode, out.stderr.strip().splitlines()[-1]) == (2, message)


def test_a_fresh_token_is_made_every_run_unless_given():
    made = {choose_token(None) for _ in range(4)}
    assert len(made) == 4 and all(len(t) >= 32 for t in made)  # distinct, ~190 random bits each
    assert choose_token("mine") == "mine"


def test_each_tab_runs_the_app_with_the_global_flags():
    args = build_parser().parse_args(["--offline", "--session", "s 1", "--config", "my.yaml", "serve"])
    argv = shlex.split(app_command(args))
    assert argv[:3] == [sys.executable, "-m", "paperpilot_tui.cli.main"]
    # a relative --config is made absolute: the server may be started from anywhere
    assert argv[3:] == ["--config", os.path.abspath("my.yaml"), "--offline", "--session", "s 1"]
    args = build_parser().parse_args(["--llm", "openai", "serve"])
    assert shlex.split(app_command(args))[3:] == ["--llm", "openai"]


PROBE = """
import json, sys
from paperpilot_tui.cli.main import main
try:
    main(["serve", "--help"])
except SystemExit:
    pass
print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & {"aiohttp", "textual_serve", "torch", "langgraph", "textual"})))
"""


def test_serve_help_imports_no_web_stack():
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
    assert "--token" in out.stdout and json.loads(out.stdout.strip().splitlines()[-1]) == []
