"""Tank models by their TTS GUID: put one (placement or move), take one away, its options."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from tankref.core.errors import RulesError
from tankref.server.errors import from_rules
from tankref.server.routes.deps import ObjectId, RefereeDep, TableDep, WritableTableDep
from tankref.server.schemas import Reply, TankPutRequest

router = APIRouter(prefix="/tables/{table_id}/tanks", tags=["tanks"])


@router.put("/{tank_id}", response_model=Reply)
async def put_tank(
    tank_id: ObjectId, body: TankPutRequest, host: WritableTableDep, ref: RefereeDep
) -> Reply:
    """Where a tank model stands now. In setup this places it; in play the referee classifies
    the change as a move (normal, fast, a facing change, entering) or refuses it with the
    clause; a model that only drifted changes nothing (``applied`` false)."""
    put = body.model_copy(update={"request_id": None})
    return await ref.submit(
        host,
        request_id=body.request_id,
        request={"put_tank": tank_id, **put.model_dump(mode="json")},
        build=lambda state: host.rules.tank_put(state, tank_id, put),
    )


@router.delete("/{tank_id}", response_model=Reply)
async def remove_tank(tank_id: ObjectId, host: WritableTableDep, ref: RefereeDep) -> Reply:
    """Setup only: the model was taken off the table."""
    return await ref.submit(
        host,
        request_id=None,
        request={"remove_tank": tank_id},
        build=lambda _: host.rules.parse_action({"kind": "remove_tank", "tank_id": tank_id}),
    )


@router.get("/{tank_id}/options")
async def tank_options(tank_id: ObjectId, host: TableDep) -> list[dict[str, Any]]:
    """What this tank may do now; each refusal with its code and clause (for menus)."""
    try:
        return host.rules.options_for(host.state, tank_id)
    except RulesError as err:
        raise from_rules(err) from None
