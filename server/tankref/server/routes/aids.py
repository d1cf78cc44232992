"""Aids for one unit: where it may move, its arcs, its lines of fire (issue 20)."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from fastapi import APIRouter

from tankref.core.errors import RulesError
from tankref.server.errors import from_rules
from tankref.server.referee import TableHost
from tankref.server.routes.deps import ObjectId, TableDep

router = APIRouter(prefix="/tables/{table_id}/tanks", tags=["tanks"])

# Shapes per (table, its log position, unit): a state never changes under one log position,
# so a hover or a pick-up asked again before anything happens is answered from here.
_CACHE_SIZE = 2048
_cache: OrderedDict[tuple[str, str, int, str], dict[str, Any]] = OrderedDict()


@router.get(
    "/{tank_id}/aids",
    responses={404: {"description": "No such table or unit (code, field)."}},
)
async def unit_aids(tank_id: ObjectId, host: TableDep) -> dict[str, Any]:
    """What to draw for this unit now, in table inches: where it may still move (rings from
    where it began its phase, reachable hexes, or spaces; or why it may not), its arcs, and
    the line of fire to each enemy with how the referee reads it (clear, light or heavy
    concealment, cover, smoke, blocked) and whether it may fire (or why not). Each shape names
    its clause; ``version`` is the log position the shapes belong to (cache by it)."""
    return aids_for(host, tank_id)


def aids_for(host: TableHost, tank_id: str) -> dict[str, Any]:
    key = (host.id, host.created_at, host.seq, tank_id)
    found = _cache.get(key)
    if found is not None:
        _cache.move_to_end(key)
        return found
    try:
        shapes = host.rules.aids(host.state, tank_id)
    except RulesError as err:
        raise from_rules(err) from None
    reply = {"version": host.seq, **shapes.model_dump(mode="json")}
    _cache[key] = reply
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return reply
