"""A table as it stood after any entry of its log (the page's replay slider)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path
from starlette.requests import HTTPConnection

from tankref.server.errors import ApiError
from tankref.server.history import EntryState, History
from tankref.server.routes.deps import RefereeDep, TableDep

router = APIRouter(prefix="/tables", tags=["tables"])

EntrySeq = Annotated[int, Path(ge=0, description="The log entry; 0: the table as it was created.")]


@router.get(
    "/{table_id}/states/{seq}",
    response_model=EntryState,
    responses={404: {"description": "No such table, or its log has no entry `seq` yet."}},
)
async def state_after(
    seq: EntrySeq, host: TableDep, ref: RefereeDep, connection: HTTPConnection
) -> EntryState:
    """The table after log entry `seq`: its public state and its scene, rebuilt from the log
    by the referee's own replay. The live table is `seq` = its last entry."""
    if seq > host.seq:
        raise ApiError(
            404,
            "NO_SUCH_ENTRY",
            f"seq: table {host.id!r} has {host.seq} log entries; there is no entry {seq} yet",
            field="seq",
        )
    row = ref.store.table(host.id)
    assert row is not None  # the referee has the table: its row is there (never deleted)
    history: History = connection.app.state.history
    return await history.entry_state(row, seq, host.seq)
