"""A reply's head and body leave in one write (``tankref.server.limits.OneWrite``), on a real
loopback connection of a real event loop; a head whose body comes later is not held back."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path

import httpx

from serverkit import live_referee
from tankref.server.limits import OneWrite

HEAD = b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\n"


class Sent:
    """The server side's real transport, with each write it is given noted on the way."""

    def __init__(self, transport: asyncio.Transport) -> None:
        self.transport = transport
        self.writes: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))
        self.transport.write(data)

    def is_closing(self) -> bool:
        return self.transport.is_closing()

    def close(self) -> None:
        self.transport.close()


async def _connected() -> tuple[Sent, socket.socket, asyncio.AbstractServer]:
    """A loopback server on this loop, and a plain client socket connected to it."""
    made: asyncio.Future[asyncio.Transport] = asyncio.get_running_loop().create_future()

    class Accept(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            assert isinstance(transport, asyncio.Transport)
            made.set_result(transport)

    server = await asyncio.get_running_loop().create_server(Accept, "127.0.0.1", 0)
    client = socket.create_connection(server.sockets[0].getsockname()[:2])
    client.setblocking(False)
    return Sent(await made), client, server


def _received(client: socket.socket) -> bytes:
    try:
        return client.recv(65536)
    except BlockingIOError:
        return b""


def _run(test: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(test())  # type: ignore[arg-type]


def test_a_whole_reply_is_one_write_of_head_and_body() -> None:
    async def test() -> None:
        sent, client, server = await _connected()
        one = OneWrite(sent.transport, asyncio.get_running_loop())
        one.transport = sent  # type: ignore[assignment]  # noted on the way to the socket
        one.write(HEAD)
        one.write(b"hello")
        assert sent.writes == [HEAD + b"hello"]
        await asyncio.sleep(0.05)
        assert _received(client) == HEAD + b"hello"
        client.close()
        server.close()

    _run(test)


def test_a_head_whose_body_comes_later_is_sent_at_the_end_of_its_turn() -> None:
    """A streamed reply: its head goes out when the turn that wrote it ends, before any
    body exists; the body then goes on its own."""

    async def test() -> None:
        sent, client, server = await _connected()
        one = OneWrite(sent.transport, asyncio.get_running_loop())
        one.transport = sent  # type: ignore[assignment]
        one.write(HEAD)
        assert sent.writes == []
        await asyncio.sleep(0.05)
        assert sent.writes == [HEAD]
        assert _received(client) == HEAD
        one.write(b"hello")  # held again: the next write or the turn's end sends it
        await asyncio.sleep(0.05)
        assert sent.writes == [HEAD, b"hello"]
        assert _received(client) == b"hello"
        client.close()
        server.close()

    _run(test)


def test_closing_sends_a_held_head_first() -> None:
    async def test() -> None:
        sent, client, server = await _connected()
        one = OneWrite(sent.transport, asyncio.get_running_loop())
        one.transport = sent  # type: ignore[assignment]
        one.write(HEAD)
        one.close()
        assert sent.writes == [HEAD]
        await asyncio.sleep(0.05)
        assert _received(client) == HEAD
        client.close()
        server.close()

    _run(test)


def test_the_referee_answers_with_head_and_body_together(tmp_path: Path) -> None:
    """End to end: replies of every kind (a whole JSON reply, a refusal, a page) still
    arrive whole through the real server with ``OneWrite`` in place."""
    with (
        live_referee(tmp_path / "one-write.sqlite3") as ref,
        httpx.Client(base_url=ref.url) as http,
    ):
        assert http.get("/health").json()["status"] == "ok"
        refused = http.post("/tables/nope/actions", json={"request_id": "a", "action": {}})
        assert refused.status_code in (401, 404, 422)
        assert refused.json()["code"]
        made = http.post("/tables", json={"ruleset": "ttt"})
        assert made.status_code == 201 and made.json()["table_id"]
        page = http.get("/")
        assert page.status_code == 200 and len(page.content) == int(page.headers["content-length"])
