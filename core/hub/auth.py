"""Access to the HTTP hub: the bearer token, when it is required, and the connection cap.

The token lives in ``hub-token`` in the data dir: created with mode 0600 from the first byte
(``O_CREAT | O_EXCL``, then linked into place, so two servers starting at once share one token),
reused on later starts, replaced atomically by :func:`rotate_token`. A file that others can read or
that another user owns is refused, never used. The server checks it through the MCP SDK's own
``TokenVerifier`` hook (:class:`FileTokenVerifier`, compared in constant time, re-read when the
file changes, so a rotation needs no restart); it never travels on a command line or into a log.

:func:`needs_token` decides: ``hub.require_token: always`` (the default) asks for it on loopback
too, since every local user can reach 127.0.0.1; ``auto`` only when the server binds a non-loopback
address. The project's own clients find the token without setup (:func:`own_token`): for a hub on a
loopback port whose listening socket this user owns, they read this data dir's ``hub-token``; they
never send it to a port another user listens on. :class:`ConnectionLimit` answers a request past
``limits.hub_connections`` in flight (an open event stream counts) with a one-line 503.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import os
import secrets
import socket
from pathlib import Path
from typing import Any

TOKEN_FILE = "hub-token"


class TokenFileError(Exception):
    """The token file cannot be used (others can read it, it is not ours, it is empty); one line."""


def token_path(home: Path | None = None) -> Path:
    if home is None:
        from core import paths

        home = paths.home()
    return home / TOKEN_FILE


def _write_private(path: Path, text: str) -> Path:
    """A new sibling temp file holding ``text``, created with mode 0600 (never readable by others)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    return tmp


def read_token(path: Path) -> str:
    """The token in ``path``; raises TokenFileError if the file is not private to this user."""
    st = path.stat()
    if st.st_mode & 0o077 or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
        raise TokenFileError(f"{path} is readable by others or not yours (mode {st.st_mode & 0o777:o}); "
                             "replace it with: paperpilot hub token --rotate")
    token = path.read_text(encoding="utf-8").strip()
    if not token:
        raise TokenFileError(f"{path} is empty; replace it with: paperpilot hub token --rotate")
    return token


def ensure_token(home: Path | None = None) -> str:
    """The hub's token, generated into ``hub-token`` on first use (mode 0600) and reused after."""
    path = token_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        tmp = _write_private(path, secrets.token_urlsafe(32))
        try:
            os.link(tmp, path)  # fails if another process created it first: then that one is used
        except FileExistsError:
            pass
        except OSError:  # no hard links here (some network and FUSE file systems)
            if not path.exists():
                os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
    return read_token(path)


def rotate_token(home: Path | None = None) -> str:
    """Replace the token with a new one (atomically, mode 0600); running servers switch to it."""
    path = token_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    token = secrets.token_urlsafe(32)
    os.replace(_write_private(path, token), path)
    return token


def is_loopback(host: str) -> bool:
    """True when every address ``host`` names is a loopback one (127.0.0.0/8, ::1, localhost)."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError:
        return False  # unknown: treat as reachable from elsewhere
    return bool(infos) and all(ipaddress.ip_address(i[4][0].split("%")[0]).is_loopback for i in infos)


def needs_token(host: str, require: str = "always") -> bool:
    """``require`` is ``hub.require_token``: ``always``, or ``auto`` (only for a non-loopback bind)."""
    return require == "always" or not is_loopback(host)


def verifier_for(host: str, require: str = "always", home: Path | None = None) -> FileTokenVerifier | None:
    """The verifier a server bound to ``host`` uses (the token made on first use), or None."""
    if not needs_token(host, require):
        return None
    ensure_token(home)
    return FileTokenVerifier(token_path(home))


class FileTokenVerifier:
    """The SDK's ``TokenVerifier`` for the token in ``hub-token``, compared in constant time."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int] | None = None
        self._token = b""
        self._load()

    def _load(self) -> None:
        st = self.path.stat()
        key = (st.st_ino, st.st_mtime_ns)
        if key != self._seen:
            self._token, self._seen = read_token(self.path).encode(), key

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        try:
            self._load()
        except (OSError, TokenFileError):
            pass  # keep the last good token rather than let everyone in or no one
        if not hmac.compare_digest(token.encode(), self._token):
            return None
        return AccessToken(token="hub-token", client_id="paperpilot", scopes=[])


def own_token(url: str, home: Path | None = None) -> str | None:
    """This data dir's hub token for a client of ``url``, when that is a hub this user runs here: a
    loopback address whose listening socket the current user owns (another local user may listen on
    a port first, and would be handed the token). None otherwise, or without a usable token file."""
    from urllib.parse import urlsplit

    from core.hub import peers

    parts = urlsplit(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return None
    address = peers.resolve_loopback(parts.hostname or "")
    if address is None or not hasattr(os, "getuid") or peers.listener_uid(address, port) != os.getuid():
        return None
    try:
        return read_token(token_path(home))
    except Exception:  # noqa: BLE001 - no usable data dir or token file: the hub then says it needs one
        return None


def http_url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/mcp" if ":" in host else f"http://{host}:{port}/mcp"


def auth_options(verifier: FileTokenVerifier | None, host: str, port: int) -> dict[str, Any]:
    """FastMCP keyword arguments that require ``verifier``'s bearer token on every request."""
    if verifier is None:
        return {}
    from mcp.server.auth.settings import AuthSettings

    # a resource server without an authorization server: no discovery routes, only the bearer check
    return {"token_verifier": verifier,
            "auth": AuthSettings(issuer_url=http_url(host, port), resource_server_url=None)}


class ConnectionLimit:
    """ASGI middleware: at most ``limit`` HTTP requests in flight; another gets a one-line 503."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit, self.active = app, limit, 0

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if self.active >= self.limit:
            body = json.dumps({"error": "busy", "error_description": f"the hub is serving {self.limit} requests "
                               "at once (limits.hub_connections); try again shortly"}).encode()
            await send({"type": "http.response.start", "status": 503,
                        "headers": [(b"content-type", b"application/json"), (b"retry-after", b"1"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
            return None
        self.active += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.active -= 1
