"""The web server behind ``paperpilot serve``: textual-serve's server with a guard in front.

textual-serve (pinned: this subclasses its ``Server``) serves an xterm.js page and starts the app
command once per browser websocket; it has no access control. The guard adds it:

- a token on every request, loopback included (other local users can reach 127.0.0.1 too): the
  ``?token=`` query parameter or the cookie set from it on the first page load; everything else
  gets 401, so no app process is started for it;
- on a loopback bind, a request naming another host than a loopback one gets 403: a web page whose
  name is made to resolve to 127.0.0.1 would otherwise be same-origin with the app;
- a websocket whose ``Origin`` is not the page's own host gets 403, token or not: browsers let any
  web site open a websocket to 127.0.0.1, and this one types into the app.
"""

from __future__ import annotations

import asyncio
import errno
import hmac
import logging
import socket
import sys
from collections.abc import Awaitable, Callable
from urllib.parse import quote, urlsplit

from aiohttp import web
from textual_serve.server import Server

from paperpilot_tui.cli.serve import is_loopback

COOKIE = "paperpilot_token"
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def make_guard(token: str, public_url: str | None = None, loopback: bool = True,
               ) -> Callable[[web.Request, Handler], Awaitable[web.StreamResponse]]:
    """The aiohttp middleware enforcing the token, loopback host names on a ``loopback`` bind and
    same-origin websockets (the request's own host, or the ``public_url``'s when a proxy in front
    forwards another Host)."""
    if not token:
        raise ValueError("serve needs a token")
    public = urlsplit(public_url).netloc if public_url else None

    @web.middleware
    async def guard(request: web.Request, handler: Handler) -> web.StreamResponse:
        origin = request.headers.get("Origin")
        if request.path == "/ws" and origin and urlsplit(origin).netloc not in (request.host, public):
            raise web.HTTPForbidden(text="paperpilot: websocket from another site refused\n")
        # loopback: a page under another name is DNS rebinding (evil.example -> 127.0.0.1)
        if loopback and public is None and not is_loopback(urlsplit(f"//{request.host}").hostname or ""):
            raise web.HTTPForbidden(text=f"paperpilot: host {request.host!r} refused: open 127.0.0.1 or localhost\n")
        given = request.query.get("token")
        if given is not None and hmac.compare_digest(given.encode(), token.encode()):
            response = await handler(request)
            if not response.prepared:  # the page itself: later requests (static, /ws) carry the cookie
                response.set_cookie(COOKIE, token, httponly=True, samesite="Strict")
            return response
        cookie = request.cookies.get(COOKIE)
        if cookie is not None and hmac.compare_digest(cookie.encode(), token.encode()):
            return await handler(request)
        raise web.HTTPUnauthorized(text="paperpilot: token required: open the URL `paperpilot serve` printed\n")

    return guard


class GuardedServer(Server):
    """textual-serve's ``Server`` with the guard, quiet logs and a one-line banner.

    Without ``public_url`` the page's websocket address is taken from each request's Host header,
    so the page works under whatever name or address the browser used (0.0.0.0 is no address)."""

    def __init__(self, command: str, host: str, port: int, token: str, public_url: str | None) -> None:
        super().__init__(command, host=host, port=port, title="PaperPilot", public_url=public_url)
        self.token = token
        self.from_request = public_url is None
        self.sessions: set[asyncio.Task] = set()

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()
        app.middlewares.append(make_guard(self.token, None if self.from_request else self.public_url,
                                          loopback=is_loopback(self.host)))
        return app

    async def handle_index(self, request: web.Request) -> web.StreamResponse:  # type: ignore[override]
        if self.from_request:
            self.public_url = f"{request.scheme}://{request.host}"
        return await super().handle_index(request)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        task = asyncio.current_task()
        assert task is not None
        self.sessions.add(task)
        try:
            return await super().handle_websocket(request)
        finally:
            self.sessions.discard(task)

    async def on_shutdown(self, app: web.Application) -> None:
        """Ctrl+C or SIGTERM with tabs open: end their sessions now (each app is told to quit and
        awaited; the tab shows "Session ended"), not after aiohttp's 60 s grace period."""
        for task in self.sessions:
            task.cancel()
        if self.sessions:
            await asyncio.wait(self.sessions, timeout=15)

    def initialize_logging(self) -> None:
        """Warnings and errors only: no access log line per request."""
        from core.text_safety import SafeFormatter  # a warning may quote what a client sent

        handler = logging.StreamHandler()
        handler.setFormatter(SafeFormatter("paperpilot serve: %(message)s"))
        logging.basicConfig(level=logging.WARNING, handlers=[handler])
        logging.getLogger("aiohttp.access").setLevel(logging.WARNING)

    async def on_startup(self, app: web.Application) -> None:
        print(f"paperpilot: serving the app at {browser_url(self.host, self.port, self.token)} "
              "(Ctrl+C stops)", flush=True)


def browser_url(host: str, port: int, token: str) -> str:
    """The URL to open: a wildcard host becomes this machine's name; the token rides along."""
    if host in ("0.0.0.0", "::", ""):
        host = socket.gethostname()
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}/?token={quote(token, safe='')}"


def probe(host: str, port: int) -> None:
    """Bind ``host:port`` once and let go (SO_REUSEADDR, as aiohttp does): OSError if it cannot be used."""
    family = socket.getaddrinfo(host.strip("[]") or None, port, type=socket.SOCK_STREAM)[0][0]
    with socket.create_server((host.strip("[]"), port), family=family):
        pass


def serve_app(command: str, host: str, port: int, token: str, public_url: str | None = None) -> int:
    """Serve until Ctrl+C / SIGTERM; one stderr line (exit 1) when the address cannot be used."""
    server = GuardedServer(command, host, port, token, public_url)
    try:
        probe(host, port)  # aiohttp would say "serving" first and fail on bind after
        server.serve()
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            reason = "the port is in use; pick another with --port"
        elif isinstance(exc, socket.gaierror):
            reason = f"unknown host ({exc.strerror})"
        else:
            reason = exc.strerror or str(exc)
        print(f"paperpilot: cannot listen on {host}:{port}: {reason}", file=sys.stderr)
        return 1
    return 0
