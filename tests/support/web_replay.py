"""A loopback HTTP server that answers as Tavily, SearXNG and arXiv do, from fixtures in their real
formats (tests/data/web), and fails the way they fail: 401, 429 with Retry-After, no reply,
a malformed body.

Paths: ``POST /tavily/search`` (JSON body, bearer key), ``GET /searxng/search?q=…&format=json``,
``GET /arxiv/api/query?search_query=…|id_list=…`` (Atom; entries chosen as arXiv would: by the
query's terms, or by id) and ``GET /arxiv/pdf/ID`` (PDFs made with fpdf2). ``fail[provider]`` picks
a failure for the next requests: "401", "429", "timeout", "malformed", "empty", "500".
``pdf_fail`` makes PDFs hostile: "trickle" (the PDF one byte every ``trickle_every`` s, for at most
``trickle_for`` s, then the rest), "endless" (a 64 MB PDF body with no Content-Length) or
"declared" (a Content-Length of 400 MB); ``pdf_sent`` counts the body bytes written.
"""

from __future__ import annotations

import json
import re
import threading
import time
import xml.etree.ElementTree as ET
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from fpdf import FPDF

DATA = Path(__file__).resolve().parents[1] / "data" / "web"
ATOM = "http://www.w3.org/2005/Atom"
ET.register_namespace("", ATOM)
ET.register_namespace("opensearch", "http://a9.com/-/spec/opensearch/1.1/")
ET.register_namespace("arxiv", "http://arxiv.org/schemas/atom")


def paper_pdf(title: str, sections: list[tuple[str, str]]) -> bytes:
    """A small real PDF: a title and one page per section."""
    pdf = FPDF()
    pdf.set_title(title)
    for head, body in sections:
        pdf.add_page()
        pdf.set_font("Helvetica", size=14)
        pdf.multi_cell(180, 8, title)
        pdf.set_font("Helvetica", size=12)
        pdf.cell(0, 10, head, new_x="LMARGIN", new_y="NEXT")
        pdf.multi_cell(180, 7, body)
    return bytes(pdf.output())


