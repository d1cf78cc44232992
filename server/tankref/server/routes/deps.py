"""What routes share: the referee, the table in the path, the write token check."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Path
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


# Dependencies are async on purpose: FastAPI runs plain functions in a thread pool, which
# costs a thread hop per request and would touch the referee from other threads.
async def referee(connection: HTTPConnection) -> Referee:
    ref: Referee = connection.app.state.referee
    return ref


RefereeDep = Annotated[Referee, Depends(referee)]


async def table(table_id: TableId, ref: RefereeDep) -> TableHost:
    return ref.host(table_id)


TableDep = Annotated[TableHost, Depends(table)]


async def writable_table(
    host: TableDep,
    ref: RefereeDep,
    authorization: Annotated[
        str | None, Header(description="Bearer <the table's write token>")
    ] = None,
) -> TableHost:
    ref.authorize(host, authorization)
    return host


WritableTableDep = Annotated[TableHost, Depends(writable_table)]
