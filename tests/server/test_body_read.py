"""The guards read a write's body the same way whether it is there already or still on its
way (read under one deadline for the whole body): the app
gets the same body; a body that does not come in time is a 408; a request cancelled while
its body is awaited cancels the server's read too. The real ``RequestGuards`` in front of an
app that notes what it got; the server's ``receive`` is a coroutine, as uvicorn's is."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from tankref.server.guards import PARSED_BODY, RequestGuards

BODY = json.dumps({"request_id": "r1", "action": {"kind": "end_phase"}}).encode()


def scope_for(body: bytes) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "POST",
        "path": "/tables/t1/actions",
        "query_string": b"",
        "headers": [
            (b"host", b"127.0.0.1:8765"),
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
        ],
    }


class Server:
    """A server's side of one request: its ``receive`` hands over the body in ``parts``,
    each after ``waits[i]`` turns of waiting on an event set from outside (0: at once)."""

    def __init__(self, parts: list[bytes], waits: list[int]) -> None:
        self.parts, self.waits = parts, waits
        self.arrived = asyncio.Event()
        self.reads = 0
        self.cancelled = 0
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        n = self.reads
        self.reads += 1
        if n >= len(self.parts):
            await asyncio.Event().wait()  # nothing more: the client went quiet
        try:
            for _ in range(self.waits[n]):
                await self.arrived.wait()
                self.arrived.clear()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        return {
            "type": "http.request",
            "body": self.parts[n],
            "more_body": n < len(self.parts) - 1,
        }

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)


async def guarded(server: Server, timeout: float = 5.0) -> dict[str, Any]:
    """The request through the guards: what the app got (its parsed body and the body it
    reads), or the guards' refusal."""
    got: dict[str, Any] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        got["parsed"] = scope.get(PARSED_BODY)
        got["body"] = (await receive())["body"]

    guards = RequestGuards(app, 10_000, ("127.0.0.1",), body_timeout=timeout)
    await guards(scope_for(b"".join(server.parts)), server.receive, server.send)
    if server.sent:
        got["status"] = server.sent[0]["status"]
    return got


async def feed(server: Server, times: int) -> None:
    for _ in range(times):
        await asyncio.sleep(0.01)
        server.arrived.set()


@pytest.mark.parametrize(
    ("parts", "waits"),
    [
        ([BODY], [0]),  # here whole already
        ([BODY], [1]),  # on its way
        ([BODY], [3]),  # the read waits several times
        ([BODY[:10], BODY[10:]], [0, 0]),  # in two parts, both here
        ([BODY[:10], BODY[10:]], [0, 2]),  # the first here, the second on its way
        ([BODY[:10], BODY[10:30], BODY[30:]], [2, 0, 1]),
    ],
)
def test_the_app_gets_the_same_body_however_it_arrives(
    parts: list[bytes], waits: list[int]
) -> None:
    async def run() -> dict[str, Any]:
        server = Server(parts, waits)
        feeding = asyncio.create_task(feed(server, sum(waits) + 5))
        got = await guarded(server)
        feeding.cancel()
        assert server.reads == len(parts) and server.sent == []
        return got

    got = asyncio.run(run())
    assert got == {"parsed": json.loads(BODY), "body": BODY}


@pytest.mark.parametrize(
    ("parts", "waits"), [([BODY], [10**6]), ([BODY[:10], BODY[10:]], [0, 10**6])]
)
def test_a_body_that_does_not_come_in_time_is_a_408(parts: list[bytes], waits: list[int]) -> None:
    async def run() -> tuple[dict[str, Any], Server]:
        server = Server(parts, waits)
        return await guarded(server, timeout=0.1), server

    got, server = asyncio.run(run())
    assert got == {"status": 408}
    assert b"BODY_TIMEOUT" in server.sent[1]["body"]
    assert server.cancelled == 1  # the server's read was stopped, not left waiting


def test_a_request_cancelled_while_its_body_is_awaited_cancels_the_read() -> None:
    async def run() -> Server:
        server = Server([BODY], [10**6])
        request = asyncio.create_task(guarded(server))
        while server.reads == 0:
            await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        request.cancel()
        with pytest.raises(asyncio.CancelledError):
            await request
        return server

    server = asyncio.run(run())
    assert server.cancelled == 1 and server.sent == []
