"""The FastAPI application: routes, guards, error replies, and the OpenAPI document."""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from tankref import __version__
from tankref.core.ruleset import Ruleset
from tankref.rulesets import get_ruleset, ruleset_names
from tankref.server import errors
from tankref.server.guards import RequestGuards, WritesUnderWay
from tankref.server.history import History
from tankref.server.hosted import AccessLog, CreationLimit, expire_forever
from tankref.server.referee import Referee
from tankref.server.routes import (
    actions,
    aids,
    docs,
    events,
    health,
    history,
    luck,
    page,
    rulesets,
    tables,
    tanks,
    terrain,
    trust,
)
from tankref.server.schemas import ErrorReply
from tankref.server.settings import Settings
from tankref.server.stores import open_store

LISTEN_WAIT = 10.0  # seconds start-up waits to hear other processes' writes (then goes on)

DESCRIPTION = """
The referee for tank wargames played in Tabletop Simulator. TTS (or any client) creates a
table, reports where each tank model stands, and posts actions; the referee adjudicates them
by the rules, logs them, and streams what happened.

- Writes need the table's token: `Authorization: Bearer <token>` (from table creation).
  Each player also gets a seat token then: it asks for that player's void and gives their
  seed, nothing else; a void completes only with two different credentials.
- A server-dice table takes no faces (409 `SERVER_DICE`): the referee rolls.
- Every refusal is JSON: `code`, `message` (naming the field or the clause), `field`,
  `clause`, `details`. 404 unknown table/tank, 408 the body came too slowly, 409 the rules
  refuse it (or table dice are still needed, or the table is set aside), 413 too large,
  415 not JSON, 422 a bad value (or text with a character no text may hold), 401/403 token.
- The same `request_id` posted again returns the first result and never rolls again.
"""


# FastAPI's own OpenTelemetry (FastAPI 0.165 on; older ones have none, nor the argument).
NO_TELEMETRY: dict[str, Any] = (
    {
        "telemetry": {
            "tracing": False,
            "metrics": False,
            "logs": False,
            "operation_spans": False,
            "auto_configure": False,
        }
    }
    if "telemetry" in inspect.signature(FastAPI.__init__).parameters
    else {}
)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    profile = settings.profile
    under_way = WritesUnderWay()  # counted by the guards

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = open_store(settings.db_url or settings.db_path)
        app.state.referee = referee = Referee(store)
        # A commit waits for more writes only while a write request is under way besides
        # those waiting on their commit (issue 18: the wait costs the loop a wake-up).
        store.set_busy(lambda: under_way.count > referee.committing)
        app.state.history = History(store)  # the replay slider's rebuilt positions
        # Other referee processes on the same database (PostgreSQL): hear their writes
        # before the first request, so none is missed for a table opened from then on.
        listening = app.state.referee.listen()
        if listening is not None:
            await asyncio.to_thread(listening.wait, LISTEN_WAIT)
        # Everything loaded so far lives as long as the server: keep it out of the garbage
        # collector's full sweeps, which would otherwise stall replies on big tables.
        gc.freeze()
        expiry = profile.expire_after_hours
        sweep = None if expiry is None else asyncio.create_task(expire_forever(app, expiry))
        try:
            yield
        finally:
            if sweep is not None:
                sweep.cancel()
            store.close()

    app = FastAPI(
        title="tankref referee",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        docs_url=None,  # served by routes.docs from the installed package: works offline
        redoc_url=None,  # not offline (see routes.docs)
        # FastAPI's own OpenTelemetry: the referee exports none (a player's requests leave
        # no trace beyond its log), and asking whether a provider is set up cost every
        # request three look-ups (issue 18).
        **NO_TELEMETRY,
    )
    app.state.settings = settings
    per_hour = profile.tables_per_hour
    app.state.creation_limit = None if per_hour is None else CreationLimit(per_hour)
    docs.install(app)
    errors.install(app)
    # The writes first: routes are matched in order, and actions and moves are most of
    # the traffic (the documentation lists them first too).
    actions.install(app, quick=settings.quick_actions)
    for module in (tanks, terrain, health, rulesets, tables, aids):
        app.include_router(module.router)
    app.include_router(events.routes(settings))
    for module in (luck, page, trust, history):
        app.include_router(module.router)
    app.add_middleware(
        RequestGuards,
        max_body_bytes=settings.max_body_bytes,
        allowed_hosts=settings.allowed_hosts,
        any_address=not settings.loopback,
        body_timeout=settings.body_timeout_seconds,
        under_way=under_way,
    )
    if profile.json_logs:  # outermost: a refusal by the guards is logged too
        app.add_middleware(AccessLog)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's schema, with each ruleset's setup, action and terrain bodies filled in.

    Each ruleset's models are filed under its own name (``ttt.Engage``, ``afv.Move``), so two
    rulesets may both have a ``Move``; a table's body is told apart by its ``ruleset``."""
    if app.openapi_schema:
        return app.openapi_schema
    schema = get_openapi(
        title=app.title, version=app.version, description=app.description, routes=app.routes
    )
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    create = components.pop("CreateTable")
    default = create["properties"]["ruleset"].get("default")
    tables, actions_, terrains = [], [], []
    odds_query: dict[str, dict[str, Any]] = {}
    for name in ruleset_names():
        rules = get_ruleset(name)
        _odds_choices(odds_query, rules, components)
        setup = _filed(components, name, rules.setup_model.model_json_schema())
        about = f"{rules.title}: {rules.info().description}"
        tables.append(_create_table(create, name, about, setup, required=name != default))
        actions_.append(_filed(components, name, rules.action_schema()))
        terrains.append(_filed(components, name, rules.terrain_schema()))
    components["CreateTable"] = _one_of(tables)
    components["ActionRequest"]["properties"]["action"] = _any_of(actions_)
    # The terrain route takes a request_id beside the ruleset's piece, like the tank route.
    request_id = components["TankPutRequest"]["properties"]["request_id"]
    for body in terrains:
        body.setdefault("properties", {})["request_id"] = dict(request_id)
    put = schema["paths"]["/tables/{table_id}/terrain/{piece_id}"]["put"]
    put["requestBody"]["content"]["application/json"]["schema"] = _any_of(terrains)
    for path in (
        "/tables/{table_id}/tanks/{tank_id}/odds",
        "/tables/{table_id}/tanks/{tank_id}/odds/{target_id}",
    ):
        query = json.loads(json.dumps(list(odds_query.values())))  # a copy for each path
        schema["paths"][path]["get"].setdefault("parameters", []).extend(query)
    _document_refusals(schema, components)
    app.openapi_schema = schema
    return schema


