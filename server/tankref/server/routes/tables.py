"""Tables: create one, list them, read one whole, delete one."""

from __future__ import annotations

from fastapi import APIRouter, status

from tankref.server.routes.deps import RefereeDep, TableDep, WriteDep
from tankref.server.schemas import (
    CreateTable,
    Scene,
    TableCreated,
    TableDeleted,
    TableListItem,
    TableRead,
)

router = APIRouter(prefix="/tables", tags=["tables"])


@router.post("", status_code=status.HTTP_201_CREATED, response_model=TableCreated)
async def create_table(body: CreateTable, ref: RefereeDep) -> TableCreated:
    """A new table: its id, its write token (shown once) and the dice commitment."""
    return ref.create_table(body)


@router.get("", response_model=list[TableListItem])
async def list_tables(ref: RefereeDep) -> list[TableListItem]:
    return ref.list_tables()


@router.get("/{table_id}", response_model=TableRead)
async def read_table(host: TableDep, ref: RefereeDep) -> TableRead:
    """The whole derived state, every tank ready to draw; no secrets."""
    return ref.read(host)


@router.delete("/{table_id}", response_model=TableDeleted)
async def delete_table(access: WriteDep) -> TableDeleted:
    """The table and its whole log, gone for good (with the table's token; a seat token is
    not enough). For demo tables and tables nobody needs: an export kept first
    (``GET /tables/{table_id}/export``) is the only record afterwards."""
    return await access.ref.delete_table(access.host)


@router.get("/{table_id}/scene", response_model=Scene)
async def read_scene(host: TableDep) -> Scene:
    """The table as shapes to draw: tanks, terrain, smoke and objective rings, the last shot."""
    return host.scene()
