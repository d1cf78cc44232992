"""The one place where refusals become HTTP replies.

Every refusal has the same JSON shape: ``{"code", "message", "field", "clause", "details"}``;
``message`` names the field or the clause so a player can act on it. Nothing reaches the
client as a bare 500: an unexpected failure is logged and answered with a plain message.
"""

from __future__ import annotations

import logging
import sqlite3
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from tankref.core.errors import Kind, RulesError
from tankref.server.store import StoreFailure, StoreUnavailable

log = logging.getLogger("tankref.server")

# Seconds a client is told to wait when the database cannot be reached (HTTP Retry-After).
RETRY_AFTER = "2"

# An engine refusal's status, from its kind alone: a new refusal code needs no entry here.
STATUS: dict[Kind, int] = {
    "refused": 409,  # the action conflicts with the game as it stands
    "needs_dice": 409,  # nothing applied: roll these dice and send the action again
    "needs_decision": 409,  # nothing applied: the named seat decides, then send it again
    "not_found": 404,
    "bad_value": 422,  # a value in the request the table never takes
}


class ApiError(Exception):
    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        field: str | None = None,
        clause: str | None = None,
        details: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.clause = clause
        self.details = details or {}
        self.headers = headers

    def body(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "field": self.field,
            "clause": self.clause,
            "details": self.details,
        }

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.status, headers=self.headers)


def from_rules(err: RulesError, prefix: str = "") -> ApiError:
    """A refusal by the engine, with the status its kind says."""
    status = STATUS[err.kind]
    field = err.details.get("field")
    if isinstance(field, str) and prefix and not field.startswith("dice."):
        field = f"{prefix}.{field}"  # a supplied die or card is named from the body's root
    return ApiError(
        status,
        err.code,
        err.message,
        field=field if isinstance(field, str) else None,
        clause=err.clause,
        details={k: v for k, v in err.details.items() if k != "field"},
    )


def _loc(loc: tuple[Any, ...] | list[Any], prefix: str = "") -> str:
    parts = [str(p) for p in loc if p not in ("body",)]
    # Discriminated unions put the tag in the path ("action.engage.target_id"): keep it, it
    # says which action the field belongs to.
    text = ".".join(parts)
    return f"{prefix}.{text}" if prefix and text else (prefix or text)


def from_validation(errors: list[Any], prefix: str = "") -> ApiError:
    """Pydantic's complaints, each naming its field; the first one leads the message."""
    problems = []
    for e in errors:
        where = _loc(e.get("loc", ()), prefix) or "body"
        problems.append({"field": where, "problem": e.get("msg", "invalid"), "type": e.get("type")})
    if any(p["type"] == "json_invalid" for p in problems):
        first = problems[0]
        return ApiError(
            400, "BAD_JSON", f"the body is not valid JSON: {first['problem']}", field="body"
        )
    first = problems[0]
    extra = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return ApiError(
        422,
        "INVALID",
        f"{first['field']}: {first['problem']}{extra}",
        field=first["field"],
        details={"problems": problems},
    )


def _allowed_methods(request: Request) -> list[str]:
    """The methods some route fully matches for this path (routers may be nested)."""
    allowed = []
    for method in ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"):
        scope = {**request.scope, "method": method}
        if any(route.matches(scope)[0] == Match.FULL for route in request.app.router.routes):
            allowed.append(method)
    return allowed


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api(_: Request, exc: ApiError) -> JSONResponse:
        return exc.response()

    @app.exception_handler(RulesError)
    async def _rules(_: Request, exc: RulesError) -> JSONResponse:
        return from_rules(exc).response()

    @app.exception_handler(RequestValidationError)
    async def _request(_: Request, exc: RequestValidationError) -> JSONResponse:
        return from_validation(list(exc.errors())).response()

    @app.exception_handler(ValidationError)
    async def _validation(_: Request, exc: ValidationError) -> JSONResponse:
        return from_validation(list(exc.errors())).response()

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # FastAPI's only 400 is a body it cannot decode (not UTF-8): the same as broken JSON.
        code = {
            400: "BAD_JSON",
            404: "NOT_FOUND",
            405: "METHOD_NOT_ALLOWED",
            413: "BODY_TOO_LARGE",
        }.get(exc.status_code, "HTTP_ERROR")
        headers = dict(exc.headers) if exc.headers else {}
        if exc.status_code == 405:
            # RFC 9110: a 405 lists every method the path has. Starlette names only the first
            # route whose path matched (GET /tables but not POST /tables): ask them all.
            headers["Allow"] = ", ".join(_allowed_methods(request))
        return ApiError(exc.status_code, code, str(exc.detail), headers=headers).response()

    @app.exception_handler(sqlite3.DatabaseError)
    async def _database(request: Request, exc: Exception) -> JSONResponse:
        # A damaged page of the file: this request fails, the referee and other tables go on.
        log.error("database error on %s %s: %s", request.method, request.url.path, exc)
        return ApiError(
            503, "DATABASE_UNREADABLE", f"the referee could not read its database ({exc})"
        ).response()

    @app.exception_handler(StoreFailure)
    async def _store(request: Request, exc: Exception) -> JSONResponse:
        # Any store's failure (the PostgreSQL server gone, a read refused): this request
        # fails, nothing unsaved was acknowledged, and the next request connects again.
        log.error("database error on %s %s: %s", request.method, request.url.path, exc)
        if isinstance(exc, StoreUnavailable):
            return ApiError(
                503,
                "DATABASE_UNAVAILABLE",
                f"the referee cannot reach its database ({exc}); try again shortly",
                headers={"Retry-After": RETRY_AFTER},
            ).response()
        return ApiError(
            503, "DATABASE_UNREADABLE", f"the referee could not read its database ({exc})"
        ).response()

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        # Logged with the path only: headers (and the write token) never reach the log.
        log.exception("unexpected failure on %s %s", request.method, request.url.path)
        return ApiError(
            500, "INTERNAL", "the referee hit an unexpected problem; its console has the details"
        ).response()