def _odds_choices(
    query: dict[str, dict[str, Any]], rules: Ruleset, components: dict[str, Any]
) -> None:
    """The odds routes' query parameters: each ruleset's choices, named with the ruleset
    (a name two rulesets share is listed once, for both)."""
    choices = _filed(components, rules.name, rules.odds_choices.model_json_schema())
    for field, prop in choices.get("properties", {}).items():
        if field in query:
            query[field]["description"] += f" ({rules.title} too.)"
            continue
        description = prop.pop("description", "")
        query[field] = {
            "name": field,
            "in": "query",
            "required": False,
            "schema": prop,
            "description": f"{rules.title} tables: {description}".strip(),
        }


def _create_table(
    create: dict[str, Any], name: str, about: str, setup: dict[str, Any], *, required: bool
) -> dict[str, Any]:
    """``POST /tables`` for one ruleset: its name (described as the ruleset describes
    itself), its setup body."""
    body: dict[str, Any] = json.loads(json.dumps(create))
    body["title"] = f"CreateTable ({name})"
    body["properties"]["ruleset"] = {"const": name, "title": "Ruleset", "description": about}
    body["properties"]["setup"] = setup
    if required:
        body["required"] = sorted({*body.get("required", []), "ruleset"})
    return body


# What each refusal status means; every one has the ErrorReply body.
_REFUSALS = {
    400: "The body is not valid JSON, or the Host header names another server.",
    401: "No write token: send 'Authorization: Bearer <token>'.",
    403: "Not this table's token, a seat token where the table's is needed or for another "
    "player, or a write from another site's web page (Origin).",
    404: "No such table (or tank).",
    408: "The body did not arrive in time (BODY_TIMEOUT).",
    409: "The rules refuse it as the game stands, table dice are needed (DICE_NEEDED), "
    "faces sent to a server-dice table (SERVER_DICE), "
    "the request_id was used for a different request, or the table could not be loaded "
    "and is set aside (TABLE_QUARANTINED, with the reason).",
    413: "The body is larger than the referee accepts.",
    415: "The body is not application/json.",
    429: "Too many tables created from this address this hour (TABLE_CREATION_LIMIT; the "
    "hosted profile's tables-per-hour), with Retry-After.",
    422: "A bad value, or text holding a lone surrogate, a control, bidi or zero-width "
    "character; `field` names it.",
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
                codes |= {403, 408, 409, 413, 415, 422}
            if "{table_id}" in path:
                codes |= {404, 409, 422} | ({401} if write else set())
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


def _filed(components: dict[str, Any], ruleset: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A ruleset's schema with its pydantic ``$defs`` filed among the components under the
    ruleset's name, and its references pointed there."""
    text = json.dumps(schema).replace('"#/$defs/', f'"#/components/schemas/{ruleset}.')
    filed: dict[str, Any] = json.loads(text)
    for key, value in filed.pop("$defs", {}).items():
        components[f"{ruleset}.{key}"] = value
    return filed


def _merge(components: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    for key, value in schema.pop("$defs", {}).items():
        components.setdefault(key, value)
    return schema


def _one_of(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    return schemas[0] if len(schemas) == 1 else {"oneOf": schemas}


def _any_of(schemas: list[dict[str, Any]]) -> dict[str, Any]:
    """The table's ruleset decides which applies; the body alone may fit several."""
    return schemas[0] if len(schemas) == 1 else {"anyOf": schemas}
