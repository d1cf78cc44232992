"""The FastAPI application: routes, guards, error replies, and the OpenAPI document."""

from __future__ import annotations

import gc
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from tankref import __version__
from tankref.core.ruleset import get_ruleset, ruleset_names
from tankref.server import errors
from tankref.server.guards import RequestGuards
from tankref.server.referee import Referee
from tankref.server.routes import (
    actions,
    events,
    health,
    luck,
    page,
    tables,
    tanks,
    terrain,
    trust,
)
from tankref.server.schemas import ErrorReply
from tankref.server.settings import Settings
from tankref.server.store import EventStore

DESCRIPTION = """
The referee for tank wargames played in Tabletop Simulator. TTS (or any client) creates a
table, reports where each tank model stands, and posts actions; the referee adjudicates them
by the rules, logs them, and streams what happened.

- Writes need the table's token: `Authorization: Bearer <token>` (from table creation).
- Every refusal is JSON: `code`, `message` (naming the field or the clause), `field`,
  `clause`, `details`. 404 unknown table/tank, 409 the rules refuse it (or table dice are
  still needed), 413 too large, 415 not JSON, 422 a bad value, 401/403 token.
- The same `request_id` posted again returns the first result and never rolls again.
"""


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = EventStore(settings.db_path)
        app.state.referee = Referee(store)
        # Everything loaded so far lives as long as the server: keep it out of the garbage
        # collector's full sweeps, which would otherwise stall replies on big tables.
        gc.freeze()
        try:
            yield
        finally:
            store.close()

    app = FastAPI(
        title="tankref referee",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
    )
    app.state.settings = settings
    errors.install(app)
    for module in (health, tables, tanks, terrain, actions, events, luck, page, trust):
        app.include_router(module.router)
    app.add_middleware(
        RequestGuards,
        max_body_bytes=settings.max_body_bytes,
        allowed_hosts=settings.allowed_hosts if settings.loopback else None,
    )
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema, with each ruleset's setup, action and terrain bodies filled in."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    setups, actions_, terrains = [], [], []
    for name in ruleset_names():
        rules = get_ruleset(name)
        setups.append(_merge(components, rules.setup_model.model_json_schema(ref_template=_REF)))
        actions_.append(_merge(components, _with_ref(rules.action_schema())))
        terrains.append(_merge(components, _with_ref(rules.terrain_schema())))
    components["CreateTable"]["properties"]["setup"] = _one_of(setups)
    components["ActionRequest"]["properties"]["action"] = _one_of(actions_)
    # The terrain route takes a request_id beside the ruleset's piece, like the tank route.
    request_id = components["TankPutRequest"]["properties"]["request_id"]
    for body in terrains:
        body.setdefault("properties", {})["request_id"] = dict(request_id)
    put = schema["paths"]["/tables/{table_id}/terrain/{piece_id}"]["put"]
    put["requestBody"]["content"]["application/json"]["schema"] = _one_of(terrains)
    _document_refusals(schema, components)
    app.openapi_schema = schema
    return schema


# What each refusal status means; every one has the ErrorReply body.
_REFUSALS = {
    400: "The body is not valid JSON, or the Host header names another server.",
    401: "No write token: send 'Authorization: Bearer <token>'.",
    403: "Not this table's token, or a write from another site's web page (Origin).",
    404: "No such table (or tank).",
    409: "The rules refuse it as the game stands, table dice are needed (DICE_NEEDED), or "
    "the request_id was used for a different request.",
    413: "The body is larger than the referee accepts.",
    415: "The body is not application/json.",
    422: "A bad value; `field` names it.",
}


def _document_refusals(schema: dict[str, Any], components: dict[str, Any]) -> None:
    """Each operation's refusals, with the body they really have (not FastAPI's
    HTTPValidationError: the error handlers answer every refusal with ErrorReply)."""
    components["ErrorReply"] = _merge(components, ErrorReply.model_json_schema(ref_template=_REF))
    body = {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorReply"}}}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            write = method in ("post", "put", "patch", "delete")
            codes = {400}  # the Host header check answers every request
            if write:
                codes |= {403, 409, 413, 415, 422}
            if "{table_id}" in path:
                codes |= {404, 422} | ({401} if write else set())
            # Refusals a route declares itself (e.g. the odds of a shot the rules refuse: 409).
            codes |= {int(c) for c in operation["responses"] if c.startswith("4")}
            for code in sorted(codes):
                declared = operation["responses"].get(str(code), {}).get("description")
                operation["responses"][str(code)] = {
                    "description": declared or _REFUSALS[code],
                    "content": body,
                }
    for unused in ("HTTPValidationError", "ValidationError"):
        components.pop(unused, None)


_REF = "#/components/schemas/{model}"


def _with_ref(schema: dict[str, Any]) -> dict[str, Any]:
    """Pydantic's '#/$defs/X' references, pointed at the OpenAPI components instead."""
    import json

    text = json.dumps(schema).replace('"#/$defs/', '"#/components/schemas/')
    result: dict[str, Any] = json.loads(text)
    return result


def _merge(components: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    for key, value in schema.pop("$defs", {}).items():
        components.setdefault(key, value)
    return schema


def _one_of(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    return schemas[0] if len(schemas) == 1 else {"oneOf": schemas}
