"""Terrain pieces and the objective marker, by their TTS GUID."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body
from pydantic import TypeAdapter, ValidationError

from tankref.server.errors import from_validation
from tankref.server.routes.deps import ObjectId, RefereeDep, WritableTableDep
from tankref.server.schemas import ObjectivePut, Reply, RequestId

router = APIRouter(prefix="/tables/{table_id}", tags=["terrain"])
_REQUEST_ID: TypeAdapter[str] = TypeAdapter(RequestId)


@router.put("/terrain/{piece_id}", response_model=Reply)
async def put_terrain(
    piece_id: ObjectId,
    host: WritableTableDep,
    ref: RefereeDep,
    body: Annotated[dict[str, Any], Body(description="kind, shape, name; request_id")],
) -> Reply:
    """A terrain piece's kind and footprint (setup). The ruleset says which kinds exist."""
    request_id = body.pop("request_id", None)
    if request_id is not None:
        # The same rule as every other request id (the document says so too).
        try:
            request_id = _REQUEST_ID.validate_python(request_id, strict=True)
        except ValidationError as exc:
            raise from_validation(
                [{**e, "loc": ("request_id", *e["loc"])} for e in exc.errors()]
            ) from None
    try:
        action = host.rules.terrain_put(host.state, piece_id, body)
    except ValidationError as exc:
        raise from_validation(list(exc.errors())) from None
    return await ref.submit(
        host,
        request_id=request_id,
        request={"put_terrain": piece_id, **body},
        build=lambda _: action,
    )


@router.put("/objective", response_model=Reply)
async def put_objective(body: ObjectivePut, host: WritableTableDep, ref: RefereeDep) -> Reply:
    """The objective marker (Objective scenario)."""
    return await ref.submit(
        host,
        request_id=body.request_id,
        request={"put_objective": True, "x": body.x, "z": body.z},
        build=lambda state: host.rules.objective_put(state, body.x, body.z),
    )
