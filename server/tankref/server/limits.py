"""Limits on connections that are idle, slow or huge, so a few sockets cannot take the referee
down (issue 15: 500 idle sockets, 50 slowloris clients and 32 MB headers were all kept).

uvicorn brings some of them (keep-alive timeout, a connection cap that answers 503); the
request head's size and the time allowed to send it are added here, to uvicorn's httptools
protocol. A write's body has its own time limit, in the request guards.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
import sys
from dataclasses import dataclass, replace

from uvicorn.protocols.http.h11_impl import H11Protocol


@dataclass(frozen=True)
class ConnectionLimits:
    head_bytes: int = 16 * 1024  # request line and headers together
    head_seconds: float = 5.0  # from connecting (or the last reply) to the end of the head
    keep_alive_seconds: int = 5  # an idle connection between requests
    max_connections: int = 1000  # beyond: idle ones are let go, then 503 (fds run out otherwise)


# File descriptors the process needs besides its clients: the database and its -wal, the
# listening sockets, the event loop's own, logs, the export's read-only connection.
FD_RESERVE = 64


def within_file_limit(limits: ConnectionLimits) -> ConnectionLimits:
    """The connection cap lowered to what the process's file limit can hold (``ulimit -n``):
    past it accept() fails and nothing, /health included, is answered."""
    if sys.platform == "win32":  # no per-process descriptor limit of this kind
        return limits
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft - FD_RESERVE >= limits.max_connections:
        return limits
    return replace(limits, max_connections=max(8, soft - FD_RESERVE))


def protocol_class(limits: ConnectionLimits) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol with a limit on the request head's size and time."""
    if importlib.util.find_spec("httptools") is None:
        # uvicorn[standard] lacks it on a few platforms: h11 then, which limits the head's
        # size itself (uvicorn's h11_max_incomplete_event_size); its time is not limited.
        return H11Protocol
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

    waiting_order = itertools.count()  # when each connection began to wait, in order

    class LimitedHttpTools(HttpToolsProtocol):
        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.head_size = 0
            self.head_deadline: asyncio.TimerHandle | None = None
            self.idle_since = next(waiting_order)
            self._await_head()
            self._make_room()

        def _make_room(self) -> None:
            """At the cap, the oldest connections that are only waiting (nothing of a request
            sent yet) are let go first, so a client that asks is answered rather than
            refused for sockets that ask nothing."""
            over = len(self.connections) - limits.max_connections + 1
            if over <= 0:
                return
            idle = sorted(
                (
                    c
                    for c in self.connections
                    if c is not self and isinstance(c, LimitedHttpTools) and c.idle
                ),
                key=lambda c: c.idle_since,
            )
            for conn in idle[:over]:
                conn.transport.close()
                # Counted out now: its connection_lost may come after this connection's first
                # request is read, which would then find the cap still full.
                self.connections.discard(conn)

        @property
        def idle(self) -> bool:
            waiting = self.head_deadline is not None and self.head_size == 0
            return waiting and not self.transport.is_closing()

        def _await_head(self) -> None:
            self._head_arrived()
            self.head_size = 0
            self.idle_since = next(waiting_order)
            self.head_deadline = self.loop.call_later(limits.head_seconds, self._head_too_slow)

        def _head_arrived(self) -> None:
            if self.head_deadline is not None:
                self.head_deadline.cancel()
                self.head_deadline = None

        def _head_too_slow(self) -> None:
            self.head_deadline = None
            if not self.transport.is_closing():
                self.transport.close()  # nothing answered: the client never finished asking

        def data_received(self, data: bytes) -> None:
            reading_head = self.head_deadline is not None
            self.head_size += len(data)
            super().data_received(data)
            # Still no end of the head (the parser keeps a header until it ends): refuse
            # once it is over the limit, so a huge head is never held whole. A chunk that
            # ends the head may carry a body too; it is not counted against the head.
            still_reading = reading_head and self.head_deadline is not None
            over = still_reading and self.head_size > limits.head_bytes
            if over and not self.transport.is_closing():
                self.send_400_response("Request head too large.")

        def on_headers_complete(self) -> None:
            self._head_arrived()
            super().on_headers_complete()
            cycle = self.cycle
            if cycle is not None and cycle.transport is self.transport:  # a new request's
                cycle.transport = OneWrite(self.transport, self.loop)  # type: ignore[assignment]

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.timeout_keep_alive_task is not None:
                self._await_head()  # idle again: the next head has the same time

        def connection_lost(self, exc: Exception | None) -> None:
            self._head_arrived()
            super().connection_lost(exc)

    return LimitedHttpTools


class OneWrite:
    """A response's transport that sends its head and its body in one write.

    uvicorn writes a reply's head (status line and headers) and then its body, each at once:
    two sends, two TCP segments, and the client woken twice, for every reply (issue 18: the
    sends were a seventh of the referee's event loop). The head is held here until the body
    follows, which a whole reply (Starlette's ``Response``) does in the same turn of the
    loop; whatever is still held at the end of that turn (a streamed reply's head) is sent
    then, so nothing waits longer than the turn it was written in."""

    __slots__ = ("held", "loop", "transport")

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        self.transport = transport
        self.loop = loop
        self.held: bytes | None = None

    def write(self, data: bytes) -> None:
        if self.held is not None:
            data, self.held = self.held + data, None
            self.transport.write(data)
        elif data:
            self.held = data
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        if self.held is not None:
            data, self.held = self.held, None
            if not self.transport.is_closing():
                self.transport.write(data)

    def close(self) -> None:
        self.flush()
        self.transport.close()

    def __getattr__(self, name: str) -> object:
        return getattr(self.transport, name)