class WebReplay:
    """Start with ``with WebReplay() as web:``; ``web.url`` is its base URL."""

    def __init__(self, pdfs: dict[str, bytes] | None = None, stall: float = 2.0) -> None:
        self.pdfs = dict(pdfs or {})
        self.fail: dict[str, str] = {}
        self.requests: list[dict] = []
        self.stall = stall  # seconds a "timeout" reply waits (longer than the client's timeout)
        self.pdf_fail: str | None = None
        self.trickle_every, self.trickle_for = 0.25, 6.0
        self.pdf_sent = 0
        self.feed = ET.parse(DATA / "arxiv_feed.xml").getroot()
        replay = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                replay.handle(self, b"")

            def do_POST(self):
                replay.handle(self, self.rfile.read(int(self.headers.get("Content-Length", 0))))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def __enter__(self) -> WebReplay:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    # -- answers --------------------------------------------------------------------------------
    def handle(self, h: BaseHTTPRequestHandler, body: bytes) -> None:
        url = urlsplit(h.path)
        provider = url.path.strip("/").split("/")[0]
        query = {k: v[0] for k, v in parse_qs(url.query).items()}
        self.requests.append({"method": h.command, "path": url.path, "query": query, "body": body,
                              "auth": h.headers.get("Authorization", "")})
        failure = self.fail.get(provider)
        if failure == "timeout":
            time.sleep(self.stall)
            return self.send(h, 200, b"{}", "application/json")
        if failure == "401":
            return self.send(h, 401, b'{"detail": {"error": "Unauthorized: missing or invalid API key."}}',
                             "application/json")
        if failure == "429":
            return self.send(h, 429, b'{"detail": {"error": "Rate limit exceeded."}}', "application/json",
                             {"Retry-After": "30"})
        if failure == "500":
            return self.send(h, 500, b"Internal Server Error", "text/plain")
        if failure == "malformed":
            ctype = "application/atom+xml" if provider == "arxiv" else "application/json"
            return self.send(h, 200, b'<feed xmlns="http://www.w3.org/2005/Atom"><entry>' if provider == "arxiv"
                             else b'{"results": [{"title": "cut', ctype)
        if provider in ("tavily", "searxng"):
            data = json.loads((DATA / f"{provider}_search.json").read_text())
            if failure == "empty":
                data["results"] = []
            return self.send(h, 200, json.dumps(data).encode(), "application/json")
        if url.path.startswith("/arxiv/pdf/"):
            pdf = self.pdfs.get(url.path.rsplit("/pdf/", 1)[1].removesuffix(".pdf"))
            if pdf and self.pdf_fail:
                return self.hostile_pdf(h, pdf)
            return self.send(h, 200, pdf, "application/pdf") if pdf else self.send(h, 404, b"Not Found", "text/html")
        if url.path == "/arxiv/api/query":
            return self.arxiv(h, query, failure == "empty")
        return self.send(h, 404, b"not found", "text/plain")

    def arxiv(self, h: BaseHTTPRequestHandler, query: dict, empty: bool) -> None:
        entries = self.feed.findall(f"{{{ATOM}}}entry")
        if "id_list" in query:
            ids = [i.strip() for i in query["id_list"].split(",") if i.strip()]
            bad = next((i for i in ids if not re.match(r"^(\d{4}\.\d{4,5}|[a-z\-]+/\d{7})(v\d+)?$", i)), None)
            if bad:
                return self.send(h, 400, (DATA / "arxiv_error.xml").read_bytes(), "application/atom+xml")
            chosen = [e for e in entries if any(f"/abs/{i}" in e.findtext(f"{{{ATOM}}}id", "") for i in ids)]
        else:  # search_query: all:a OR all:b ... -> entries matching more terms first, as arXiv ranks them
            terms = re.findall(r"all:(\S+)", query.get("search_query", ""))

            def hits(e: ET.Element) -> int:
                text = " ".join(e.itertext()).lower()
                return sum(1 for t in terms if re.search(rf"\b{re.escape(t.lower())}\b", text))

            chosen = sorted((e for e in entries if hits(e)), key=hits, reverse=True)
            chosen = chosen[: int(query.get("max_results", 10))]
        feed = ET.Element(f"{{{ATOM}}}feed")
        feed.extend(c for c in self.feed if c.tag != f"{{{ATOM}}}entry")
        if not empty:
            feed.extend(chosen)
        body = b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(feed)
        self.send(h, 200, body, "application/atom+xml; charset=utf-8")

    def hostile_pdf(self, h: BaseHTTPRequestHandler, pdf: bytes) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "application/pdf")
        if self.pdf_fail == "declared":
            h.send_header("Content-Length", str(400_000_000))
        elif self.pdf_fail == "trickle":
            h.send_header("Content-Length", str(len(pdf)))
        h.end_headers()  # "endless": no length, the body ends when the connection does (HTTP/1.0)
        try:
            if self.pdf_fail == "trickle":
                end = time.monotonic() + self.trickle_for
                sent = 0
                while sent < len(pdf) and time.monotonic() < end:
                    h.wfile.write(pdf[sent:sent + 1])
                    h.wfile.flush()
                    sent += 1
                    self.pdf_sent += 1
                    time.sleep(self.trickle_every)
                h.wfile.write(pdf[sent:])
                self.pdf_sent += len(pdf) - sent
            elif self.pdf_fail == "endless":
                h.wfile.write(pdf[:8])
                block = b"0" * 65536
                while self.pdf_sent < 64_000_000:
                    h.wfile.write(block)
                    self.pdf_sent += len(block)
        except (BrokenPipeError, ConnectionResetError):
            pass

    @staticmethod
    def send(h: BaseHTTPRequestHandler, status: int, body: bytes, ctype: str, headers: dict | None = None) -> None:
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        h.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            h.send_header(k, v)
        h.end_headers()
        try:
            h.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass
