"""The log: read it page by page, long-poll it (TTS), or stream it over a WebSocket (pages)."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from fastapi import APIRouter, Query, Response, WebSocket, WebSocketDisconnect

from tankref.server.referee import Referee, TableHost, still_there
from tankref.server.routes.deps import RefereeDep, TableDep, TableId
from tankref.server.schemas import LogPage
from tankref.server.settings import Settings

After = Annotated[int, Query(ge=0, le=2**53, description="Entries after this sequence number.")]


def _page(ref: Referee, host: TableHost, limit: int, after: int) -> Response:
    """A log page; of the log's tail, built and encoded once a seq for every reader who asks
    the same (``LogPages``)."""
    body = host.pages.page(
        host.seq,
        after,
        limit,
        lambda: _page_body(ref.entries_json(host, after, limit), host, limit, after),
    )
    return Response(body, media_type="application/json")


def _page_body(entries: list[str], host: TableHost, limit: int, after: int) -> bytes:
    # Entries are stored as the JSON they are served as: join them, no re-encoding.
    next_after = None
    if entries and len(entries) == limit:
        next_after = after + len(entries)
    last = after + len(entries)
    taken_back = {
        str(seq): by for seq, by in host.timeline.cancelled.items() if after < seq <= last
    }
    body = (
        '{"entries":['
        + ",".join(entries)
        + f'],"last_seq":{host.seq},"next_after":'
        + ("null" if next_after is None else str(next_after))
        + ',"taken_back":'
        + json.dumps(taken_back, sort_keys=True)
        + "}"
    )
    return body.encode()


def routes(settings: Settings) -> APIRouter:
    """The log's routes, with the limits the referee's settings give (a page's size, how
    long a long-poll is held)."""
    router = APIRouter(prefix="/tables/{table_id}", tags=["log"])
    # Defaults carry the limits: an Annotated alias made here could not be resolved from
    # the route's string annotations.
    first_page = min(100, settings.log_page_max)
    longest = settings.long_poll_max_seconds

    def limit_query() -> Any:
        return Query(first_page, ge=1, le=settings.log_page_max)

    @router.get("/log", response_model=LogPage)
    async def read_log(
        host: TableDep, ref: RefereeDep, after: After = 0, limit: int = limit_query()
    ) -> Response:
        """Every accepted action with its full result, oldest first, ``limit`` at a time."""
        return _page(ref, host, limit, after)

    @router.get("/events", response_model=LogPage)
    async def wait_for_events(
        host: TableDep,
        ref: RefereeDep,
        after: After = 0,
        wait: float = Query(
            longest,
            ge=0,
            le=longest,
            description="Seconds to hold the request open if nothing new.",
        ),
        limit: int = limit_query(),
    ) -> Response:
        """Long-poll: entries after ``after``; if there are none yet, wait up to ``wait``
        seconds for the next one (an empty list when the time runs out: ask again). A
        table deleted meanwhile (on any referee process) is answered 404 at once."""
        await host.wait_after(after, wait)
        still_there(host)
        return _page(ref, host, limit, after)

    router.add_api_websocket_route("/stream", stream)
    return router


async def stream(
    websocket: WebSocket, table_id: TableId, ref: RefereeDep, after: After = 0
) -> None:
    """Every entry after ``after``, then each new one as it is logged (one JSON text each)."""
    host = await ref.find_open(table_id)
    await websocket.accept()
    if host is None:
        await websocket.close(code=4404, reason=f"no table {table_id!r}")
        return
    gone = asyncio.Event()

    async def watch() -> None:
        # The page never sends anything; reading is how we learn that it went away.
        try:
            while (await websocket.receive())["type"] != "websocket.disconnect":
                pass
        finally:
            gone.set()

    watcher = asyncio.create_task(watch())
    closed = asyncio.create_task(gone.wait())  # one for the stream's life, not one a wait
    seen = max(0, after)
    try:
        with host.watched():  # the table stays in memory while its stream is open
            while not gone.is_set() and not host.closing:
                for text in ref.entries_json(host, seen, 200):
                    await websocket.send_text(text)
                    seen += 1
                if seen < host.seq:
                    continue
                news = asyncio.create_task(host.wait_after(seen, 20))
                await asyncio.wait({news, closed}, return_when=asyncio.FIRST_COMPLETED)
                news.cancel()
        if host.deleted:
            await websocket.close(code=4404, reason=f"table {table_id!r} was deleted")
        elif host.closing:
            await websocket.close(code=1001, reason="the referee is stopping")
    except (WebSocketDisconnect, OSError, RuntimeError):
        pass  # the page went away mid-send
    finally:
        watcher.cancel()
        closed.cancel()
