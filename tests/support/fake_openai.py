"""A minimal real OpenAI-compatible chat-completions server on loopback, served in a thread.

It answers function calls (``tools``) with ``tool_args`` as the tool call's arguments, streams
``text`` as server-sent events, reports ``usage`` on non-streamed replies, and records request
bodies; ``status``, ``fail_first``, ``delay``, ``first_chunk_delay`` and ``stall_after``/``stall`` make
it fail or stall. Used by the endpoint tests
and by ``paperpilot ask --llm openai`` tests (the cloud edge that cannot run here).
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeServer:
    """A minimal OpenAI-compatible chat-completions endpoint; records request bodies."""

    def __init__(self) -> None:
        self.requests: list[dict] = []
        self.status = 200
        self.fail_first: list[int] = []  # statuses answered to the first requests, in order
        self.delay = 0.0
        self.first_chunk_delay = 0.0  # a stream: headers at once, then this long before the first chunk
        self.stall_after: int | None = None  # a stream: after this many chunks, wait ``stall`` seconds
        self.stall = 0.0
        self.raw_body: bytes | None = None  # answered as text/html with status 200 instead of JSON
        self.disconnects = 0  # streams whose client went away before the stream ended
        self.tool_args: dict = {"type": "comparative", "confidence": 0.77}
        self.text = "LoRA uses rank 8 [1]."
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                server.requests.append(body)
                if server.delay:
                    time.sleep(server.delay)
                if server.raw_body is not None:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(server.raw_body)))
                    self.end_headers()
                    return self.wfile.write(server.raw_body)
                status = server.fail_first.pop(0) if server.fail_first else server.status
                if status != 200:
                    return self._json(status, {"error": {"message": f"status {status}", "type": "x"}})
                if body.get("stream"):
                    return self._stream(body)
                message: dict = {"role": "assistant", "content": server.text}
                if body.get("tools"):
                    name = body["tools"][0]["function"]["name"]
                    message = {"role": "assistant", "content": None, "tool_calls": [{
                        "id": "call_1", "type": "function",
                        "function": {"name": name, "arguments": json.dumps(server.tool_args)}}]}
                self._json(200, {"id": "x", "object": "chat.completion", "created": 0, "model": body.get("model"),
                                 "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                                 "usage": {"prompt_tokens": 111, "completion_tokens": 22, "total_tokens": 133}})

            def do_GET(self):  # GET /v1/models: the probe after a timeout
                self._json(200, {"object": "list", "data": [{"id": "local-model", "object": "model"}]})

            def _json(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                if status == 429:
                    self.send_header("Retry-After", "0.3")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except BrokenPipeError:  # the client gave up (timeout test)
                    pass

            def _stream(self, body: dict) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.wfile.flush()
                if server.first_chunk_delay:
                    time.sleep(server.first_chunk_delay)
                for n, piece in enumerate(server.text.split(" ")):
                    if n == server.stall_after:
                        time.sleep(server.stall)
                    chunk = {"id": "x", "object": "chat.completion.chunk", "created": 0, "model": body.get("model"),
                             "choices": [{"index": 0, "delta": {"content": piece + " "}, "finish_reason": None}]}
                    try:
                        self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                        self.wfile.flush()
                    except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout, cancel)
                        server.disconnects += 1
                        return
                self.wfile.write(b"data: [DONE]\n\n")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self) -> FakeServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
