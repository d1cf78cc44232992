"""Terrain pieces and the objective marker, by their TTS GUID."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Response
from pydantic import TypeAdapter, ValidationError

from tankref.server.errors import from_validation
from tankref.server.routes.deps import ObjectId, WriteDep, json_reply
from tankref.server.schemas import ObjectivePut, Reply, RequestId

router = APIRouter(prefix="/tables/{table_id}", tags=["terrain"])
_REQUEST_ID: TypeAdapter[str] = TypeAdapter(RequestId)


@router.put("/terrain/{piece_id}", response_model=Reply)
async def put_terrain(
    piece_id: ObjectId,
    access: WriteDep,
    body: Annotated[dict[str, Any], Body(description="kind, shape, name; request_id")],
) -> Response:
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
        action = access.host.rules.terrain_put(access.host.state, piece_id, body)
    except ValidationError as exc:
        raise from_validation(list(exc.errors())) from None
    reply = await access.ref.submit(
        access.host,
        request_id=request_id,
        request={"put_terrain": piece_id, **body},
        build=lambda _: action,
    )
    return json_reply(reply)


@router.put("/objective", response_model=Reply)
async def put_objective(body: ObjectivePut, access: WriteDep) -> Response:
    """The objective marker (Objective scenario)."""
    rules = access.host.rules
    reply = await access.ref.submit(
        access.host,
        request_id=body.request_id,
        request={"put_objective": True, "x": body.x, "z": body.z},
        build=lambda state: rules.objective_put(state, body.x, body.z),
    )
    return json_reply(reply)
