"""Luck: observed against expected hits, penetrations and morale failures, per player."""

from __future__ import annotations

from fastapi import APIRouter
from starlette.requests import HTTPConnection

from tankref.server.luck import AllLuck, LuckDesk, TableLuckReply
from tankref.server.routes.deps import RefereeDep, TableDep

router = APIRouter(tags=["luck"])


def _desk(connection: HTTPConnection) -> LuckDesk:
    """The server's luck book, made on first use (it lives as long as the app)."""
    desk: LuckDesk | None = getattr(connection.app.state, "luck_desk", None)
    if desk is None:
        desk = LuckDesk()
        connection.app.state.luck_desk = desk
    return desk


@router.get("/tables/{table_id}/luck", response_model=TableLuckReply)
async def table_luck(host: TableDep, ref: RefereeDep, connection: HTTPConnection) -> TableLuckReply:
    """Per player of this table: observed against expected hits, penetrations and morale
    failures, with the exact chance of a result so far from expected and a plain line."""
    report = await _desk(connection).count(ref, host)
    return TableLuckReply(**report.model_dump())


@router.get("/luck", response_model=AllLuck)
async def all_luck(ref: RefereeDep, connection: HTTPConnection) -> AllLuck:
    """Every table's lines, and each player id over all tables (ids repeat across tables:
    they are merged)."""
    desk = _desk(connection)
    tables = []
    for table_id in list(ref.rows):  # each table rebuilt off the event loop if need be
        host = await ref.find_open(table_id)
        if host is not None:
            tables.append(await desk.count(ref, host))
    return desk.book.aggregate(tables)
