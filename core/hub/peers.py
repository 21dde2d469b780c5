"""Who owns a TCP socket on this machine, read from the kernel's socket tables (``/proc/net/tcp``,
``/proc/net/tcp6``; Linux).

Every local user reaches 127.0.0.1, so a loopback address says nothing about who is calling or
who is listening; the owning uid does. :func:`listener_uid` tells a client whether the hub at a
loopback port is its own user's (before it sends that user's token there), :func:`peer_uid` tells
the hub which local user a connection comes from (its per-client session cap). Both answer None
where the tables cannot be read (another OS): callers then fall back to what they did without.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
from collections.abc import Iterator
from pathlib import Path

TABLES = (Path("/proc/net/tcp"), Path("/proc/net/tcp6"))
LISTEN = "0A"


def _encode(host: str, port: int) -> set[str]:
    """``host:port`` as the tables print it, in each family it may appear in (IPv4 also mapped into IPv6)."""
    ip = ipaddress.ip_address(host.strip("[]").split("%")[0])
    forms: list[bytes] = []
    if ip.version == 4:
        forms += [ip.packed, ipaddress.IPv6Address(b"\0" * 10 + b"\xff\xff" + ip.packed).packed]
    else:
        forms.append(ip.packed)
        if ip.ipv4_mapped is not None:
            forms.append(ip.ipv4_mapped.packed)
    # each 32-bit word in host byte order, as the kernel's %08X prints it
    return {"".join(f"{w:08X}" for w in struct.unpack(f"={len(b) // 4}I", b)) + f":{port:04X}" for b in forms}


def _rows() -> Iterator[tuple[str, str, str, int]]:
    """(local, remote, state, uid) of every TCP socket in the tables that can be read."""
    for table in TABLES:
        try:
            lines = table.read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            f = line.split()
            if len(f) > 7:
                yield f[1], f[2], f[3], int(f[7])


def tables_readable() -> bool:
    return any(t.exists() for t in TABLES)


def listener_uid(host: str, port: int) -> int | None:
    """The uid owning the socket that listens on ``host:port`` (or on the wildcard address there)."""
    try:
        wanted = _encode(host, port) | _encode("0.0.0.0", port) | _encode("::", port)
    except ValueError:
        return None
    return next((uid for local, _, state, uid in _rows() if state == LISTEN and local in wanted), None)


def peer_uid(peer: tuple[str, int], server: tuple[str, int]) -> int | None:
    """The uid owning the client end of the connection from ``peer`` to ``server`` (both on this machine)."""
    try:
        local, remote = _encode(*peer), _encode(*server)
    except ValueError:
        return None
    return next((uid for loc, rem, state, uid in _rows() if loc in local and rem in remote and state != LISTEN), None)


def resolve_loopback(host: str) -> str | None:
    """``host`` as a loopback address (``localhost`` -> 127.0.0.1), or None when it is not loopback."""
    try:
        ip = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        try:
            ip = ipaddress.ip_address(socket.gethostbyname(host)) if host.lower() == "localhost" else None
        except OSError:
            return None
    return str(ip) if ip is not None and ip.is_loopback else None
