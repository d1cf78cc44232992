"""Actions: engage, wait, recover, smoke, end phase, crew roll ... with a client request id."""

from __future__ import annotations

import re
from typing import Any

from fastapi import APIRouter, FastAPI, Response
from pydantic import ValidationError
from starlette.routing import BaseRoute, Match
from starlette.types import Receive, Scope, Send

from tankref.server.errors import ApiError, from_validation
from tankref.server.guards import PARSED_BODY
from tankref.server.referee import Referee, TableHost
from tankref.server.routes.deps import Access, WriteDep, json_reply
from tankref.server.schemas import ActionRequest, Reply

router = APIRouter(prefix="/tables/{table_id}/actions", tags=["actions"])


@router.post("", response_model=Reply)
async def post_action(body: ActionRequest, access: WriteDep) -> Response:
    """Adjudicate one action. The same ``request_id`` again returns the first result and
    never rolls again. With table dice, a 409 ``DICE_NEEDED`` says which dice to roll next:
    roll them and send the action again with every face so far. A table that draws its own
    damage cards (``dice.damage_cards: table``) is asked the same way for the card
    (``need.die`` ``damage_card``): send it as ``dice.damage_card``."""
    try:
        action = access.host.rules.parse_action(body.action)
    except ValidationError as exc:
        raise from_validation(list(exc.errors()), "action") from None
    return await _adjudicated(access, body, action)


async def _adjudicated(access: Access, body: ActionRequest, action: Any) -> Response:
    reply = await access.ref.submit(
        access.host,
        request_id=body.request_id,
        request=body.model_dump(mode="json", exclude={"request_id", "dice"}),
        build=lambda _: action,
        dice=body.dice,
        by=body.by,
    )
    return json_reply(reply)


# The route's path as Starlette's ``{table_id}`` matches it: one segment, not empty.
_ACTIONS_PATH = re.compile(r"/tables/([^/]+)/actions")
MAX_TABLE_ID = 64  # deps.TableId's max_length
DECLINED = "tankref.quick_action_declined"


class QuickAction(BaseRoute):
    """``POST /tables/{table_id}/actions``, the referee's busiest request, without FastAPI's
    per-request work around it (the body parsed a second time, a dependency tree solved,
    header and path parameters validated one by one): most of the server's time around the
    rules went there (issue 18). It takes the body the guards already parsed and checked
    (``guards.PARSED_BODY``).

    It answers only the plain case: a body that validates, a table that opens, the table's
    token, an action its ruleset reads. Anything else it declines before anything is done,
    and the request goes on to the documented route (``post_action``), which answers it as
    it always has (the same refusal, in the same order of checks). From the submit on, both
    run the same code (``_adjudicated``), and a refusal there is raised to the same
    exception handlers."""

    def __init__(self, app: FastAPI) -> None:
        self.app = app

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] == "http" and scope["method"] == "POST" and DECLINED not in scope:
            found = _ACTIONS_PATH.fullmatch(scope["path"])
            if found is not None and not scope.get("root_path"):
                return Match.FULL, {"path_params": {"table_id": found[1]}}
        return Match.NONE, {}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        answer = await self._answer(scope)
        if answer is None:
            scope[DECLINED] = True  # the routes again, this one left out
            await self.app.router(scope, receive, send)
            return
        await answer(scope, receive, send)

    async def _answer(self, scope: Scope) -> Response | None:
        """The reply, or None: declined (nothing was done)."""
        data = scope.get(PARSED_BODY)
        table_id = scope["path_params"]["table_id"]
        if not isinstance(data, dict) or len(table_id) > MAX_TABLE_ID:
            return None
        try:
            body = ActionRequest.model_validate(data)
        except ValidationError:
            return None
        ref: Referee = self.app.state.referee
        authorization = _header(scope, b"authorization")
        try:
            host: TableHost = await ref.open(table_id)
            seat = ref.authorize(host, authorization)
        except ApiError:
            return None
        try:
            action = host.rules.parse_action(body.action)
        except ValidationError:
            return None
        return await _adjudicated(Access(ref, host, seat), body, action)


def _header(scope: Scope, name: bytes) -> str | None:
    """The header's value as FastAPI's ``Header`` reads it (its first occurrence)."""
    for key, value in scope["headers"]:
        if key.lower() == name:
            text: str = value.decode("latin-1")
            return text
    return None


def install(app: FastAPI, *, quick: bool = True) -> None:
    """The documented routes, and (``quick``) ``QuickAction`` ahead of every route."""
    app.include_router(router)
    if quick:
        app.router.routes.insert(0, QuickAction(app))
