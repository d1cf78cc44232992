"""What routes share: the referee, the table in the path, the write token check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Header, Path, Response
from starlette.requests import HTTPConnection

from tankref.server.referee import Referee, TableHost

TableId = Annotated[str, Path(min_length=1, max_length=64, description="The table's id.")]
ObjectId = Annotated[
    str,
    Path(
        min_length=1,
        max_length=64,
        pattern=r"^[A-Za-z0-9._:-]+$",
        description="The TTS GUID (or any id) of the model.",
    ),
]


# Dependencies are async on purpose (FastAPI runs plain functions in a thread pool: a thread
# hop per request, and the referee touched from other threads), and flat: each layer of
# nested dependencies costs a resolution pass on every request.
async def referee(connection: HTTPConnection) -> Referee:
    ref: Referee = connection.app.state.referee
    return ref


RefereeDep = Annotated[Referee, Depends(referee)]


@dataclass(frozen=True)
class Access:
    """The referee and the table named in the path (token already checked for writes)."""

    ref: Referee
    host: TableHost
    seat: str | None = None  # the player whose seat token it was; None: the table's token


async def table(table_id: TableId, connection: HTTPConnection) -> TableHost:
    ref: Referee = connection.app.state.referee
    return await ref.open_current(table_id)


TableDep = Annotated[TableHost, Depends(table)]


async def write_access(
    table_id: TableId,
    connection: HTTPConnection,
    authorization: Annotated[
        str | None, Header(description="Bearer <the table's write token>")
    ] = None,
) -> Access:
    ref: Referee = connection.app.state.referee
    host = await ref.open(table_id)
    ref.authorize(host, authorization)
    return Access(ref, host)


WriteDep = Annotated[Access, Depends(write_access)]


async def seat_access(
    table_id: TableId,
    connection: HTTPConnection,
    authorization: Annotated[
        str | None, Header(description="Bearer <the table's token, or a player's seat token>")
    ] = None,
) -> Access:
    """A write a player may make with their own seat token (a void, their seed)."""
    ref: Referee = connection.app.state.referee
    host = await ref.open(table_id)
    return Access(ref, host, ref.authorize(host, authorization, seats=True))


SeatWriteDep = Annotated[Access, Depends(seat_access)]


def json_reply(text: str) -> Response:
    """JSON already serialised (a reply around the logged entry): sent as it is."""
    return Response(text, media_type="application/json")
