"""Tank models by their TTS GUID: put one (placement or move), take one away, its options."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from pydantic import ValidationError

from tankref.core.errors import RulesError
from tankref.core.ruleset import TankPut
from tankref.server.errors import from_rules, from_validation
from tankref.server.referee import TableHost
from tankref.server.routes.deps import ObjectId, TableDep, WriteDep, json_reply
from tankref.server.schemas import Reply, TankPutRequest

router = APIRouter(prefix="/tables/{table_id}/tanks", tags=["tanks"])


@router.put("/{tank_id}", response_model=Reply)
async def put_tank(tank_id: ObjectId, body: TankPutRequest, access: WriteDep) -> Response:
    """Where a tank model stands now. In setup this places it; in play the referee classifies
    the change as a move (normal, fast, a facing change, entering) or refuses it with the
    clause; a model that only drifted changes nothing (``applied`` false)."""
    # The rules see where the model stands; who moved it goes to the log beside it.
    put = TankPut.model_validate(body.model_dump(exclude={"request_id", "by"}))
    rules = access.host.rules
    # As hashed before `by` existed (request_id None), so an old request id still matches.
    request = {"put_tank": tank_id, **put.model_dump(mode="json"), "request_id": None}
    if body.by is not None:
        request["by"] = body.by.model_dump(mode="json")
    reply = await access.ref.submit(
        access.host,
        request_id=body.request_id,
        request=request,
        build=lambda state: rules.tank_put(state, tank_id, put),
        by=body.by,
    )
    return json_reply(reply)


@router.delete("/{tank_id}", response_model=Reply)
async def remove_tank(tank_id: ObjectId, access: WriteDep) -> Response:
    """Setup only: the model was taken off the table."""
    rules = access.host.rules
    reply = await access.ref.submit(
        access.host,
        request_id=None,
        request={"remove_tank": tank_id},
        build=lambda state: rules.tank_remove(state, tank_id),
    )
    return json_reply(reply)


_SHOT_REFUSED: dict[int | str, dict[str, Any]] = {
    409: {"description": "The Engage itself would be refused now (code, clause)."}
}


@router.get("/{tank_id}/odds", responses=_SHOT_REFUSED)
async def odds_for_shooter(tank_id: ObjectId, host: TableDep, request: Request) -> dict[str, Any]:
    """Exact odds (hit, penetrate, each damage card, destroyed, morale failure) against every
    enemy this tank may Engage now, most likely kill first. Fractions in ``exact``. The
    query's choices are the table's ruleset's (``Ruleset.odds_choices``)."""
    found = _odds(host, tank_id, None, request)
    return {"shooter": tank_id, "odds": found}


@router.get("/{tank_id}/odds/{target_id}", responses=_SHOT_REFUSED)
async def odds_against(
    tank_id: ObjectId, target_id: ObjectId, host: TableDep, request: Request
) -> dict[str, Any]:
    """Exact odds of this tank engaging ``target_id`` now; refused (with the clause) when the
    Engage itself would be."""
    return _odds(host, tank_id, target_id, request)[0]


def _odds(
    host: TableHost, shooter: str, target: str | None, request: Request
) -> list[dict[str, Any]]:
    try:
        # Query text read as the ruleset's model says (lax: "true" is a yes); parameters it
        # does not name are not read, as for any route.
        choices = host.rules.odds_choices.model_validate(dict(request.query_params))
    except ValidationError as exc:
        raise from_validation(list(exc.errors()), "query") from None
    try:
        found = host.rules.odds(host.state, shooter, target, **choices.model_dump())
    except RulesError as err:
        raise from_rules(err, "target_id" if target else "") from None
    return [o.model_dump(mode="json") for o in found]


@router.get("/{tank_id}/options")
async def tank_options(tank_id: ObjectId, host: TableDep) -> list[dict[str, Any]]:
    """What this tank may do now; each refusal with its code and clause (for menus)."""
    try:
        return host.rules.options_for(host.state, tank_id)
    except RulesError as err:
        raise from_rules(err) from None
