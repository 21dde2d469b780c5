"""A local OpenAI-compatible HTTP server that replays recorded chat completions (or records them).

The suite cannot run a language model, but it should still see what a real weak model answers.
So a real server (llama-cpp-python serving SmolLM2-135M-Instruct, see :mod:`tests.support.record_llm`)
was recorded once, and this server answers the agent's requests from that recording:

- **replay** (``ReplayServer(cassette)``): every ``POST .../chat/completions`` is looked up by
  :func:`request_key`, a hash of the request body with its keys sorted (model, messages, tools,
  tool_choice, response_format, temperature, max tokens, stream, ...). A hit is answered with the
  recorded status, content type and body, or, for a streamed request, the recorded SSE events one by
  one, ending with ``data: [DONE]``. A miss is answered with HTTP 500 and a JSON error that names the
  closest recorded request and what differs from it, and is counted in ``misses``: when prompts
  change, the replay fails loudly and the cassette must be re-recorded.
- **record** (``ReplayServer(cassette, upstream=URL)``): every request is forwarded to the live
  server and the pair is appended to the cassette (JSONL, one pair a line).

Identical requests recorded more than once are answered in recorded order (the last one repeats).
It is a plain ``http.server`` in a daemon thread: the agent talks to it over real loopback HTTP.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

IGNORED_KEYS = frozenset({"user", "metadata", "store"})  # bookkeeping that cannot change a reply


def normalize(body: dict) -> dict:
    return {k: v for k, v in body.items() if k not in IGNORED_KEYS}


def request_key(body: dict) -> str:
    """A stable hash of what decides the model's reply."""
    text = json.dumps(normalize(body), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def difference(body: dict, other: dict) -> str:
    """Where ``body`` first differs from ``other``, as a short phrase (``messages[2].content``)."""
    a, b = normalize(body), normalize(other)
    keys = sorted(set(a) | set(b))
    diff = [k for k in keys if a.get(k) != b.get(k)]
    if "messages" in diff:
        ma, mb = a.get("messages") or [], b.get("messages") or []
        if len(ma) != len(mb):
            return f"messages: {len(ma)} vs {len(mb)} recorded"
        for i, (x, y) in enumerate(zip(ma, mb)):
            if x != y:
                field = next((k for k in sorted(set(x) | set(y)) if x.get(k) != y.get(k)), "?")
                return f"messages[{i}].{field}" + _first_change(str(x.get(field)), str(y.get(field)))
    return ", ".join(diff) or "nothing (hash collision?)"


def _first_change(x: str, y: str) -> str:
    i = next((n for n, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    return f" at char {i}: {x[max(0, i - 30):i + 40]!r} vs recorded {y[max(0, i - 30):i + 40]!r}"


class Cassette:
    """Recorded request/response pairs, by request key."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.entries: dict[str, list[dict]] = defaultdict(list)
        self._served: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    entry = json.loads(line)
                    self.entries[entry["key"]].append(entry)

    def __len__(self) -> int:
        return sum(len(v) for v in self.entries.values())

    def next_for(self, body: dict) -> dict | None:
        key = request_key(body)
        with self._lock:
            found = self.entries.get(key)
            if not found:
                return None
            n = self._served[key]
            self._served[key] = n + 1
            return found[min(n, len(found) - 1)]

    def closest(self, body: dict) -> dict | None:
        """The recorded request sharing the longest prefix of messages with ``body``."""
        def score(entry: dict) -> tuple[int, int]:
            mine, theirs = body.get("messages") or [], entry["request"]["body"].get("messages") or []
            same = next((i for i, (x, y) in enumerate(zip(mine, theirs)) if x != y), min(len(mine), len(theirs)))
            return same, -abs(len(mine) - len(theirs))
        every = [e for group in self.entries.values() for e in group]
        return max(every, key=score) if every else None

    def append(self, entry: dict) -> None:
        with self._lock:
            self.entries[entry["key"]].append(entry)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(entry, ensure_ascii=False) + "\n")


class ReplayServer:
    """``with ReplayServer(path) as server:`` serves on ``server.base_url`` (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, cassette: Path, upstream: str | None = None, timeout: float = 900.0) -> None:
        self.cassette = Cassette(cassette)
        self.upstream = upstream.rstrip("/") if upstream else None
        self.timeout = timeout
        self.hits = 0
        self.misses: list[str] = []
        self._httpd: ThreadingHTTPServer | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "the server is not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> ReplayServer:
        server = self

        class Handler(_Handler):
            owner = server

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        threading.Thread(target=self._httpd.serve_forever, name="openai-replay", daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()


class _Handler(BaseHTTPRequestHandler):
    owner: ReplayServer

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        if self.owner.upstream:
            return self._forward(None)
        models = {"object": "list", "data": sorted(
            ({"id": m, "object": "model", "owned_by": "recorded"} for m in {
                e["request"]["body"].get("model") for g in self.owner.cassette.entries.values() for e in g}),
            key=lambda m: str(m["id"]))}
        self._send(200, "application/json", json.dumps(models).encode())

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError as exc:
            return self._send(400, "application/json", _error(f"request body is not JSON: {exc}"))
        if self.owner.upstream:
            return self._forward(body)
        entry = self.owner.cassette.next_for(body)
        if entry is None:
            near = self.owner.cassette.closest(body)
            why = difference(body, near["request"]["body"]) if near else "the cassette is empty"
            message = f"no recorded response for request {request_key(body)} ({self.path}); closest differs in {why}"
            self.owner.misses.append(message)
            return self._send(500, "application/json", _error(message))
        self.owner.hits += 1
        response = entry["response"]
        if "events" in response:
            return self._send_events(response["status"], response["events"])
        self._send(response["status"], response.get("content_type", "application/json"),
                   json.dumps(response["body"]).encode())

    def _forward(self, body: dict | None) -> None:
        """Record mode: ask the live server, answer with what it said, and keep the pair."""
        import httpx

        url = self.owner.upstream + self.path[len("/v1"):] if self.path.startswith("/v1") else self.owner.upstream + self.path
        with httpx.Client(timeout=self.owner.timeout) as client:
            if body is None:
                reply = client.get(url)
                return self._send(reply.status_code, reply.headers.get("content-type", ""), reply.content)
            with client.stream("POST", url, json=body) as reply:
                kind = reply.headers.get("content-type", "application/json").split(";")[0]
                if kind == "text/event-stream":  # relayed as it comes, so client timeouts act as live
                    self._start_events(reply.status_code)
                    events = []
                    for line in reply.iter_lines():
                        if line.startswith("data:") and (event := line[len("data:"):].strip()) != "[DONE]":
                            events.append(event)
                            self._event(event)
                    self._event("[DONE]")
                    response = {"status": reply.status_code, "events": events}
                else:
                    reply.read()
                    try:
                        payload = reply.json()
                    except ValueError:
                        payload = {"error": {"message": reply.text}}
                    response = {"status": reply.status_code, "content_type": kind, "body": payload}
        self.owner.cassette.append({"key": request_key(body), "request": {
            "method": "POST", "path": self.path, "body": body}, "response": response})
        if "events" not in response:
            self._send(response["status"], response["content_type"], json.dumps(response["body"]).encode())

    def _send(self, status: int, content_type: str, data: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type or "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_events(self, status: int, events: list[str]) -> None:
        self._start_events(status)
        for event in [*events, "[DONE]"]:
            self._event(event)

    def _start_events(self, status: int) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()  # HTTP/1.0: the stream ends when the connection closes

    def _event(self, event: str) -> None:
        self.wfile.write(f"data: {event}\n\n".encode())
        self.wfile.flush()


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message, "type": "replay_miss", "code": "replay_miss"}}).encode()
