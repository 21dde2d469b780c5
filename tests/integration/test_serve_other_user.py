"""Another local user against a real `paperpilot serve` on loopback (issue 26, item 1).

The client runs as a genuinely different uid (``nobody``, 65534) in a child process started by
root: it sends no token and no Origin header, as the audit's other account did, and is refused
(401) on the page and on the websocket that would start the app. Given the printed URL, the same
account gets in: the token is what is checked, nothing else. Skipped unless the tests run as root.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from tests.integration.serve_helpers import serving

NOBODY = 65534

CLIENT = r"""
import json, socket, sys, urllib.error, urllib.request
base, token = sys.argv[1], sys.argv[2]
host, port = base[len("http://"):].split(":")

def page(query):
    try:
        with urllib.request.urlopen(base + "/" + query, timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code

def websocket(query):
    # a bare handshake, no Origin header: what a script (not a browser) sends
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall((f"GET /ws{query} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        return int(s.recv(4096).split(b" ", 2)[1])

print(json.dumps({"uid": __import__("os").getuid(),
                  "page": page(""), "ws": websocket("?width=80&height=24"),
                  "page_token": page("?token=" + token),
                  "ws_token": websocket("?token=" + token + "&width=80&height=24")}))
"""


def as_nobody(*argv: str) -> dict:
    python = shutil.which("python3", path="/usr/bin:/bin")
    out = subprocess.run([python, "-I", "-c", CLIENT, *argv], user=NOBODY, group=NOBODY, extra_groups=[],
                         capture_output=True, text=True, timeout=60, cwd="/")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="running a client as another uid needs root")
def test_another_local_user_without_the_token_is_refused(tmp_path):
    with serving(tmp_path) as (base, banner):
        token = banner.partition("?token=")[2].split(" ")[0]
        seen = as_nobody(base, token)
    assert seen["uid"] == NOBODY
    assert (seen["page"], seen["ws"]) == (401, 401)  # no page, no app started for it
    assert (seen["page_token"], seen["ws_token"]) == (200, 101)  # the printed URL is the key
