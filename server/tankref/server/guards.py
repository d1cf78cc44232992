"""Checks every request passes before any route sees it (plain ASGI, so they also cover 404s).

- The Host header must name this referee (400), on every binding: a web page cannot reach
  the referee by pointing a domain of its own at its address (DNS rebinding). Bound beyond
  loopback, an IP address passes too (a page cannot rebind an address); other names need
  ``--allow-host``.
- Bodies over the size limit are refused (413) without being read to the end.
- Writes must be JSON (415): an HTML form on another site cannot post ``text/plain`` at us.
- Writes from a browser page of another origin are refused (403): the Origin must be the
  referee's own host.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_WRITES = {"POST", "PUT", "PATCH", "DELETE"}


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps(
        {"code": code, "message": message, "field": None, "clause": None, "details": {}}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


class _TooLarge(HTTPException):
    """Raised while the body streams in; an HTTPException so FastAPI passes it through."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the body is larger than the referee accepts ({limit} bytes)")


class RequestGuards:
    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int,
        allowed_hosts: tuple[str, ...],
        *,
        any_address: bool = False,
    ) -> None:
        self.app = app
        self.max_body = max_body_bytes
        self.hosts = {h.lower() for h in allowed_hosts}
        self.any_address = any_address  # bound beyond loopback: IP addresses pass too

    def _known_host(self, host: str) -> bool:
        name = _host_name(host)
        return name in self.hosts or (self.any_address and _is_address(name))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if not self._known_host(headers.get("host", "")):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 4400})
                return
            await _refuse(
                send,
                400,
                "UNKNOWN_HOST",
                f"host: this referee answers to {', '.join(sorted(self.hosts))}; start it with "
                "--allow-host NAME to add another name",
            )
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        if method in _WRITES:
            origin = headers.get("origin")
            if origin is not None and not _same_origin(origin, headers.get("host", "")):
                await _refuse(
                    send,
                    403,
                    "FOREIGN_ORIGIN",
                    f"writes from a page at {origin} are refused: only the referee's own "
                    "pages (and TTS, which sends no Origin) may write",
                )
                return
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            await _refuse(
                send,
                413,
                "BODY_TOO_LARGE",
                f"the body is larger than the referee accepts ({self.max_body} bytes)",
            )
            return
        has_body = (length is not None and length != "0") or "transfer-encoding" in headers
        if method in _WRITES and has_body:
            kind = headers.get("content-type", "").split(";")[0].strip().lower()
            if kind != "application/json":
                await _refuse(
                    send,
                    415,
                    "JSON_ONLY",
                    f"content-type: send application/json (got {kind or 'nothing'})",
                )
                return

        seen = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_body:
                    raise _TooLarge(self.max_body)
            return message

        async def tracked_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted_receive, tracked_send)
        except _TooLarge:
            if not started:
                await _refuse(
                    send,
                    413,
                    "BODY_TOO_LARGE",
                    f"the body is larger than the referee accepts ({self.max_body} bytes)",
                )


def _host_name(host: str) -> str:
    """The name in a Host header, without the port ('[::1]:8765' -> '[::1]')."""
    host = host.strip().lower()
    if host.startswith("["):
        return host.split("]")[0] + "]"
    return host.rsplit(":", 1)[0] if ":" in host else host


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name.strip("[]"))
    except ValueError:
        return False
    return True


def _same_origin(origin: str, host: str) -> bool:
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()
