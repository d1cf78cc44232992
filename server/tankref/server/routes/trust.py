"""Dice you can check: player seeds, taking an action back (undo, void), ending the game by
agreement, the revealed seed, and the whole log as one document.

Every write here is a control event in the log (``tankref.core.timeline``): logged like an
action, replayed at start-up, refused with a 409 and a stable code when it does not apply.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from fastapi import APIRouter, Response
from pydantic import BaseModel, ConfigDict, Field

from tankref.server.errors import ApiError
from tankref.server.export import Standing, export_from_store
from tankref.server.routes.deps import (
    Access,
    RefereeDep,
    SeatWriteDep,
    TableDep,
    WriteDep,
    json_reply,
)
from tankref.server.schemas import Reply, RequestId, SeatCheck

router = APIRouter(prefix="/tables/{table_id}", tags=["trust"])


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)  # as every request body


PlayerId = Field(min_length=1, max_length=32, description="The player's id (a table seat).")


class SeedRequest(_Body):
    request_id: RequestId
    player: str = PlayerId
    seed: str = Field(
        min_length=1, max_length=128, description="Any text; public at once, mixed into rolls."
    )


class UndoRequest(_Body):
    request_id: RequestId
    seq: int | None = Field(
        default=None,
        ge=1,
        le=2**53,
        description="Optional: the event you mean to undo (refused unless it is the latest).",
    )


class VoidRequest(_Body):
    request_id: RequestId
    seq: int = Field(ge=1, le=2**53, description="The event to void: the latest in effect.")
    player: str = PlayerId


class EndRequest(_Body):
    request_id: RequestId
    reason: str | None = Field(default=None, min_length=1, max_length=200)


class Reveal(BaseModel):
    table_id: str
    commitment: str
    seed: str = Field(description="The server seed: its SHA-256 must be the commitment.")
    matches: bool = Field(description="SHA-256(seed) == commitment, checked by the referee.")
    seed_chosen: bool


_REFUSALS: dict[int | str, dict[str, Any]] = {
    409: {"description": "Refused as the game stands (code says why)."}
}


_SEAT_CREDENTIAL: dict[int | str, dict[str, Any]] = {
    401: {"description": "No token: send a seat token, 'Authorization: Bearer <token>'."},
    403: {"description": "Neither a seat token of this table nor its token."},
}


@router.get("/seat", response_model=SeatCheck, responses=_SEAT_CREDENTIAL)
async def seat(access: SeatWriteDep) -> SeatCheck:
    """Whose credential the token is (a player's seat token, or the table's token) and what
    a seat may ask now: its seed while the table takes seeds, a void of the latest action
    when that rolled dice. The live page checks a seat link with it; nothing secret."""
    return await access.ref.seat_check(access.host, access.seat)


@router.post("/seeds", response_model=Reply, responses=_REFUSALS)
async def add_player_seed(body: SeedRequest, access: SeatWriteDep) -> Response:
    """A player's own dice seed, mixed into every server roll from now on. Only before the
    server's first roll (409 ``DICE_ALREADY_ROLLED`` after), once per player (409
    ``SEED_ALREADY_GIVEN``). Player seeds are public; only the server seed is secret. With a
    seat token, only for that seat's player (403 ``NOT_YOUR_SEAT``)."""
    _own_seat(access, body.player)
    action = {"control": "player_seed", "player": body.player, "seed": body.seed}
    reply = await access.ref.control(access.host, request_id=body.request_id, action=action)
    return json_reply(reply)


@router.post("/undo", response_model=Reply, responses=_REFUSALS)
async def undo(body: UndoRequest, access: WriteDep) -> Response:
    """Take back the latest action still in effect, if it rolled no dice (409
    ``DICE_ROLLED`` otherwise: void it). The state is as before it; the log keeps it, marked."""
    action: dict[str, Any] = {"control": "undo"}
    if body.seq is not None:
        action["seq"] = body.seq
    reply = await access.ref.control(access.host, request_id=body.request_id, action=action)
    return json_reply(reply)


@router.post("/void", response_model=Reply, responses=_REFUSALS)
async def void(body: VoidRequest, access: SeatWriteDep) -> Response:
    """Ask to void the latest action, one that rolled dice: voided once every player has
    asked for the same event (until then a pending request in the log; a new action lapses
    it). The dice it rolled stay spent.

    Each ask needs a credential of its own: a player's seat token (for that player only,
    403 ``NOT_YOUR_SEAT``), or the table's token acting for one seat, as the TTS host does.
    The table's token asks for at most one player of a void (409 ``VOID_NEEDS_TWO_SEATS``),
    so one token never voids as both players. The log records which credential asked."""
    _own_seat(access, body.player)
    action = {
        "control": "void",
        "seq": body.seq,
        "player": body.player,
        "credential": "table" if access.seat is None else "seat",
    }
    reply = await access.ref.control(access.host, request_id=body.request_id, action=action)
    return json_reply(reply)


def _own_seat(access: Access, player: str) -> None:
    if access.seat is not None and access.seat != player:
        raise ApiError(
            403,
            "NOT_YOUR_SEAT",
            f"player: this is {access.seat}'s seat token; it asks only for {access.seat}, "
            f"not {player}",
            field="player",
        )


@router.post("/end", response_model=Reply, responses=_REFUSALS)
async def end_game(body: EndRequest, access: WriteDep) -> Response:
    """The players end the game by agreement: the table is over (no more actions) and the
    server seed is revealed."""
    action: dict[str, Any] = {"control": "end_game"}
    if body.reason is not None:
        action["reason"] = body.reason
    reply = await access.ref.control(access.host, request_id=body.request_id, action=action)
    return json_reply(reply)


@router.get("/reveal", response_model=Reveal, responses=_REFUSALS)
async def reveal(host: TableDep) -> Reveal:
    """The server seed behind the commitment, once the game is over (409 ``GAME_NOT_OVER``
    before: a seed revealed mid-game would tell everyone the next rolls)."""
    seed = host.revealed_seed()
    if seed is None:
        raise ApiError(
            409,
            "GAME_NOT_OVER",
            "the server seed is revealed when the game is over (or ended by agreement: "
            "POST /tables/{id}/end)",
        )
    matches = hashlib.sha256(seed.encode()).hexdigest() == host.commitment
    return Reveal(
        table_id=host.id,
        commitment=host.commitment,
        seed=seed,
        matches=matches,
        seed_chosen=host.seed_chosen,
    )


@router.get("/export")
async def export(host: TableDep, ref: RefereeDep) -> Response:
    """The table's whole log as one JSON document (format ``tankref.table-export``), for
    ``tankref verify``. Before the game is over it has no seed."""
    # Built in a worker thread, on a connection of its own: thousands of events would
    # otherwise hold every other client up.
    text = await asyncio.to_thread(export_from_store, ref.store, host.id, Standing.of(host))
    if text is None:  # every hosted table has its row; said plainly all the same
        raise ApiError(404, "UNKNOWN_TABLE", f"table_id: no table {host.id!r}", field="table_id")
    return Response(text, media_type="application/json")
