"""Tables: create one, list them, read one whole, delete one."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, status
from starlette.requests import HTTPConnection

from tankref.server.hosted import page_base, seat_link, table_page
from tankref.server.routes.deps import RefereeDep, TableDep, WriteDep
from tankref.server.schemas import (
    CreateTable,
    Scene,
    TableCreated,
    TableDeleted,
    TableLinks,
    TableListItem,
    TableRead,
)
from tankref.server.store import CreationLimited

SEAT_LINKS_SHOWN_ONCE = (
    "only in the reply that created the table (POST /tables: seat_links): the referee keeps "
    "only a hash of each seat token, so it cannot show a seat link again"
)

router = APIRouter(prefix="/tables", tags=["tables"])


_LIMITED: dict[int | str, dict[str, Any]] = {
    429: {"description": "Too many tables from this address this hour (hosted profile)."}
}


@router.post(
    "", status_code=status.HTTP_201_CREATED, response_model=TableCreated, responses=_LIMITED
)
async def create_table(
    body: CreateTable, ref: RefereeDep, connection: HTTPConnection
) -> TableCreated:
    """A new table: its id, its write token, each player's seat token and seat link (all
    shown once) and the dice commitment. A hosted referee limits how many tables one
    address creates an hour (429 ``TABLE_CREATION_LIMIT``, with Retry-After)."""
    limit = connection.app.state.creation_limit
    if limit is None:
        return _with_seat_links(ref.create_table(body), connection)
    # The client's address: the proxy's X-Forwarded-For when it comes from a trusted proxy.
    address = connection.client.host if connection.client else ""
    quota = limit.admit(ref.store, address)
    try:
        created = ref.create_table(body, quota=quota)
    except CreationLimited as over:  # another worker made the last one allowed meanwhile
        raise limit.refusal(over.retry_after) from None
    return _with_seat_links(created, connection)


def _base(connection: HTTPConnection) -> str:
    # Behind a trusted proxy the scheme and host are the proxy's (X-Forwarded-Proto, Host).
    public_url: str | None = connection.app.state.settings.profile.public_url
    return page_base(public_url, str(connection.base_url))


def _with_seat_links(created: TableCreated, connection: HTTPConnection) -> TableCreated:
    """Each player's seat link beside their seat token: made here, where the request's own
    URL is known, and never again (the referee keeps only the tokens' hashes)."""
    base = _base(connection)
    links = {
        player: seat_link(base, created.table_id, player, token)
        for player, token in created.seat_tokens.items()
    }
    return created.model_copy(update={"seat_links": links})


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


_CREATOR_ONLY: dict[int | str, dict[str, Any]] = {
    401: {"description": "No token: send the table's, 'Authorization: Bearer <token>'."},
    403: {"description": "Not this table's token (a seat token is not enough)."},
}


@router.get("/{table_id}/links", response_model=TableLinks, responses=_CREATOR_ONLY)
async def table_links(access: WriteDep, connection: HTTPConnection) -> TableLinks:
    """Where to watch the table, for its creator to hand out (the table's token: a league's
    organiser, not a player or a spectator). Spectators need no credential: the page and
    every read route are read-only. The seat links are not here: the referee keeps only
    the seat tokens' hashes, so each player's seat token and link are in the creation reply
    alone (``seat_links`` says so)."""
    base = _base(connection)
    return TableLinks(
        table_id=access.host.id,
        referee=base,
        spectator=table_page(base, access.host.id),
        stream=table_page(base, access.host.id, stream=True),
        players=sorted(access.host.summary().players),
        seat_links=SEAT_LINKS_SHOWN_ONCE,
    )


@router.get("/{table_id}/scene", response_model=Scene)
async def read_scene(host: TableDep) -> Scene:
    """The table as shapes to draw: tanks, terrain, smoke and objective rings, the last shot."""
    return host.scene()
