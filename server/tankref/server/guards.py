"""Checks every request passes before any route sees it (plain ASGI, so they also cover 404s).

- The Host header must name this referee (400), on every binding: a web page cannot reach
  the referee by pointing a domain of its own at its address (DNS rebinding). Bound beyond
  loopback, an IP address passes too (a page cannot rebind an address); other names need
  ``--allow-host``.
- Bodies over the size limit are refused (413) without being read to the end.
- Text in the path, the query and a write's body is checked (422 naming the field,
  ``tankref.server.text``): lone surrogates, control, bidi and zero-width characters refused.
- A write's body must arrive within a time limit (408): a stalled client is let go.
- Writes must be JSON (415): an HTML form on another site cannot post ``text/plain`` at us.
- Writes from a browser page of another origin are refused (403): the Origin must be the
  referee's own host.
"""

from __future__ import annotations

import asyncio
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tankref.server.text import BadText, check_json, plain_json, text_problem

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

_WRITES = {"POST", "PUT", "PATCH", "DELETE"}
# A write's body as parsed and checked here, left in the request's scope for a route that
# reads it without parsing it again (``routes.actions.QuickAction``).
PARSED_BODY = "tankref.parsed_body"


async def _refuse(
    send: Send, status: int, code: str, message: str, *, field: str | None = None
) -> None:
    body = json.dumps(
        {"code": code, "message": message, "field": field, "clause": None, "details": {}}
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


class WritesUnderWay:
    """How many write requests (POST, PUT, PATCH, DELETE) the guards have let in and not yet
    seen answered: with the referee's count of those waiting on their commit, whether a
    commit may expect another write soon (``GroupCommit``'s ask)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0


class RequestGuards:
    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int,
        allowed_hosts: tuple[str, ...],
        *,
        any_address: bool = False,
        body_timeout: float = 10.0,
        under_way: WritesUnderWay | None = None,
    ) -> None:
        self.app = app
        self.under_way = WritesUnderWay() if under_way is None else under_way
        self.max_body = max_body_bytes
        self.hosts = {h.lower() for h in allowed_hosts}
        self.any_address = any_address  # bound beyond loopback: IP addresses pass too
        self.body_timeout = body_timeout  # seconds for a write's whole body to arrive

    def _known_host(self, host: str) -> bool:
        name = _host_name(host)
        return name in self.hosts or (self.any_address and _is_address(name))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        headers = _headers(scope["headers"])
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
        bad = _bad_address_text(scope)
        if bad is not None:
            if scope["type"] == "websocket":  # refused at the handshake (HTTP 403)
                await send({"type": "websocket.close", "code": 4422, "reason": bad.message})
                return
            await _refuse(send, 422, "INVALID", bad.message, field=bad.field)
            return
        if scope["type"] == "websocket":
            await self.app(scope, receive, send)
            return
        if scope["method"] not in _WRITES:
            await self._http(scope, receive, send, headers)
            return
        self.under_way.count += 1
        try:
            await self._http(scope, receive, send, headers)
        finally:
            self.under_way.count -= 1

    async def _http(
        self, scope: Scope, receive: Receive, send: Send, headers: dict[str, str]
    ) -> None:
        """An HTTP request whose host and address passed."""
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
            await self._too_large(send)
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
            await self._checked_write(scope, receive, send)
            return
        await self.app(scope, receive, send)

    async def _checked_write(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The whole body read first (within the size and time limits), its text checked,
        then handed to the app: a bad string is refused before anything is stored."""
        chunks: list[bytes] = []
        seen = 0
        try:
            # One deadline for the whole body (a timer, not a task per chunk as wait_for).
            async with asyncio.timeout(self.body_timeout):
                while seen <= self.max_body:
                    message = await receive()
                    if message["type"] != "http.request":
                        return  # the client went away before sending it all
                    chunk = message.get("body", b"")
                    seen += len(chunk)
                    chunks.append(chunk)
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            await _refuse(
                send,
                408,
                "BODY_TIMEOUT",
                f"the body did not arrive within {self.body_timeout:g} s",
            )
            return
        if seen > self.max_body:
            await self._too_large(send)
            return
        body = b"".join(chunks)
        try:
            data = json.loads(body)
        except (ValueError, RecursionError):
            data = _NOT_JSON  # the app says what is wrong with it (400 BAD_JSON)
        if data is not _NOT_JSON and plain_json(body):
            scope[PARSED_BODY] = data  # every string in it acceptable, and in normal form C
        elif data is not _NOT_JSON:
            checked = check_json(data)
            if checked.bad is not None:
                bad = checked.bad
                await _refuse(send, 422, "INVALID", bad.message, field=bad.field)
                return
            if checked.changed:  # a string was put in normal form C
                body = json.dumps(checked.data).encode()
            scope[PARSED_BODY] = checked.data
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _too_large(self, send: Send) -> None:
        await _refuse(
            send,
            413,
            "BODY_TOO_LARGE",
            f"the body is larger than the referee accepts ({self.max_body} bytes)",
        )


_NOT_JSON = object()
# The headers the guards read; the others are not decoded (issue 18: a request's every header
# decoded into a dict cost more than the checks themselves).
_READ = frozenset((b"host", b"origin", b"content-length", b"content-type", b"transfer-encoding"))


def _headers(raw: Any) -> dict[str, str]:
    """The headers the guards read, by lower-case name: the last of a name wins, as a dict of
    them all would have it."""
    found: dict[str, str] = {}
    for key, value in raw:
        name = key.lower()
        if name in _READ:
            found[name.decode("latin-1")] = value.decode("latin-1")
    return found


def _bad_address_text(scope: Scope) -> BadText | None:
    """The first unacceptable text in the path or the query string, if any."""
    problem = text_problem(scope["path"])
    if problem is not None:
        return BadText("path", problem)
    query = scope.get("query_string", b"").decode("latin-1")
    if not query:
        return None
    for name, value in parse_qsl(query, keep_blank_values=True):
        for text, where in ((name, "query"), (value, name)):
            problem = text_problem(text)
            if problem is not None:
                return BadText(where if where == "query" else f"query.{where}", problem)
    return None


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
