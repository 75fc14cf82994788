"""Two ASGI guards in front of the web board: a request-body cap and a ``Host`` check.

Plain ASGI middleware (no framework types), so that each refuses before the app reads anything:

- ``BodyLimit``: a body longer than ``max_bytes`` is refused with 413. A ``Content-Length`` over
  the cap is refused before one byte of the body is read; a body without one (chunked) is
  counted as it arrives and refused as soon as it passes the cap, so at most ``max_bytes`` plus
  one chunk is ever held.
- ``HostCheck``: a request whose ``Host`` header names neither this machine (``localhost``, a
  loopback address) nor an address or name the server was told to answer to is refused with
  421. This is the defence against DNS rebinding: a page on ``evil.example`` whose name is
  re-pointed at 127.0.0.1 can reach the board from the victim's browser, but its requests carry
  ``Host: evil.example``.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable

from starlette.exceptions import HTTPException

MAX_BODY_BYTES = 2 << 20
"""The web board's request-body cap, 2 MiB: a record of 200,000 characters (``LoadIn.text``'s
limit) as JSON with every character escaped (``\\uXXXX``, 6 bytes) is 1.2 MB."""

LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")
"""Host names every server answers to: this machine by name and by loopback address."""


async def _refuse(send, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class BodyTooLarge(HTTPException):
    """The request body passed the cap while the app was reading it. An ``HTTPException`` (413)
    so that the framework, which words other errors in reading a body as a 400, passes it on."""

    def __init__(self, max_bytes: int):
        super().__init__(413, f"request body over {max_bytes} bytes")


class BodyLimit:
    """Refuse request bodies over ``max_bytes`` with 413 ``{"detail": ...}``."""

    def __init__(self, app, max_bytes: int = MAX_BODY_BYTES):
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        too_large = f"request body over {self.max_bytes} bytes"
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    length = int(value)
                except ValueError:
                    return await _refuse(send, 400, "Content-Length is not a number")
                if length > self.max_bytes:
                    return await _refuse(send, 413, too_large)
        seen = 0
        started = False

        async def counted_receive():
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise BodyTooLarge(self.max_bytes)
            return message

        async def tracked_send(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except BodyTooLarge:
            if not started:
                await _refuse(send, 413, too_large)


def host_name(header: str) -> str:
    """The name in a ``Host`` header, without the port, lower case: ``[::1]:8000`` -> ``::1``."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header
    if header.count(":") == 1:
        header = header.split(":", 1)[0]
    return header.rstrip(".")


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostCheck:
    """Refuse requests whose ``Host`` is not in ``allowed`` (names or addresses, compared after
    ``host_name``) with 421; ``any_ip``: also accept any IP address literal (a server bound to
    every interface is reached by whatever address the machine has, and an address cannot be
    re-pointed by DNS). A request with no ``Host`` header (HTTP/1.0, not a browser) passes."""

    def __init__(self, app, allowed: Iterable[str] = LOCAL_NAMES, *, any_ip: bool = False):
        self.app = app
        self.allowed = frozenset(host_name(a) for a in (*LOCAL_NAMES, *allowed))
        self.any_ip = any_ip

    def allows(self, header: str) -> bool:
        name = host_name(header)
        return name in self.allowed or (self.any_ip and _is_ip(name))

    async def __call__(self, scope, receive, send):
        if scope["type"] in ("http", "websocket"):
            for name, value in scope.get("headers", ()):
                if name == b"host":
                    header = value.decode("latin-1")
                    if not self.allows(header):
                        if scope["type"] == "websocket":
                            return await send({"type": "websocket.close", "code": 1008})
                        shown = header if len(header) <= 60 else header[:60] + "..."
                        return await _refuse(send, 421, f"this server does not answer to host {shown!r} "
                                                        f"(zeroplay serve --allow-host NAME adds one)")
                    break
        return await self.app(scope, receive, send)
